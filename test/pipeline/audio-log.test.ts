/** The STT stage's ring of capture times and replay audio. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AudioLog } from '../../src/pipeline/audio-log.ts';

const RATE = 8000;
const piece = (k: number) => new Int16Array(160).fill(k);
/** Pieces of 20 ms from session second 0, captured at 1000 + 20·k ms plus a jitter of k % 3. */
function fill(log: AudioLog, n: number, from = 0): void {
  for (let k = from; k < from + n; k++) log.push(piece(k), k * 0.02, 1000 + k * 20 + (k % 3));
}

test('timeOf: the capture time from the last piece at or before a second, interpolated', () => {
  const log = new AudioLog(8);
  assert.equal(log.timeOf(0), undefined);
  fill(log, 5);
  assert.equal(log.timeOf(0), 1000);
  assert.equal(log.timeOf(0.05), 1000 + 40 + 2 + 10); // piece 2 starts at 0.04 s, captured 1042
  assert.equal(log.timeOf(-1), 1000 - 1000); // before the first: from the first
});

test('the ring keeps the newest entries once nothing older is kept for replay', () => {
  const log = new AudioLog(4);
  fill(log, 3);
  log.releaseBefore(1, RATE); // a final: nothing to replay
  assert.equal(log.replayStart, undefined);
  // Each piece is final as soon as it is sent: the ring overwrites its oldest entries.
  for (let k = 3; k < 8; k++) {
    log.push(piece(k), k * 0.02, 1000 + k * 20 + (k % 3));
    if (k < 4) log.releaseBefore(k * 0.02 + 0.02, RATE);
  }
  assert.equal(log.length, 4);
  // Pieces 4..7 remain: the time of piece 5 is exact, earlier ones come from piece 4.
  assert.equal(log.timeOf(0.1), 1000 + 100 + 2);
  assert.equal(log.timeOf(0.02), 1000 + 80 + 1 - 60);
  assert.deepEqual([...log.replay()].map((p) => p[0]), [4, 5, 6, 7]);
});

test('replay: released after a final, capped to a window, grown rather than lost', () => {
  const log = new AudioLog(4);
  fill(log, 6); // more than the capacity, all still kept for replay: the ring grows
  assert.equal(log.length, 6);
  assert.deepEqual([...log.replay()].map((p) => p[0]), [0, 1, 2, 3, 4, 5]);
  assert.equal(log.replayStart, 0);
  // Pieces that end at or before 0.06 s (0, 1, 2) go; piece 3 ends at 0.08.
  log.releaseBefore(0.06, RATE);
  assert.equal(log.replayStart, 0.06);
  assert.deepEqual([...log.replay()].map((p) => p[0]), [3, 4, 5]);
  // Started more than 0.05 s before 0.1 s: piece 3 (0.06) stays, as 0.1 − 0.06 = 0.04.
  log.releaseOlderThan(0.1, 0.03);
  assert.deepEqual([...log.replay()].map((p) => p[0]), [4, 5]);
  // The released entries still answer capture times until overwritten.
  assert.equal(log.timeOf(0), 1000);
  // The released entries are overwritten first; the ring grows only for the replay.
  fill(log, 10, 6);
  assert.equal(log.length, 12);
  assert.deepEqual([...log.replay()].map((p) => p[0]), [4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
  assert.equal(log.timeOf(0), 1000 + 80 + 1 - 80); // piece 4 (0.08 s, 1081) is now the oldest: extrapolated back
  assert.equal(log.timeOf(0.3), 1000 + 300 + 0);
});

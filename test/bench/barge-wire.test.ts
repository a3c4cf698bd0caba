/**
 * The barge-in bench's wire figures (bench/barge-wire.ts, bench/barge-figures.ts): which agent
 * media a barge-in counts, and which figure it belongs to. Times are given, never read.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BargeWire, bargeFigure } from '../../bench/barge-wire.ts';
import { wireFigures } from '../../bench/barge-figures.ts';

/** A reply flowing to the caller: one agent media message every 20 ms from `from` to `to` (exclusive). */
function flow(w: BargeWire, from: number, to: number): void {
  for (let t = from; t < to; t += 20) w.media(t);
}

test('agent media read during the first speech frame\'s capture count: the barge-in the old figure read as 0', () => {
  const w = new BargeWire('c1');
  // The reply flows; the caller's speech starts at 1000 (capture start), its first frame leaves
  // at 1020; the last agent media before the clear came at 1005, the clear is read at 1024.
  flow(w, 845, 1010);
  w.speak(1000, 1020);
  const b = w.clear(1024)!;
  assert.equal(b.mediaAfter, 1);
  assert.equal(b.mediaBeforeSent, 1);
  assert.equal(b.lastBefore, 985);
  const f = bargeFigure(b, { at: 1022, unsentMs: 200 });
  assert.equal(f.kind, 'during');
  assert.equal(f.ms, 5, 'speech start → the last agent media on the wire');
  assert.equal(f.legacyMs, 0, 'the figure of before missed it');
});

test('media read after the first speech frame left count too, up to the clear', () => {
  const w = new BargeWire('c1');
  flow(w, 905, 1010);
  w.speak(1000, 1020);
  flow(w, 1025, 1070); // 1025, 1045, 1065: the server heard the caller late
  const b = w.clear(1071)!;
  assert.equal(b.mediaAfter, 4);
  assert.equal(b.mediaBeforeSent, 1);
  const f = bargeFigure(b, { at: 1070, unsentMs: 180 });
  assert.deepEqual([f.kind, f.ms, f.legacyMs], ['during', 65, 65]);
  assert.equal(w.clear(1100), undefined, 'one clear per barge-in');
});

test('a barge-in after the reply\'s last byte is timed to the clear, apart', () => {
  const w = new BargeWire('c1');
  flow(w, 0, 500); // the reply's last byte is read at 480
  w.speak(600, 620);
  const b = w.clear(625)!;
  assert.equal(b.mediaAfter, 0);
  assert.equal(b.lastBefore, 480);
  const f = bargeFigure(b, { at: 623, unsentMs: 0 });
  assert.deepEqual([f.kind, f.ms, f.callerOnly], ['after', 25, false]);
});

test('a server that had audio left but sent none in time is a barge-in during the reply with 0 on the wire', () => {
  const w = new BargeWire('c1');
  flow(w, 0, 500);
  w.speak(600, 620);
  const b = w.clear(700)!;
  const f = bargeFigure(b, { at: 699, unsentMs: 140 });
  assert.deepEqual([f.kind, f.ms], ['during', 0]);
  // Without the server's stamp the caller's reads alone decide.
  const alone = bargeFigure(b);
  assert.deepEqual([alone.kind, alone.callerOnly], ['after', true]);
});

test('a barge-in without a clear expires after 2 s; only the last second of media is kept', () => {
  const w = new BargeWire('c1');
  flow(w, 0, 3000);
  w.speak(3000, 3020);
  assert.equal(w.expire(4000, 2000), false);
  assert.equal(w.active, true);
  assert.equal(w.expire(5001, 2000), true);
  assert.equal(w.active, false);
  assert.equal(w.clear(5002), undefined);
});

test('the run\'s figures: each covers its own barge-ins and says how many', () => {
  const w = new BargeWire('c1');
  flow(w, 5, 1010); // the last at 1005, after the speech start
  w.speak(1000, 1020);
  const during = w.clear(1024)!;
  flow(w, 2000, 2500);
  w.speak(2600, 2620);
  const after = w.clear(2630)!;
  const server = new Map([[during, { at: 1022, unsentMs: 200 }], [after, { at: 2628, unsentMs: 0 }]]);
  const r = wireFigures([during, after], (b) => server.get(b));
  assert.equal(r.duringReply.n, 1);
  assert.equal(r.duringReply.speechToLastAudioOnWireMs.p50, 5);
  assert.equal(r.duringReply.speechToLastAudioOnWireMs.n, 1);
  assert.equal(r.afterLastByte.n, 1);
  assert.equal(r.afterLastByte.speechToClearMs.p50, 30);
  assert.equal(r.callerOnly, 0);
  assert.equal(r.legacy.readZero, 2);
  assert.equal(r.legacy.readZeroWithAudioAfterSpeech, 1);
});

test('the server\'s side of the figure: its last agent media write, not the caller\'s late read of it', () => {
  const w = new BargeWire('c1');
  flow(w, 905, 1010);
  w.speak(1000, 1020);
  // The caller's loop was busy: the media the server wrote at 1025 and its clear are read together at 1060.
  w.media(1060);
  const b = w.clear(1060)!;
  const f = bargeFigure(b, { at: 1030, unsentMs: 200, lastWrite: 1025 });
  assert.deepEqual([f.kind, f.ms, f.serverMs], ['during', 60, 25]);
  // A last write before speech start is 0 on the server's side; without the stamp there is no server figure.
  assert.equal(bargeFigure(b, { at: 1030, unsentMs: 200, lastWrite: 990 }).serverMs, 0);
  assert.equal(bargeFigure(b, { at: 1030, unsentMs: 200 }).serverMs, undefined);
  // After the last byte only the clear is timed.
  const r = wireFigures([b], () => ({ at: 1030, unsentMs: 200, lastWrite: 1025 }));
  assert.equal(r.duringReply.speechToLastWriteMs.p50, 25);
  assert.equal(r.duringReply.speechToLastWriteMs.n, 1);
});

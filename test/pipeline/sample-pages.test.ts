/** The pages the STT stage keeps replay audio in: copies in, reads back, lets go of what is released. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SamplePages } from '../../src/pipeline/sample-pages.ts';
import { AudioLog } from '../../src/pipeline/audio-log.ts';

const ramp = (from: number, n: number) => Int16Array.from({ length: n }, (_, i) => from + i);

test('pieces are copied into pages and read back whole, inside one page or across two', () => {
  const p = new SamplePages(8);
  assert.equal(p.append(ramp(0, 5)), 0);
  assert.equal(p.append(ramp(5, 5)), 5); // crosses into the second page
  assert.equal(p.append(ramp(10, 20)), 10); // longer than a page
  assert.equal(p.end, 30);
  assert.deepEqual([...p.read(0, 5)], [...ramp(0, 5)]);
  assert.deepEqual([...p.read(5, 5)], [...ramp(5, 5)]);
  assert.deepEqual([...p.read(10, 20)], [...ramp(10, 20)]);
  assert.deepEqual([...p.read(16, 8)], [...ramp(16, 8)], 'exactly one page');
});

test('dropBefore lets go of whole pages before an index only; a dropped page is reused, not read', () => {
  const p = new SamplePages(8);
  p.append(ramp(0, 20));
  p.dropBefore(9); // page 0 (0–7) holds only earlier samples; page 1 (8–15) holds sample 8
  assert.throws(() => p.read(7, 2), RangeError);
  assert.deepEqual([...p.read(8, 12)], [...ramp(8, 12)]);
  p.dropBefore(1000); // past the end: the page being written stays
  assert.deepEqual([...p.read(16, 4)], [...ramp(16, 4)]);
  p.append(ramp(20, 12)); // fills page 2 and takes the spare for page 3
  assert.deepEqual([...p.read(16, 16)], [...ramp(16, 16)]);
});

test('the audio log keeps copies: a piece changed after it was logged replays as it was', () => {
  const log = new AudioLog(4);
  const frame = ramp(100, 160);
  log.push(frame, 0, 1000);
  frame.fill(0); // a transport reusing its buffer
  const [replayed] = [...log.replay()];
  assert.deepEqual([...replayed!], [...ramp(100, 160)]);
});

test('a long replay window across many pages reads back every piece in order', () => {
  const log = new AudioLog(4);
  const rate = 8000;
  for (let k = 0; k < 500; k++) log.push(ramp(k * 160, 160), k * 0.02, 1000 + k * 20); // 10 s, about 5 pages
  log.releaseBefore(4, rate); // pieces ending at or before 4 s go
  const kept = [...log.replay()];
  assert.equal(kept.length, 300);
  assert.equal(kept[0]![0], 200 * 160);
  assert.deepEqual([...kept[299]!], [...ramp(499 * 160, 160)]);
});

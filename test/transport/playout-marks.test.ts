import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PlayoutMarks } from '../../src/transport/playout-marks.ts';

/** Which of `promises` have resolved, after the pending microtasks ran. */
async function settled(promises: Promise<void>[]): Promise<boolean[]> {
  const done = promises.map(() => false);
  promises.forEach((p, i) => void p.then(() => (done[i] = true)));
  await new Promise((r) => setImmediate(r));
  return done;
}

test('a mark resolves once what was sent reaches its position, within the tolerance', async () => {
  const marks = new PlayoutMarks(1e-6);
  const placed = [marks.add(0.2), marks.add(0.4), marks.add(0.6)];
  marks.settle(0.1);
  assert.deepEqual(await settled(placed), [false, false, false]);
  marks.settle(0.4 - 1e-7);
  assert.deepEqual(await settled(placed), [true, true, false]);
});

test('a drained output settles every mark; releaseAll resolves the rest and leaves none', async () => {
  const marks = new PlayoutMarks();
  const first = [marks.add(100), marks.add(200)];
  marks.settle(0, true);
  assert.deepEqual(await settled(first), [true, true]);
  const second = [marks.add(300), marks.add(400)];
  marks.releaseAll();
  assert.deepEqual(await settled(second), [true, true]);
  const third = marks.add(500);
  marks.settle(499);
  assert.deepEqual(await settled([third]), [false]);
});

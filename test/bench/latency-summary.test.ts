import assert from 'node:assert/strict';
import { test } from 'node:test';
import { coldPinArgs, summaryRow } from '../../bench/latency-rows.ts';

const row = (share: number, rigShare: number) => ({
  turns: 9,
  stream: true,
  added: { p50: 2.1, p99: 3.7 },
  cpuMs: 2433,
  conditions: { loadBefore: 3.6, loadAfter: 2.8, runQueueWaitMs: 1955, runQueueWaitShare: share, loopWaitMs: 1375, loopWaitShare: 0.43, affinity: { pinned: false, server: '0-1', rig: '0-1' }, rig: { runQueueWaitMs: 539, runQueueWaitShare: rigShare, starved: rigShare > 0.1 } },
});

test("the latency summary's rows keep their verdicts: a starved run says STARVED there, not only in its own table above", () => {
  const [name, figure, conditions] = summaryRow('cold, 3 calls', row(0.45, 0.5));
  assert.equal(name, 'cold, 3 calls (9 turns, streamed)');
  assert.equal(figure, '2.1 / 3.7');
  assert.match(conditions, /^p99 ≤ 15; load 3\.6 → 2\.8, run-queue wait 1955 ms \(45 %, STARVED/);
  assert.match(conditions, /RIG STARVED/);
  assert.match(conditions, /unpinned: hiwar on CPU 0-1, rig on CPU 0-1/);
  assert.match(conditions, /CPU 2433 ms$/);
  const [, , quiet] = summaryRow('warm, 10 calls', row(0.02, 0.01));
  assert.match(quiet, /^p50 ≤ 2, p99 ≤ 6; load 3\.6 → 2\.8, run-queue wait 1955 ms \(2 %/);
  assert.doesNotMatch(quiet, /STARVED/);
});

test("the cold row's process gets the pin this one runs with, or the one given: never a pin=off nobody asked for", () => {
  const unpinned = { pinned: false, server: [0, 1], rig: [0, 1], note: '' };
  assert.deepEqual(coldPinArgs(unpinned, ['stream=1']), [], 'pin=auto (none given): the child resolves auto the same way and says why');
  assert.deepEqual(coldPinArgs(unpinned, ['pin=off']), ['pin=off']);
  assert.deepEqual(coldPinArgs({ pinned: true, server: [1], rig: [0], note: '' }, []), ['pin=1/0'], 'pinned: the same split');
});

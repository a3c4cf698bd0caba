/**
 * The density bench's summary (bench/density.ts `densitySummary`): calls per core only from levels
 * where neither hiwar nor its rig was starved, as the per-level lines say. Counts only.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { densitySummary } from '../../bench/density.ts';

const row = (calls: number, cpuPct: number, lateAgentFrames: number, lateAgentCallerStalled: number | null = null) => ({ calls, cpuPct, lateAgentFrames, lateAgentCallerStalled });
const fed = { starved: false, rig: null };
const starved = { starved: true, rig: null };
const rigStarved = { starved: false, rig: { runQueueWaitMs: 9000, runQueueWaitShare: 0.4, starved: true } };

test('a starved level is no evidence of calls per core: the summary is taken from the levels that were fed', () => {
  // 100 and 150 calls ran starved with no late frame: they say nothing about what a core holds.
  const s = densitySummary([row(50, 20, 0), row(100, 27, 0), row(150, 30, 0)], [fed, starved, rigStarved]);
  assert.equal(s.ok, 50);
  assert.equal(s.fed?.calls, 50);
  assert.equal(s.byCpu, 250);
});

test('every level starved: nothing is reported', () => {
  const s = densitySummary([row(100, 27, 0), row(200, 40, 3)], [starved, rigStarved]);
  assert.deepEqual([s.ok, s.okServer, s.fed, s.byCpu], [null, null, undefined, null]);
});

test('among the fed levels, the largest with no late agent frame up to it; a stalled caller\'s reads apart', () => {
  const s = densitySummary([row(25, 10, 0, 0), row(50, 20, 2, 2), row(100, 40, 5, 1)], [fed, fed, fed]);
  assert.equal(s.ok, 25);
  assert.equal(s.okServer, 50);
  assert.equal(s.fed?.calls, 100);
});

/**
 * Every bench figure comes with its conditions: the simpler benches (soak, llm, timers,
 * telephony-edge) printed theirs without load or run-queue wait. Tiny runs through the
 * dispatcher; shapes only, never timings.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { execOk } from '../helpers/processes.ts';
import { benchRunArgs } from '../helpers/bench.ts';

async function bench(...args: string[]): Promise<{ out: string; json: Record<string, any> }> {
  const { stdout } = await execOk(process.execPath, benchRunArgs(...args), { timeoutMs: 120_000 });
  return { out: stdout, json: JSON.parse(stdout.trim().split('\n').at(-1)!) };
}

function hasConditions(name: string, r: { out: string; json: Record<string, any> }): void {
  const c = r.json.conditions;
  assert.ok(c, `${name}: conditions in its JSON`);
  for (const k of ['loadBefore', 'loadAfter']) assert.equal(typeof c[k], 'number', `${name}: ${k}`);
  assert.ok('runQueueWaitMs' in c && 'affinity' in c, `${name}: the run-queue wait and the CPUs`);
  assert.match(r.out, /load [\d.]+ → [\d.]+, run-queue wait/, `${name}: printed beside its figures`);
}

test('timers takes loops= as its usage says (it read only a bare number: loops=20 ran no loop and printed nulls), and prints its conditions', async () => {
  const r = await bench('timers', '--quick', 'loops=3');
  assert.equal(r.json.calls, 3);
  assert.ok(r.json.perCall.every((p: { lateP50Ms: number | null }) => typeof p.lateP50Ms === 'number'), 'each run measured its wakes');
  hasConditions('timers', r);
  await assert.rejects(execOk(process.execPath, benchRunArgs('timers', 'loops=many')), /usage: npm run bench -- timers/);
});

test('telephony-edge, soak and llm print their conditions beside their figures', async () => {
  hasConditions('telephony-edge', await bench('telephony-edge', 'calls=2', 'seconds=1'));
  const soak = await bench('soak', 'seconds=3', 'concurrent=2', 'pin=off');
  hasConditions('soak', soak);
  assert.match(soak.out, /local transport/);
  hasConditions('llm', await bench('llm', 'requests=1', 'pin=off'));
});

test('bench/call.ts (a whole demo call on the sandbox) prints its conditions and every part of a turn, the first sentence too', async () => {
  // One call at four times the clock's speed: its figures are not looked at, only what it says beside them.
  const { stdout } = await execOk(process.execPath, benchRunArgs('call', '1', '4'), { timeoutMs: 180_000 });
  assert.match(stdout, /agent turns at clock speed 4 .*1 run, the first cold; load [\d.]+ → [\d.]+, run-queue wait/);
  assert.match(stdout, /^llmFirstSentenceMs\s+median/m);
});

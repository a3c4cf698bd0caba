// scripts/test-simulate.mjs: the model that chose the runner's schedule (docs/testing.md,
// "Choosing the schedule"), checked on runs small enough to work out by hand.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { POLICIES, policy, readTimes, shareCores, simulate, type FileTimes } from '../../scripts/test-simulate.mjs';

const near = (actual: number, expected: number, what: string) => assert.ok(Math.abs(actual - expected) < 0.2, `${what}: ${actual} (expected ${expected})`);
const heavy = (file: string, s: number, cpu: number): FileTimes => ({ file, s, cpu, lane: 'heavy' });

test('cores are shared as the kernel shares them: small demands met, the rest split by weight', () => {
  assert.deepEqual(shareCores([0.2, 1, 1], 2).map((x) => Math.round(x * 100) / 100), [0.2, 0.9, 0.9]);
  assert.deepEqual(shareCores([0.5, 0.5], 2), [0.5, 0.5], 'an idle machine meets every demand');
  // A niced process (weight 0.107) beside one at normal priority, both wanting a core, on one core.
  const [normal = 0, niced = 0] = shareCores([1, 1], 1, [1, 0.107]);
  near(normal, 1 / 1.107, 'normal');
  near(niced, 0.107 / 1.107, 'niced');
});

test('CPU-bound files: two cores run two at once in their time; three at once share them', () => {
  const files = [heavy('a', 10, 10), heavy('b', 10, 10), heavy('c', 10, 10)];
  near(simulate(files, policy('2', { min: 2 })).wall, 20, 'two, then the third alone');
  near(simulate(files, policy('3', { min: 3 })).wall, 15, 'all three at two thirds of a core');
  assert.equal(simulate(files, policy('3', { min: 3 })).widest, 3);
});

test('wall-bound files (a quarter of a core each) finish sooner the more run at once, within the budget', () => {
  const files = ['a', 'b', 'c', 'd'].map((f) => heavy(f, 10, 2.5));
  near(simulate(files, policy('2', { min: 2 })).wall, 20, 'two at once');
  const budget = simulate(files, policy('budget', { min: 2, max: 8, budget: 1 }));
  near(budget.wall, 10, 'four within one core');
  assert.equal(budget.share, 1, 'never starved');
  // Within half a core only two fit: the budget holds the others back.
  near(simulate(files, policy('half', { min: 1, max: 8, budget: 0.5 })).wall, 20, 'two within half a core');
});

test('the light lane and the type checks only get what the heavy lane leaves', () => {
  const files: FileTimes[] = [heavy('h', 10, 20), { file: 'l', s: 1, cpu: 1, lane: 'light' }];
  const run = simulate(files, policy('2', { min: 2 }));
  const end = (f: string) => run.events.find((e) => e.file === f)?.end ?? NaN;
  assert.ok(end('h') < 10.6, `the heavy file keeps nearly both cores: ${end('h')}`);
  assert.ok(end('l') > 5, `the niced file waits for it: ${end('l')}`);
});

test('on a loaded machine the runner\'s policy gives up the cores others use and stays at its minimum', () => {
  const files = ['a', 'b', 'c', 'd', 'e', 'f'].map((f) => heavy(f, 10, 2.5));
  const now = POLICIES[1];
  assert.ok(now?.others, 'the runner now counts the other processes');
  assert.equal(simulate(files, now).widest, 6, 'quiet: six quarter-core files fill two cores');
  assert.equal(simulate(files, now, { hogs: 2 }).widest, 2, 'two processes wanting a core each: two files at once');
  // Four such processes (load 6 on two cores): six files at once would each get less than they need; two get all of it.
  assert.equal(simulate(files, now, { hogs: 4 }).share, 1);
  assert.ok(simulate(files, policy('6', { min: 6 }), { hogs: 4 }).share < 0.9, 'six at once starve');
});

test('times are read from the runner\'s saved times, the schedule, or a log\'s file and group lines', () => {
  assert.deepEqual(readTimes(JSON.stringify({ wallS: 1, files: [{ file: 'test/a.test.ts', s: 2, cpuS: 1, lane: 'heavy' }] })), [heavy('test/a.test.ts', 2, 1)]);
  assert.deepEqual(readTimes(JSON.stringify({ 'test/a.test.ts': { s: 2, cpu: 1, lane: 'light' } })), [{ file: 'test/a.test.ts', s: 2, cpu: 1, lane: 'light' }]);
  const log = [
    '# file test/a.test.ts (heavy lane): 12.5 s (CPU 4.5 s), 3 tests, 3 pass, 0 fail, ok',
    'ok 1 - x',
    '# file test/b.test.ts (light lane, group 2): 0.4 s, 2 tests, 2 pass, 0 fail, ok',
    '# group 2 (light lane): 5 files in one process, 3.1 s (CPU 2.2 s), ok',
  ].join('\n');
  assert.deepEqual(readTimes(log), [heavy('test/a.test.ts', 12.5, 4.5), { file: 'group 2', s: 3.1, cpu: 2.2, lane: 'light' }]);
});

test('run with no times to read, it says what to give instead of a stack trace (exit 2)', () => {
  const script = fileURLToPath(new URL('../../scripts/test-simulate.mjs', import.meta.url));
  const r = spawnSync(process.execPath, [script, '/nonexistent/test-times.json'], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /no times at \/nonexistent\/test-times\.json; run `npm test` once, or name a file/);
  assert.doesNotMatch(r.stderr, /ENOENT|at readFileSync/);
});

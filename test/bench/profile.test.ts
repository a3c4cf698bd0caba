/** The profile summary reads a .cpuprofile's tree and samples as `node --cpu-prof` writes them. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { placeOf, profile as profileBench, summarize, type CpuProfile } from '../../bench/profile.ts';
import { benchRunArgs } from '../helpers/bench.ts';

const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber });

// root → main (src/a.ts) → { hot (node_modules/ws), gc }; root → (idle)
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)'), children: [2, 5] },
    { id: 2, callFrame: frame('main', 'file:///p/src/pipeline/a.ts', 9), children: [3, 4] },
    { id: 3, callFrame: frame('send', 'file:///p/node_modules/ws/lib/sender.js', 78) },
    { id: 4, callFrame: frame('(garbage collector)') },
    { id: 5, callFrame: frame('(idle)') },
  ],
  startTime: 0,
  endTime: 100,
  // Each sample stands for the delta after it: 3 → 10 µs ×3, 2 → 10, 4 → 20, 5 → 40.
  samples: [3, 3, 3, 2, 4, 5, 5],
  timeDeltas: [0, 10_000, 10_000, 10_000, 10_000, 20_000, 20_000, 20_000],
};

test('self time per function and per place; inclusive time of the project functions', () => {
  const s = summarize(profile, 10);
  assert.equal(s.totalMs, 100);
  assert.equal(s.busyPct, 60);
  assert.deepEqual(s.self.map((r) => [r.name, r.ms]), [
    ['(idle)', 40],
    ['send node_modules/ws/lib/sender.js:79', 30],
    ['(garbage collector)', 20],
    ['main src/pipeline/a.ts', 10],
  ]);
  assert.deepEqual(s.byPlace.find((r) => r.name === 'ws'), { name: 'ws', ms: 30, pct: 30 });
  // main is on the stack of its own sample, of send's and of the collector's.
  assert.deepEqual(s.inclusive, [{ name: 'main src/pipeline/a.ts', ms: 60, pct: 60 }]);
});

test('places: packages, node internals, project folders', () => {
  assert.equal(placeOf('file:///x/node_modules/@scope/pkg/lib/a.js'), '@scope/pkg');
  assert.equal(placeOf('node:internal/timers'), 'node:internal');
  assert.equal(placeOf('file:///w/hiwar/src/service/ws/listen.ts'), 'src/service');
  assert.equal(placeOf(''), '(native)');
});

test('the row count is read as the usage line writes it (top=2) or bare (2); anything else is refused', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'hiwar-profile-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'CPU.1.cpuprofile');
  writeFileSync(file, JSON.stringify(profile));
  t.mock.method(console, 'log', () => {});
  for (const arg of ['top=2', '2']) {
    const out = (await profileBench({ quick: false, rest: [dir, arg] })) as { self: unknown[] };
    assert.equal(out.self.length, 2, arg);
  }
  await assert.rejects(profileBench({ quick: false, rest: [file, 'top=all'] }), /top must be a whole number/);
});

test('npm run bench -- profile with no profile given: its usage in one line and exit code 1, no stack', () => {
  const r = spawnSync(process.execPath, benchRunArgs('profile'), { encoding: 'utf8', env: { ...process.env, HIWAR_DEBUG: '' } });
  assert.equal(r.status, 1, r.stderr);
  assert.equal(r.stderr, 'bench profile: usage: npm run bench -- profile <file.cpuprofile | dir> [top=25]\n');
});

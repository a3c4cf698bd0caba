// scripts/cpu-profile-summary.mjs: the tables `node scripts/cpu-profile.mjs report` prints
// (docs/testing.md), checked on profiles made by hand, and the recording hook on a real process.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { aggregate, placeOf, processKind, summarize, type CallFrame, type Profile } from '../../scripts/cpu-profile-summary.mjs';

const frame = (functionName: string, url = '', lineNumber = 0): CallFrame => ({ functionName, url, lineNumber });

test('a frame is placed by its file: our module directory (the compiled tree read as the repository), a package, a part of Node, V8', () => {
  assert.deepEqual(placeOf(frame('f', 'file:///work/x/.tmp/test-tree-Ab1/src/session/agent-session.js')), { group: 'ours', place: 'src/session' });
  assert.deepEqual(placeOf(frame('f', 'file:///repo/test/helpers/call.ts')), { group: 'ours', place: 'test/helpers' });
  assert.deepEqual(placeOf(frame('f', 'file:///repo/bin/hiwar.js')), { group: 'ours', place: 'bin' });
  assert.deepEqual(placeOf(frame('f', 'file:///repo/node_modules/rxjs/dist/cjs/index.js')), { group: 'package', place: 'rxjs' });
  assert.deepEqual(placeOf(frame('f', 'file:///repo/node_modules/@scope/pkg/node_modules/inner/x.js')), { group: 'package', place: 'inner' });
  assert.deepEqual(placeOf(frame('f', 'file:///repo/node_modules/@alexanderolsen/libsamplerate-js/dist/x.js')), { group: 'package', place: '@alexanderolsen/libsamplerate-js' });
  assert.deepEqual(placeOf(frame('f', 'node:internal/modules/esm/utils')), { group: 'node', place: 'node:internal/modules' });
  assert.deepEqual(placeOf(frame('f', 'node:fs')), { group: 'node', place: 'node:fs' });
  assert.deepEqual(placeOf(frame('(garbage collector)')), { group: 'v8', place: '(garbage collector)' });
  assert.equal(placeOf(frame('JSON.parse')), undefined, 'a builtin without a file counts for its caller');
});

test('a process is named by its argv: a test file, a hiwar subcommand, npm, the runner', () => {
  assert.equal(processKind(['node', '/r/.tmp/test-tree-x/test/session/flow.test.js']), 'test file session/flow');
  assert.equal(processKind(['node', '/r/.tmp/test-tree-x/bin/hiwar.js', 'serve', '--port', '0']), 'hiwar serve');
  assert.equal(processKind(['node', '/usr/lib/node_modules/npm/bin/npm-cli.js', 'pack']), 'npm pack');
  assert.equal(processKind(['node', '/r/scripts/test.mjs']), 'the runner (scripts/test.mjs)');
  assert.equal(processKind(['node', '/r/.tmp/test-tree-x/examples/pcm-gateway/gateway.mjs']), 'examples/pcm-gateway/gateway.mjs');
});

test('self time adds up over processes by kind, place and function; idle is left out; a builtin counts for its caller; loading is what ran under the module loader', () => {
  // root → loader (node:internal/modules) → our module's top level → JSON.parse (no file);
  // root → a package's function; root → (idle); root → (garbage collector); root → spawnSync.
  const profile = (argv: string[]): Profile => ({
    argv,
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2, 5, 6, 7, 8] },
      { id: 2, callFrame: frame('run', 'node:internal/modules/esm/module_job'), children: [3] },
      { id: 3, callFrame: frame('', 'file:///r/.tmp/test-tree-q/src/text/numbers.js', 9), children: [4] },
      { id: 4, callFrame: frame('JSON.parse') },
      { id: 5, callFrame: frame('process', 'file:///r/node_modules/pkg/index.js', 41) },
      { id: 6, callFrame: frame('(idle)') },
      { id: 7, callFrame: frame('(garbage collector)') },
      { id: 8, callFrame: frame('spawnSync', 'node:internal/child_process') },
    ],
    // Each sample counts for the interval (its time delta also holds any wait for a core).
    samples: [3, 4, 4, 5, 6, 6, 7, 5, 8],
    timeDeltas: [0, 100_000, 900_000, 100_000, 100_000, 3_000_000, 100_000, 100_000, 100_000],
    intervalUs: 100_000,
  });
  const a = aggregate([profile(['node', '/r/t/test/text/x.test.js']), profile(['node', '/r/bin/hiwar.js', 'demo'])]);
  const close = (actual: number | undefined, expected: number, what: string) => assert.ok(Math.abs((actual ?? NaN) - expected) < 1e-9, `${what}: ${actual} ≠ ${expected}`);
  assert.equal(a.processes, 2);
  // Per profile: src/text 3 samples (JSON.parse twice, for its caller), pkg 2, GC 1; idle 2 and
  // the wait in spawnSync (the child's CPU, not this process's) left out.
  close(a.total, 2 * 0.6, 'total');
  close(a.loading, 2 * 0.3, 'under the loader');
  close(a.byPlace.get('src/text'), 0.6, 'our module');
  close(a.byPlace.get('package: pkg'), 0.4, 'a package');
  close(a.byPlace.get('v8: (garbage collector)'), 0.2, 'V8');
  close(a.byKind.get('test files'), 0.6, 'the test file');
  close(a.byKind.get('hiwar children'), 0.6, 'the hiwar child');
  close(a.byFunction.get('process node_modules/pkg/index.js:42'), 0.4, 'a function, by its file and line');
  assert.match(summarize([profile(['node', 'x'])], { top: 3 }), /^1 processes, 0\.6 s of CPU sampled/);
});

test('the hook writes a profile of a process that exits, and of one ended by SIGTERM without a handler of its own (which still dies by it)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hiwar-cpu-profile-'));
  try {
    const hook = fileURLToPath(new URL('../../scripts/cpu-profile-hook.mjs', import.meta.url));
    const env = { ...process.env, HIWAR_CPU_PROFILE_DIR: dir };
    const work = 'let x = 0; for (let i = 0; i < 3e6; i++) x += Math.sqrt(i);';
    const exits = spawnSync(process.execPath, ['--import', hook, '-e', work], { env });
    assert.equal(exits.status, 0, String(exits.stderr));
    const killed = spawnSync(process.execPath, ['--import', hook, '-e', `${work} process.kill(process.pid, 'SIGTERM'); setTimeout(() => {}, 60_000);`], { env });
    assert.equal(killed.signal, 'SIGTERM', 'the process still dies by the signal');
    const profiles = readdirSync(dir).map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Profile);
    assert.equal(profiles.length, 2);
    for (const p of profiles) assert.ok(p.samples.length > 0 && p.argv?.[0] === process.execPath, 'samples and the argv');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// scripts/test-groups.mjs: which light test files may share a Node process, how they are packed
// into groups, and a real group process whose report is split back into one report per file with
// the counts each file gives when it runs alone (docs/testing.md, "Light files in groups").
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { countResults, groupEntry, groupFiles, ownProcessReason, splitGroupReport } from '../../scripts/test-groups.mjs';

/** ownProcessReason over an in-memory repository: path → source. */
const reason = (files: Record<string, string>, file: string) =>
  ownProcessReason('/r', file, (path) => {
    const source = files[path.slice('/r/'.length)];
    if (source === undefined) throw new Error(`no ${path}`);
    return source;
  });

test('a file that reads the environment or uses the sources may share a process; one that changes what the next file would see may not', () => {
  const pure = "import { x } from '../../src/x.ts';\nconst dir = process.env.HIWAR_DIR ?? '/tmp';\nif (process.env.CI === '1') x();\n";
  assert.equal(reason({ 'test/a.test.ts': pure }, 'test/a.test.ts'), undefined);
  // Signalling another process (a child, or signal 0 to see whether one lives) is not process-wide.
  const others = "child.process.kill('SIGKILL');\nprocess.kill(pid, 0);\nprocess.kill(-child.pid, 'SIGTERM');\n";
  assert.equal(reason({ 'test/a.test.ts': pure + others }, 'test/a.test.ts'), undefined);
  const cases: [string, RegExp][] = [
    ["process.env.HIWAR_KEY = 'k';", /environment/],
    ['process.env.HIWAR_KEY ??= "k";', /environment/],
    ['delete process.env.HIWAR_KEY;', /environment/],
    ["process.chdir('/tmp');", /working directory/],
    ["process.on('unhandledRejection', () => {});", /listens on the process/],
    ['process.exitCode = 2;', /exits/],
    ["process.kill(process.pid, 'SIGINT');", /exits, signals/],
    ["cluster.setupPrimary({ exec: child });", /cluster/],
    ['process.stdout.write = () => true;', /process object/],
    ['globalThis.fetch = fake;', /global/],
    ['const g = globalThis as unknown as { fetch: typeof fetch };\ng.fetch = fake;', /global/],
    ['Date.now = () => 0;', /global function/],
    ["mock.timers.enable({ apis: ['setTimeout'] });", /timers/],
    ["t.mock.method(console, 'log', () => {});", /mocks a global/],
    ['// hiwar-test: own-process (it loads a native addon twice)', /marked/],
  ];
  for (const [line, why] of cases) assert.match(reason({ 'test/a.test.ts': `${pure}${line}\n` }, 'test/a.test.ts') ?? '(none)', why, line);
});

test('a test helper the file imports is scanned too (named in the reason); modules outside test/ are not', () => {
  // The extension apart: the compiled tree rewrites `.ts` specifiers, in strings too.
  const ts = '.ts';
  const files = {
    'test/x/a.test.ts': `import { start } from '../helpers/server${ts}';\nimport { y } from '../../src/y${ts}';\n`,
    'test/helpers/server.ts': `import { z } from './deeper${ts}';\nexport const start = () => z;\n`,
    'test/helpers/deeper.ts': "process.once('exit', () => {});\nexport const z = 1;\n",
    'src/y.ts': "process.on('exit', () => {});\n",
  };
  assert.equal(reason(files, 'test/x/a.test.ts'), 'listens on the process (test/helpers/deeper.ts)');
  assert.equal(reason({ ...files, 'test/helpers/deeper.ts': 'export const z = 1;\n' }, 'test/x/a.test.ts'), undefined, 'src/y.ts is not read');
  // A `.js` specifier names the `.ts` module beside it; a cycle of helpers ends.
  assert.equal(reason({ 'test/a.test.ts': "import './b.js';\n", 'test/b.ts': "process.exitCode = 1;\n" }, 'test/a.test.ts'), 'exits, signals or emits on the process (test/b.ts)');
  assert.equal(reason({ 'test/a.test.ts': `import './b${ts}';\n`, 'test/b.ts': `import './a.test${ts}';\n` }, 'test/a.test.ts'), undefined);
});

test('files are packed in their order into groups within the time and file limits; a long or unknown file is a group of its own', () => {
  const times: Record<string, number> = { a: 3, b: 3, c: 3, d: 1, e: 9, f: 0.5, g: 0.5 };
  const expected = (f: string) => times[f] ?? Infinity;
  assert.deepEqual(groupFiles(['a', 'b', 'c', 'd', 'e', 'f', 'g'], expected, { maxS: 8, maxFiles: 12 }), [['a', 'b'], ['c', 'd'], ['e'], ['f', 'g']]);
  assert.deepEqual(groupFiles(['f', 'g', 'd', 'a'], expected, { maxS: 8, maxFiles: 2 }), [['f', 'g'], ['d', 'a']]);
  assert.deepEqual(groupFiles(['f', 'new', 'g'], expected, { maxS: 8, maxFiles: 12 }), [['f'], ['new'], ['g']]);
  assert.deepEqual(groupFiles([], expected), []);
});

/** Fixture test files: hooks that log their order, a top-level await, nested suites, a failure, skip and todo, a module that throws. */
const FIXTURES: Record<string, string> = {
  'test/one.test.mjs': `import { after, before, describe, test } from 'node:test';
import { appendFileSync } from 'node:fs';
const log = (s) => appendFileSync(process.env.GROUP_LOG, s + '\\n');
log('one load');
const ready = await new Promise((resolve) => setTimeout(() => resolve(true), 20));
before(() => log('one before'));
// An after hook that waits on an unref'd timer: alone, the loop has emptied by then; in a group, the files after it still run.
after(() => new Promise((resolve) => setTimeout(resolve, 30).unref()).then(() => log('one after')));
test('one: first', () => { log('one test'); if (!ready) throw new Error('not ready'); });
describe('one: a suite', () => { test('one: nested', () => {}); test('one: skipped', { skip: true }, () => {}); });
`,
  'test/three.test.mjs': `import { test } from 'node:test';
test('three: never registered', () => {});
throw new Error('three cannot load');
`,
  'test/two.test.mjs': `import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
const log = (s) => appendFileSync(process.env.GROUP_LOG, s + '\\n');
log('two load');
before(() => log('two before'));
after(() => log('two after'));
test('two: fails', () => { log('two test'); assert.equal(1, 2); });
test('two: passes', () => {});
test('two: todo', { todo: true }, () => {});
`,
};

test('a group process runs each file in a suite of its own; its report splits into the reports and counts each file gives alone', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hiwar-test-groups-'));
  try {
    for (const [name, source] of Object.entries(FIXTURES)) writeFileSync(join(dir, name.replace('test/', '')), source);
    const files = Object.keys(FIXTURES);
    const entry = join(dir, 'group.mjs');
    writeFileSync(entry, groupEntry(files, (f) => join(dir, f.replace('test/', ''))));
    const log = join(dir, 'log');
    const node = (file: string) => spawnSync(process.execPath, ['--test-reporter=tap', file], { cwd: dir, env: { ...process.env, GROUP_LOG: log }, encoding: 'utf8' });
    const group = node(entry);
    assert.equal(group.status, 1, 'a failed test fails the group process');
    // Each file loads when the one before it has ended, its hooks around its own tests.
    assert.deepEqual(readFileSync(log, 'utf8').trim().split('\n'), ['one load', 'one before', 'one test', 'one after', 'two load', 'two before', 'two test', 'two after']);
    const { reports, rest } = splitGroupReport(group.stdout, files);
    // A file that cannot load fails alone: the files after it still run.
    assert.deepEqual(reports.map((r) => [r.file, r.done, r.failed]), [
      ['test/one.test.mjs', true, false],
      ['test/three.test.mjs', true, true],
      ['test/two.test.mjs', true, true],
    ]);
    assert.doesNotMatch(rest, /Subtest|ok \d/, 'every result belongs to a file');
    // Each file alone: its own process's counts are the counts of its part of the group's report.
    for (const r of reports) {
      const alone = node(join(dir, r.file.replace('test/', '')));
      const count = (k: string) => Number(new RegExp(`^# ${k} (\\d+)$`, 'm').exec(alone.stdout)?.[1]);
      if (r.file === 'test/three.test.mjs') {
        // Alone, a module that throws is a process that exits non-zero with no test: the runner counts one failure.
        // In the group, the test it registered before throwing is cancelled with its suite.
        assert.notEqual(alone.status, 0);
        assert.equal(r.counts.fail, 1);
        assert.equal(r.counts.pass, 0);
        assert.match(r.report, /the file itself failed[\s\S]*three cannot load/);
        continue;
      }
      for (const k of ['tests', 'suites', 'pass', 'fail', 'skipped', 'todo'] as const) assert.equal(r.counts[k], count(k), `${r.file}: ${k}`);
      assert.ok(r.s > 0, 'the suite\'s time is the file\'s');
    }
    assert.deepEqual(reports[0]?.counts, { tests: 3, suites: 1, pass: 2, fail: 0, cancelled: 0, skipped: 1, todo: 0 });
    // The file's report reads as its own process's: top-level results un-indented, with the failure's details.
    assert.match(reports[2]?.report ?? '', /^not ok 1 - two: fails$/m);
    assert.match(reports[2]?.report ?? '', /^ {2}expected: 2$/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a group killed part way: the files whose suites never ended are failed, the ones before them keep their results', () => {
  const out = ['TAP version 13', '# Subtest: test/a.test.ts', '    # Subtest: a1', '    ok 1 - a1', '      ---', '      duration_ms: 2', '      ...', '    1..1', 'ok 1 - test/a.test.ts', '  ---', '  duration_ms: 1500', "  type: 'suite'", '  ...', '# Subtest: test/b.test.ts', '    # Subtest: b1', ''].join('\n');
  const { reports } = splitGroupReport(out, ['test/a.test.ts', 'test/b.test.ts', 'test/c.test.ts']);
  assert.deepEqual(reports.map((r) => [r.done, r.failed, r.counts.tests, r.counts.pass, r.counts.fail, r.s]), [
    [true, false, 1, 1, 0, 1.5],
    [false, true, 0, 0, 1, 0],
    [false, true, 0, 0, 1, 0],
  ]);
});

test('counts as node:test counts: suites apart, skipped and todo apart from passed, cancelled apart from failed', () => {
  const lines = ['ok 1 - a', 'ok 2 - b # SKIP', 'not ok 3 - c # TODO not yet', 'not ok 4 - d', '  ---', "  failureType: 'cancelledByParent'", '  ...', 'not ok 5 - e', '  ---', "  failureType: 'testCodeFailure'", '  ...', 'ok 6 - s', '  ---', "  type: 'suite'", '  ...'];
  assert.deepEqual(countResults(lines), { tests: 5, suites: 1, pass: 1, fail: 1, cancelled: 1, skipped: 1, todo: 1 });
});

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

const ROOT = new URL('../..', import.meta.url).pathname;

test('npm test with a test file that is not there names it, before building anything', () => {
  const r = spawnSync(process.execPath, ['scripts/test.mjs', 'test/text/numbers.test.ts', 'test/cli/demo-transcript.test.ts'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, HIWAR_TEST_TYPECHECK: '0' } });
  assert.equal(r.status, 2, r.stderr + r.stdout);
  assert.equal(r.stderr, "npm test: no such test file: test/text/numbers.test.ts (paths from the repository's root, such as test/session/scenarios.test.ts)\n");
  assert.doesNotMatch(r.stdout, /compiled|MODULE_NOT_FOUND/, 'nothing was built or run');
});

test('npm test with a folder runs the test files under it', () => {
  const r = spawnSync(process.execPath, ['scripts/test.mjs', 'test/tasks/'], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, HIWAR_TEST_TYPECHECK: '0' } });
  assert.equal(r.status, 0, r.stderr + r.stdout);
  assert.match(r.stdout, /# file test\/tasks\/[\w-]+\.test\.ts /, 'the folder\'s file ran under its own name');
  assert.doesNotMatch(r.stdout + r.stderr, /MODULE_NOT_FOUND/);
});

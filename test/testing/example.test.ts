import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runNode } from '../helpers/processes.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
/** A nested `node --test` must run as a top-level one, not report to this file's runner. */
const TOP_LEVEL = { NODE_TEST_CONTEXT: undefined };

test('examples/testing-an-agent: the call-centre agent tested through hiwar/testing with node --test, as its header says to run it', async () => {
  // A child process, as a team's CI runs it: the example imports 'hiwar/testing' by the
  // package's own name, and its three calls must pass there.
  const r = await runNode(['--import', 'tsx', '--test', '--test-reporter=tap', 'examples/testing-an-agent/call-centre.test.ts'], TOP_LEVEL, 600_000);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^# pass 3$/m);
  assert.match(r.stdout, /^# fail 0$/m);
  assert.match(r.stdout, /^ok \d+ - a balance question runs get_balance/m);
});

test('docs/testing-your-agent.md: its agent.ts and agent.test.ts pass as written, in a blank project outside the repository', async () => {
  const doc = readFileSync(join(ROOT, 'docs/testing-your-agent.md'), 'utf8');
  const dir = mkdtempSync(join(tmpdir(), 'hiwar-blank-'));
  // As after `npm install hiwar zod` and `npm install -D tsx` with "type": "module".
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'my-agent', private: true, type: 'module' }));
  mkdirSync(join(dir, 'node_modules'));
  for (const pkg of ['zod', 'tsx']) symlinkSync(realpathSync(join(ROOT, 'node_modules', pkg)), join(dir, 'node_modules', pkg), 'dir');
  symlinkSync(realpathSync(ROOT), join(dir, 'node_modules/hiwar'), 'dir');
  const files = [...doc.matchAll(/```ts\n\/\/ ([\w.]+)\n([\s\S]*?)```/g)].map(([, name]) => name!);
  assert.deepEqual(files, ['agent.ts', 'agent.test.ts'], 'the page shows both files');
  for (const [, name, body] of doc.matchAll(/```ts\n\/\/ ([\w.]+)\n([\s\S]*?)```/g)) writeFileSync(join(dir, name!), body!);
  assert.match(doc, /^node --import tsx --test agent\.test\.ts$/m, 'the page runs it this way');
  const r = await runNode(['--import', 'tsx', '--test', '--test-reporter=tap', 'agent.test.ts'], TOP_LEVEL, 600_000, dir);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^# pass 2$/m);
});

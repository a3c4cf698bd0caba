// `hiwar demo` from the installed package (test/package/blank-project.ts: packed and installed
// once for all of test/package/'s files), on plain Node, without the optional peers.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { runCommand } from '../helpers/processes.ts';
import { blankProject, ok, type BlankProject } from './blank-project.ts';

let blank: BlankProject;
before(async () => {
  blank = await blankProject('base');
});
after(() => blank?.remove());

test('a whole simulated call on plain Node with the embedded sandbox, from the installed package', async () => {
  const out = join(blank.work, 'demo-out');
  const demo = await runCommand(join(blank.project, 'node_modules/.bin/hiwar'), ['demo', '--speed', '3', '--out', out], { cwd: blank.project, env: blank.env, timeoutMs: 300_000 });
  ok(demo, 'hiwar demo');
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { turns: { role: string; text: string }[] };
  const callerTurns = report.turns.filter((t) => t.role === 'user');
  const agentTurns = report.turns.filter((t) => t.role === 'agent');
  assert.ok(callerTurns.length >= 3, `the caller's lines were heard (${callerTurns.length} turns)`);
  assert.ok(agentTurns.length >= 3, `the agent answered (${agentTurns.length} turns)`);
});

import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { AGENT_HELP, loadAgent } from '../../src/cli/agent.ts';
import { assertLatencyTable } from '../helpers/latency-table.ts';
import { hiwar } from '../helpers/processes.ts';
import { SHOP_AGENT as SHOP, userProject as project } from '../helpers/user-project.ts';

const userProject = (type: 'module' | 'commonjs' = 'module') => project({}, type);

const JS_AGENT = `import { z } from 'zod';
export default {
  name: 'plain-js',
  instructions: 'x',
  voice: { voice_id: 'ar-uae-male-1' },
  outOfServiceLine: 'x',
  tools: [{ name: 't', description: 't', parameters: z.object({ n: z.number() }), execute: () => 1 }],
};
`;

const message = (p: Promise<unknown>) => p.then(() => assert.fail('loaded'), (err: Error) => `${err.name}: ${err.message}`);

test('--agent loads a .ts folder or a .js file from a project outside the repository, its zod from that project', async () => {
  const dir = userProject();
  mkdirSync(join(dir, 'agents/shop'), { recursive: true });
  writeFileSync(join(dir, 'agents/shop/index.ts'), SHOP);
  writeFileSync(join(dir, 'agent.js'), JS_AGENT);

  const ts = await loadAgent('agents/shop', dir);
  assert.equal(ts.agent.name, 'shop');
  assert.equal(ts.file, join(dir, 'agents/shop/index.ts'));
  assert.equal(ts.agent.tools![0]!.parameters.safeParse({ order: 'A-1' }).success, true, "the agent's own zod schema works");
  assert.equal(ts.agent.tools![0]!.parameters.safeParse({}).success, false);

  const js = await loadAgent(join(dir, 'agent.js'), '/');
  assert.equal(js.agent.name, 'plain-js');

  const builtIn = await loadAgent(undefined);
  assert.equal(builtIn.agent.name, 'call-centre');
  assert.equal(builtIn.file, undefined);
});

test('a missing file, a folder without an index, no default export and a non-agent are one clear line each', async () => {
  const dir = userProject();
  mkdirSync(join(dir, 'empty'));
  writeFileSync(join(dir, 'none.ts'), 'export const x = 1;\n');
  writeFileSync(join(dir, 'half.ts'), "export default { name: 'half', voice: { voice_id: 'ar-uae-male-1' } };\n");
  writeFileSync(join(dir, 'notes.txt'), 'hello');
  writeFileSync(join(dir, 'broken.ts'), "import { nothing } from 'no-such-package';\nexport default nothing;\n");
  writeFileSync(join(dir, 'typo.ts'), "export default {\n  name: 'typo',,\n};\n");
  assert.equal(await message(loadAgent('nope', dir)), 'CliError: --agent nope: no such file or folder');
  // campaigns.md said `--agent ./reminder` for reminder.mjs.
  writeFileSync(join(dir, 'reminder.mjs'), 'export default {};\n');
  assert.equal(await message(loadAgent('./reminder', dir)), 'CliError: --agent ./reminder: no such file or folder (there is ./reminder.mjs: name the file with its extension)');
  // The docs' `--agent agents/call-centre` names the repository's folder; in a project of one's own the built-in agent is the default.
  assert.equal(await message(loadAgent('agents/call-centre', dir)), 'CliError: --agent agents/call-centre: no such file or folder (the built-in call-centre agent is the default: leave out --agent to use it)');
  assert.equal(await message(loadAgent('empty', dir)), 'CliError: --agent empty: the folder has no index.ts, index.mts, index.js, index.mjs');
  assert.equal(await message(loadAgent('notes.txt', dir)), 'CliError: --agent notes.txt: not a .ts or .js module');
  assert.equal(await message(loadAgent('none.ts', dir)), `CliError: --agent none.ts: ${join(dir, 'none.ts')} has no default export (export default your Agent)`);
  assert.equal(await message(loadAgent('half.ts', dir)), `CliError: --agent half.ts: the default export of ${join(dir, 'half.ts')} is not an Agent (missing instructions, outOfServiceLine)`);
  // A file tsx cannot compile: the fault and where it is, not esbuild's "Transform failed with 1 error:" alone.
  assert.match(await message(loadAgent('typo.ts', dir)), /^CliError: --agent typo\.ts: could not load \S+typo\.ts: Expected identifier but found "," \(\S+typo\.ts:2:15\)$/);
  // A .js file with a syntax error: Node's ES module loader named neither the file nor the line.
  writeFileSync(join(dir, 'bad.mjs'), "export default {\n  name: 'bad',\n  greeting: 'hi' oops\n};\n");
  assert.equal(await message(loadAgent('bad.mjs', dir)), `CliError: --agent bad.mjs: could not load ${join(dir, 'bad.mjs')}: Unexpected identifier 'oops' (${join(dir, 'bad.mjs')}:3:18)`);
  // …or in a file it imports, which is the one named.
  mkdirSync(join(dir, 'lib'));
  writeFileSync(join(dir, 'lib/lines.js'), "export const greeting = 'hi';\nexport const bye = ('bye';\n");
  writeFileSync(join(dir, 'outer.js'), "import { greeting } from './lib/lines.js';\nexport default { name: 'outer', greeting };\n");
  assert.equal(await message(loadAgent('outer.js', dir)), `CliError: --agent outer.js: could not load ${join(dir, 'outer.js')}: Unexpected token ';' (${join(dir, 'lib/lines.js')}:2:26)`);
  assert.match(await message(loadAgent('broken.ts', dir)), /^CliError: --agent broken\.ts: could not load \S+broken\.ts: Cannot find package 'no-such-package' [^\n]*\(install it in the agent's project: npm install no-such-package\)$/);
});

test('hiwar demo --agent runs a whole call with an agent from another folder, its phrases taught, a call made from its intents', async () => {
  const dir = userProject();
  mkdirSync(join(dir, 'agents/shop'), { recursive: true });
  writeFileSync(join(dir, 'agents/shop/index.ts'), SHOP);
  // From the user's project, with a relative path: resolved against the current directory.
  const r = await hiwar(['demo', '--agent', 'agents/shop', '--out', 'out', '--speed', '3'], { HIWAR_LOG_LEVEL: 'warn' }, 240_000, dir);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.match(r.stdout, /teaching its recognizer 1 phrase…/);
  assert.match(r.stdout, /hiwar demo: shop: one line for each intent of shop/);
  assert.match(r.stdout, /العميل {2}▸ أين طلبي/);
  assert.match(r.stdout, /\(tool order_status → \{"order":"A-17","status":"shipped"\}\)/);
  const report = JSON.parse(readFileSync(join(dir, 'out/report.json'), 'utf8')) as { agent: string; turns: { role: string; text: string; metrics?: Record<string, unknown> }[] };
  assert.equal(report.agent, 'shop');
  assert.deepEqual(report.turns.map((t) => t.text), ['أهلًا بك في متجر الورد.', 'أين طلبي', 'طلبك في الطريق.']);
  // The latency table: the report's figures, whose parts (the model's first sentence included) add up to voice-to-voice.
  assertLatencyTable(r.stdout, report.turns);
});

test('an agent in a CommonJS package fails in one line that says how to fix it', async () => {
  const dir = userProject('commonjs');
  // A syntax error in a CommonJS .js file: its place from Node's own stack.
  writeFileSync(join(dir, 'bad.js'), "module.exports = {\n  name: 'bad',,\n};\n");
  const bad = join(dir, 'bad.js');
  assert.ok((await message(loadAgent('bad.js', dir))).startsWith(`CliError: --agent bad.js: could not load ${bad}: Unexpected token ',' (${bad}:2:15) (the agent's package`));
  writeFileSync(join(dir, 'agent.ts'), SHOP);
  // console loads the agent before it opens any device.
  const r = await hiwar(['console', '--agent', 'agent.ts'], {}, 60_000, dir);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^hiwar console: --agent agent\.ts: could not load .*\(the agent's package \S+package\.json is CommonJS: add "type": "module" to it, or name the file \.mts\/\.mjs\)\n$/);
});

test('demo, serve and console describe --agent (and --phrasebook) the same way', async () => {
  const flat = (s: string) => s.replace(/\s+/g, ' ');
  for (const cmd of ['demo', 'serve', 'console']) {
    const r = await hiwar([cmd, '--help']);
    assert.equal(r.code, 0);
    assert.ok(flat(r.stdout).includes(`--agent DIR|FILE ${AGENT_HELP}`), `${cmd} --help`);
    assert.match(r.stdout, /--phrasebook FILE +more phrases for the embedded sandbox's recognizer/);
  }
});

/** `hiwar serve --config FILE`: the real command in a child process, with a config module as a user writes one. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { hiwar } from '../helpers/processes.ts';
import { twilioWebhook } from './phone.ts';
import { Deadline } from '../helpers/deadline.ts';

const BIN = new URL('../../bin/hiwar.js', import.meta.url).pathname;
const FIXTURES = new URL('./fixtures/', import.meta.url).pathname;

/** `hiwar serve ARGS` started as a user starts it; resolves once it says where it listens and what it serves. */
async function startServe(args: string[], extraEnv: NodeJS.ProcessEnv = {}): Promise<{ child: ReturnType<typeof spawn>; output: () => string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, HIWAR_LOG_LEVEL: 'silent', ...extraEnv };
  delete env.HIWAR_API_KEY;
  delete env.HIWAR_PUBLIC_URL;
  delete env.REDIS_URL;
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  // A failsafe only: what is checked is that it starts at all.
  const deadline = new Deadline(90_000);
  while (!/hiwar serve: .* at http:\/\/[\d.]+:\d+[\s\S]*metrics:.*\n/.test(out)) {
    if (deadline.expired || child.exitCode !== null) {
      child.kill('SIGKILL');
      throw new Error(`serve did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, output: () => out };
}

test('a .ts config: its agents, port and plugins are served; a flag given as well wins over it; --docs adds the guide', async () => {
  const { child, output } = await startServe(['--config', `${FIXTURES}hiwar.config.ts`, '--public-url', 'https://flag.example.com', '--open', '--docs']);
  try {
    const out = output();
    assert.match(out, /hiwar serve: agents chosen per call by .*hiwar\.config\.ts at http/);
    const port = /at http:\/\/[\d.]+:(\d+)/.exec(out.slice(out.indexOf('hiwar serve:')))![1]!;
    assert.notEqual(port, '8080', "the config's port 0 (a free one), not the default");
    const base = `http://127.0.0.1:${port}`;
    assert.deepEqual(await (await fetch(`${base}/hello`)).json(), { from: 'config', open: true }, "the config's plugin, given the server's context");
    const hook = await twilioWebhook(base, { CallSid: 'CAconfig', To: '+966920000003' });
    assert.equal(hook.status, 200, 'the telephony routes serve beside it');
    assert.match(hook.streamUrl ?? '', /^wss:\/\/flag\.example\.com\/telephony\/twilio\/stream\//, '--public-url wins over the config');
    // --docs: the guide shipped with the package, public, beside the config's routes.
    const guide = await fetch(`${base}/docs/`);
    assert.equal(guide.status, 200);
    assert.match(await guide.text(), /<h1 id="the-hiwar-guide">The hiwar guide<\/h1>/);
    // The access lines follow the address; a loaded machine may hand them over in a later chunk.
    const lines = new Deadline(30_000);
    while (!/docs +GET \/docs\/ OPEN/.test(output()) && !lines.expired && child.exitCode === null) await new Promise((r) => setTimeout(r, 100));
    assert.match(output(), /docs +GET \/docs\/ OPEN/, 'the access lines say the guide is public');
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    assert.equal(code, 0, output());
    assert.match(output(), /drained; bye/);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});

test('a config with an option the server does not know, or none at the path: one line, exit 1, nothing started', async () => {
  const typo = await hiwar(['serve', '--config', `${FIXTURES}unknown-option.config.js`]);
  assert.equal(typo.code, 1, typo.stderr);
  assert.match(typo.stderr, /--config: .*unknown-option\.config\.js has options the server does not know: agnet/);
  assert.doesNotMatch(typo.stdout, /hiwar serve: .* at http/);
  const missing = await hiwar(['serve', '--config', `${FIXTURES}nothing.config.ts`]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /--config: no file at .*nothing\.config\.ts/);
});

test("a config's maxCalls, port or publicUrl out of range, its providerHooks under no platform's name, a JSON config, and a --public-url or HIWAR_PUBLIC_URL without its scheme: one line naming it, exit 1, nothing started", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hiwar-config-'));
  try {
    const env = { HIWAR_LOG_LEVEL: 'silent', REDIS_URL: '', HIWAR_PUBLIC_URL: '' };
    const tries: [string, RegExp][] = [
      // The embedded sandbox said `sandbox key 0.concurrency: expected a whole number above 0`.
      ['export default { maxCalls: -1 };', /--config: \S+bad\.config\.mjs: `maxCalls` must be a whole number from 1, got -1\n/],
      ["export default { port: '8080' };", /--config: \S+bad\.config\.mjs: `port` must be a whole number from 0 to 65535, got "8080"\n/],
      // `hiwar serve: DB down` named neither the file nor its function.
      ["export default async () => { throw new Error('DB down'); };", /--config: \S+bad\.config\.mjs: its default export \(a function\) failed: DB down\n/],
      // A transfer hook under a misspelt platform never ran.
      ["export default { providerHooks: { twilo: { transfer: async () => {} } } };", /--config: \S+bad\.config\.mjs: providerHooks\.twilo is no platform of hiwar serve: twilio, telnyx, plivo, vonage, exotel, freeswitch, jambonz, asterisk, pcm\n/],
      // Analytics is the command line's: a config that asks for it says where it is asked for.
      ["export default { analytics: true, recordings: '/var/lib/hiwar' };", /--config: \S+bad\.config\.mjs has options the server does not know: analytics, recordings; analytics and its recordings are turned on with --analytics and --recordings DIR/],
      ["export default { publicUrl: 'agent.example.com' };", /--config: \S+bad\.config\.mjs: `publicUrl` must be an absolute http:\/\/ or https:\/\/ URL \(https:\/\/agent\.example\.com\), got "agent\.example\.com"\n/],
    ];
    for (const [text, expected] of tries) {
      writeFileSync(join(dir, 'bad.config.mjs'), `${text}\n`);
      const r = await hiwar(['serve', '--config', join(dir, 'bad.config.mjs')], env);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stderr, expected);
      assert.doesNotMatch(r.stdout, /embedded sandbox|hiwar serve: .* at http/, r.stdout);
    }
    writeFileSync(join(dir, 'hiwar.config.json'), '{"maxCalls": 5}\n');
    const json = await hiwar(['serve', '--config', join(dir, 'hiwar.config.json')], env);
    assert.equal(json.code, 1, json.stderr);
    assert.match(json.stderr, /--config: \S+hiwar\.config\.json is not a \.ts or \.js module: write its options as a module, hiwar\.config\.mjs with `export default \{ … \}` \(see \S+server\.md\)\n/);
    const flag = await hiwar(['serve', '--public-url', 'agent.example.com:8443'], env);
    assert.equal(flag.code, 2, flag.stderr);
    assert.match(flag.stderr, /^hiwar serve: --public-url must be an absolute http:\/\/ or https:\/\/ URL \(https:\/\/agent\.example\.com:8443\), got "agent\.example\.com:8443"\n/);
    assert.doesNotMatch(flag.stdout, /embedded sandbox/);
    const fromEnv = await hiwar(['call', '+966500000001'], { ...env, HIWAR_PUBLIC_URL: 'calls.example.com' });
    assert.equal(fromEnv.code, 2, fromEnv.stderr);
    assert.match(fromEnv.stderr, /^hiwar call: HIWAR_PUBLIC_URL must be an absolute http:\/\/ or https:\/\/ URL \(https:\/\/calls\.example\.com\), got "calls\.example\.com"\n/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a .ts config in a CommonJS project (no "type": "module") that imports an ES module loads as it would in an ES-module project', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hiwar-config-'));
  try {
    writeFileSync(join(dir, 'agent.mjs'), "export const agent = { name: 'cjs-project-agent', instructions: '', voice: { voice_id: 'v' }, outOfServiceLine: '.' };\n");
    writeFileSync(join(dir, 'hiwar.config.ts'), "import { agent } from './agent.mjs';\nexport default { agent, port: 0 };\n");
    const { child, output } = await startServe(['--config', join(dir, 'hiwar.config.ts')]);
    child.kill('SIGTERM');
    await once(child, 'exit');
    assert.match(output(), /hiwar serve: agent "cjs-project-agent" at http/, "the config's default export, not a wrapper of it");
    assert.doesNotMatch(output(), /options the server does not know/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('OPENAI_API_KEY gives hiwar serve its model, said at start (serve ignored it and answered callers with the scripted intents); a malformed OPENAI_BASE_URL stops the start', async () => {
  const { child, output } = await startServe(['--port', '0', '--open'], { OPENAI_API_KEY: 'sk-test-not-shown', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', HIWAR_LLM_MODEL: 'qwen2.5' });
  try {
    assert.match(output(), /^ {2}language model: openai:qwen2\.5 at http:\/\/127\.0\.0\.1:9\/v1$/m);
    assert.doesNotMatch(output(), /sk-test-not-shown/);
  } finally {
    child.kill('SIGTERM');
    await once(child, 'exit');
  }
  const bad = await hiwar(['serve', '--port', '0'], { OPENAI_API_KEY: 'sk-test-not-shown', OPENAI_BASE_URL: 'user:secret@gateway/v1', HIWAR_LOG_LEVEL: 'silent', REDIS_URL: '', HIWAR_PUBLIC_URL: '' });
  assert.equal(bad.code, 1, bad.stdout + bad.stderr);
  assert.match(bad.stderr, /^hiwar serve: OPENAI_BASE_URL is not an http:\/\/ or https:\/\/ URL: give the server's address with its scheme/);
  assert.doesNotMatch(bad.stdout + bad.stderr, /secret|embedded sandbox at/);
});

test('serve --help names --config', async () => {
  const help = await hiwar(['serve', '--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--config FILE +a module \(hiwar\.config\.ts, \.mts, \.js or \.mjs\) default-exporting the\n +server's options \(createAgentServer in hiwar\/server/);
});

// The package as a user gets it: packed, installed into a blank project from the tarball with
// npm (the registry for its dependencies, no environment variable), then run on plain Node.
// Nothing here loads hiwar's sources. The packing and the install are shared with the other
// files of test/package/ (blank-project.ts): the demo, the consumer's type check and WebRTC
// run beside this file in their own.
import assert from 'node:assert/strict';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { freePort } from '../helpers/ports.ts';
import { runCommand } from '../helpers/processes.ts';
import { runnableSnippets } from '../helpers/snippets.ts';
import { blankProject, ENTRIES, ok, packed, ROOT, startUntil, type BlankProject } from './blank-project.ts';

let blank: BlankProject;
before(async () => {
  blank = await blankProject('base');
});
after(() => blank?.remove());

test('the tarball holds the compiled package and nothing of the repository', async () => {
  const { files } = await packed();
  // The guide (docs/) ships too: messages name its pages (test/package/docs-shipped.test.ts).
  for (const f of ['dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/server/index.js', 'bin/hiwar.js', 'LICENSE', 'README.md', 'docs/README.md', 'dist/transports/webrtc/page/app.js']) {
    assert.ok(files.includes(f), `${f} is in the tarball`);
  }
  const stray = files.filter((f) => /^(test|bench|examples|\.ci)\//.test(f) || (f.startsWith('scripts/') && !f.startsWith('scripts/mediasoup-offline/')) || /\.wav$/.test(f) || /^(src|transports|agents)\//.test(f));
  assert.deepEqual(stray, [], 'no tests, benches, scripts, recordings or sources');
});

test('npm pack says what its build does: each step before it starts and when it is done, then what it wrote', async () => {
  const { buildLines } = await packed();
  const expected = [
    /^build: 1\/3 compiling src\/, transports\/ and agents\/ into dist\/ with tsc.*…$/,
    /^build: 1\/3 done in \d+ s$/,
    /^build: 2\/3 rewriting the declarations' \.ts specifiers.*…$/,
    /^build: 2\/3 done in \d+ s$/,
    /^build: 3\/3 bundling the web call page.*…$/,
    /^build: 3\/3 done in \d+ s$/,
    /^build: dist\/ written \(\d+ files; \d+ declaration files' specifiers rewritten\) in \d+ s$/,
  ];
  assert.equal(buildLines.length, expected.length, buildLines.join('\n'));
  for (const [i, line] of buildLines.entries()) assert.match(line, expected[i]!);
});

test('the installed command runs on plain Node, without tsx', async () => {
  const { project, env } = blank;
  const help = await runCommand(join(project, 'node_modules/.bin/hiwar'), ['--help'], { cwd: project, env });
  ok(help, 'hiwar --help');
  assert.match(help.stdout, /hiwar demo/);
  // The library itself on plain Node: every entry imports without a loader.
  const script = `${ENTRIES.map((e, i) => `const m${i} = await import('${e}');`).join(' ')} console.log(typeof m0.AgentSession);`;
  const lib = await runCommand(process.execPath, ['--input-type=module', '-e', script], { cwd: project, env });
  ok(lib, 'importing every entry');
  assert.equal(lib.stdout.trim(), 'function');
});

/** The runnable snippets of the README and docs/ by file name (test/helpers/snippets.ts). */
const SNIPPETS = new Map(runnableSnippets(ROOT).map((s) => [s.name, s.body]));

test("the README's app.mjs runs as written: a scripted call on the embedded sandbox, plain Node", async () => {
  assert.ok(SNIPPETS.has('app.mjs'), 'the README shows app.mjs');
  writeFileSync(join(blank.project, 'app.mjs'), SNIPPETS.get('app.mjs')!);
  const r = await runCommand(process.execPath, ['app.mjs'], { cwd: blank.project, env: blank.env, timeoutMs: 300_000 });
  ok(r, 'node app.mjs');
  assert.match(r.stdout, /كم رصيدي/, 'the caller was heard');
  assert.match(r.stdout, /رصيدك/, 'the agent answered from its tool');
});

test("the README's server.mjs runs as written: the agent's routes on the user's own http.Server", async () => {
  assert.ok(SNIPPETS.has('server.mjs'), 'the README shows server.mjs');
  writeFileSync(join(blank.project, 'server.mjs'), SNIPPETS.get('server.mjs')!);
  const port = await freePort();
  const server = await startUntil(blank.project, process.execPath, ['server.mjs'], { ...blank.env, PORT: String(port) }, /listening on (http:\/\/\S+)/);
  try {
    const base = server.match[1]!;
    assert.equal(base, `http://127.0.0.1:${port}`, 'the port taken from PORT');
    assert.equal(await (await fetch(`${base}/`)).text(), 'my app\n', "the user's own route");
    const health = await fetch(`${base}/healthz`);
    assert.equal(health.status, 200, "the agent server's probe, through the user's server");
    const twiml = await fetch(`${base}/telephony/twilio`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'CallSid=CA1&From=%2B966500000000&To=%2B966110000000' });
    assert.equal(twiml.status, 200, 'the Twilio webhook answers');
    assert.match(await twiml.text(), new RegExp(`<Stream url="ws://127\\.0\\.0\\.1:${port}/telephony/twilio`), 'with a media stream back to this server');
    // docs/telephony.md's phone.mjs: a whole call on that route, the script playing Twilio's side.
    assert.ok(SNIPPETS.has('phone.mjs'), 'docs/telephony.md shows phone.mjs');
    writeFileSync(join(blank.project, 'phone.mjs'), SNIPPETS.get('phone.mjs')!);
    const call = await runCommand(process.execPath, ['phone.mjs'], { cwd: blank.project, env: { ...blank.env, BASE: base }, timeoutMs: 300_000 });
    ok(call, 'node phone.mjs');
    const heard = /^heard ([\d.]+) s of the agent's audio, then hung up$/m.exec(call.stdout);
    assert.ok(heard && Number(heard[1]) > 1, `the agent's greeting came back over the media stream: ${call.stdout}`);
  } finally {
    server.stop();
  }
});

test("docs/writing-agents.md's session.mjs runs as written: a session on the user's own transport", async () => {
  assert.ok(SNIPPETS.has('session.mjs'), 'docs/writing-agents.md shows session.mjs');
  writeFileSync(join(blank.project, 'session.mjs'), SNIPPETS.get('session.mjs')!);
  const r = await runCommand(process.execPath, ['session.mjs'], { cwd: blank.project, env: blank.env, timeoutMs: 300_000 });
  ok(r, 'node session.mjs');
  assert.match(r.stdout, /^user_turn كم رصيدي$/m, "the caller's line, heard through the user's transport");
  assert.match(r.stdout, /^agent_turn رصيدك/m, 'the agent answered');
  const audio = /([\d.]+) s of agent audio/.exec(r.stdout);
  assert.ok(audio && Number(audio[1]) > 1, `the agent's audio came out of the transport: ${r.stdout}`);
});

test("docs/testing-your-agent.md's caller-file.mjs runs as written: a caller read from an audio file", async () => {
  assert.ok(SNIPPETS.has('caller-file.mjs'), 'docs/testing-your-agent.md shows caller-file.mjs');
  writeFileSync(join(blank.project, 'caller-file.mjs'), SNIPPETS.get('caller-file.mjs')!);
  const r = await runCommand(process.execPath, ['caller-file.mjs'], { cwd: blank.project, env: blank.env, timeoutMs: 300_000 });
  ok(r, 'node caller-file.mjs');
  assert.match(r.stdout, /^user_turn كم رصيدي$/m, "the file's line, heard");
  assert.match(r.stdout, /^agent_turn رصيدك/m, 'the agent answered');
  assert.match(r.stdout, /^end of file: the agent's side is in agent\.wav$/m);
  assert.ok(statSync(join(blank.project, 'agent.wav')).size > 44, "the agent's side was written");
});

test("docs/testing-your-agent.md's placed-call-test.mjs plays a whole placed call against hiwar/testing's fake Twilio, from the installed package", async () => {
  assert.ok(SNIPPETS.has('placed-call-test.mjs'), 'docs/testing-your-agent.md shows placed-call-test.mjs');
  writeFileSync(join(blank.project, 'placed-call-test.mjs'), SNIPPETS.get('placed-call-test.mjs')!);
  const r = await runCommand(process.execPath, ['placed-call-test.mjs'], { cwd: blank.project, env: blank.env, timeoutMs: 300_000 });
  ok(r, 'node placed-call-test.mjs');
  assert.match(r.stdout, /^placed call: completed, \d+ s; Twilio was sent \+966500000001$/m, 'dialled, called back, answered, streamed and ended through the fake');
});

test("docs/outbound.md's fake-twilio.mjs (startFakeTwilio of the installed hiwar/testing) places a whole call with hiwar call, no account; its reminder.mjs is tested with runCall's variables", async () => {
  assert.ok(SNIPPETS.has('fake-twilio.mjs') && SNIPPETS.has('reminder.mjs'), 'docs/outbound.md shows fake-twilio.mjs and the agent it calls, reminder.mjs');
  writeFileSync(join(blank.project, 'fake-twilio.mjs'), SNIPPETS.get('fake-twilio.mjs')!);
  writeFileSync(join(blank.project, 'reminder.mjs'), SNIPPETS.get('reminder.mjs')!);
  const [fakePort, port] = [await freePort(), await freePort()];
  const fake = await startUntil(blank.project, process.execPath, ['fake-twilio.mjs'], { ...blank.env, FAKE_PORT: String(fakePort), TWILIO_AUTH_TOKEN: 'test-token' }, /fake Twilio on (http:\/\/\S+)/);
  try {
    const env = { ...blank.env, TWILIO_ACCOUNT_SID: 'AC0123456789abcdef0123456789abcdef', TWILIO_AUTH_TOKEN: 'test-token', HIWAR_CALL_FROM: '+966110000000', HIWAR_TWILIO_API_URL: fake.match[1]! };
    const hiwar = join(blank.project, 'node_modules/.bin/hiwar');
    const r = await runCommand(hiwar, ['call', '+966500000001', '--agent', './reminder.mjs', '--var', 'name=خالد', '--port', String(port), '--public-url', `http://127.0.0.1:${port}`], { cwd: blank.project, env, timeoutMs: 300_000 });
    ok(r, 'hiwar call against fake-twilio.mjs');
    assert.match(r.stdout, /: completed after \d+ s \(twilio: completed\)$/m, 'the call was dialled, answered, streamed and ended through the fake');
  } finally {
    fake.stop();
  }
  // The same agent tested offline with hiwar/testing: runCall's variables fill its greeting, and
  // one missing refuses it before the call (it said "{name}" aloud before).
  writeFileSync(
    join(blank.project, 'reminder-test.mjs'),
    [
      "import { runCall } from 'hiwar/testing';",
      "import reminder from './reminder.mjs';",
      "const refused = await runCall(reminder, [{ hangup: true }], { progress: false }).then(() => 'ran', (err) => err.message);",
      'console.log(`refused: ${refused}`);',
      "const call = await runCall(reminder, [{ hangup: true }], { variables: { name: 'خالد' }, progress: false });",
      'console.log(`greeting: ${call.agentTurns[0]?.text}`);',
    ].join('\n'),
  );
  const r = await runCommand(process.execPath, ['reminder-test.mjs'], { cwd: blank.project, env: blank.env, timeoutMs: 300_000 });
  ok(r, 'node reminder-test.mjs');
  assert.match(r.stdout, /^refused: runCall: agent "reminder" uses \{name\} in its greeting or instructions: give it in the options' variables/m);
  assert.match(r.stdout, /^greeting: مرحبًا خالد، نذكرك بموعدك غدًا\.$/m, 'the placeholder filled, never said as "{name}"');
});


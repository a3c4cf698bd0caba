// The package as a user gets it: packed, installed into a blank project from the tarball with
// npm (the registry for its dependencies, no environment variable), then run on plain Node and
// type-checked by the consumer's own compiler. Nothing here loads hiwar's sources.
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { runCommand, type Finished } from '../helpers/processes.ts';
import { runnableSnippets } from '../helpers/snippets.ts';

/**
 * The repository, also when this file runs from the compiled tree of `npm test` (whose files
 * are links to the repository's): that is what gets packed, as a user's `npm pack` would.
 */
const ROOT = dirname(realpathSync(new URL('../../package-lock.json', import.meta.url)));
const PKG = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, unknown>; version: string };
const ENTRIES = Object.keys(PKG.exports).filter((k) => k !== './package.json').map((k) => (k === '.' ? 'hiwar' : `hiwar/${k.slice(2)}`));

const work = mkdtempSync(join(tmpdir(), 'hiwar-package-'));
const project = join(work, 'app');
let tarball = '';
let files: string[] = [];

/**
 * A blank machine's environment: no variable of this repository's setup (ONNXRUNTIME_NODE_INSTALL,
 * npm_config_nodedir, the mediasoup kit's) and none of the `npm test` run that started us.
 */
const blankEnv: NodeJS.ProcessEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TERM'].includes(k))),
  // The blank project's own directory of voiced lines (docs/testing.md), empty at first: its
  // first call voices every line with the installed package, the calls after it reuse them.
  HIWAR_SANDBOX_RENDER_CACHE: join(work, 'renders'),
};
const npm = (args: string[], cwd: string, timeoutMs = 600_000, env = blankEnv) => runCommand('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, env, timeoutMs });
/**
 * A long-running program of the blank project (a server), its output read until `ready` matches;
 * `stop()` ends it. A program that exits first fails the test with what it printed.
 */
async function startUntil(command: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp): Promise<{ out: string; match: RegExpExecArray; stop: () => void }> {
  const child = spawn(command, args, { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  let match: RegExpExecArray | null;
  while (!(match = ready.exec(out))) {
    if (child.exitCode !== null) assert.fail(`${args.join(' ')} exited (${child.exitCode}):\n${out}`);
    await Promise.race([once(child.stdout, 'data'), once(child, 'exit')]);
  }
  return { out, match, stop: () => child.kill() };
}
const ok = (r: Finished, what: string) => assert.equal(r.code, 0, `${what} failed:\n${r.stdout}\n${r.stderr}`);

before(async () => {
  // When this run of npm test type-checks the project (scripts/test.mjs says so), the build that
  // `npm pack` runs emits without checking the same sources a second time (scripts/build.mjs).
  const env = process.env.HIWAR_TEST_TYPES_CHECKED === '1' ? { ...process.env, HIWAR_BUILD_NO_CHECK: '1' } : process.env;
  const packed = await runCommand('npm', ['pack', '--json', '--pack-destination', work], { cwd: ROOT, env, timeoutMs: 300_000 });
  ok(packed, 'npm pack');
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  tarball = join(work, info!.filename);
  files = info!.files.map((f) => f.path);
  writeFileSync(join(work, 'package.json'), '{}'); // keeps npm from walking up to a project above
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'blank-app', private: true, type: 'module' }));
  ok(await npm(['install', tarball, 'typescript@5.9', '@types/node@20'], project), 'npm install of the tarball');
});

after(() => rmSync(work, { recursive: true, force: true }));

test('the tarball holds the compiled package and nothing of the repository', () => {
  // The guide (docs/) ships too: messages name its pages (test/package/docs-shipped.test.ts).
  for (const f of ['dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/server/index.js', 'bin/hiwar.js', 'LICENSE', 'README.md', 'docs/README.md', 'dist/transports/webrtc/page/app.js']) {
    assert.ok(files.includes(f), `${f} is in the tarball`);
  }
  const stray = files.filter((f) => /^(test|bench|examples|\.ci)\//.test(f) || (f.startsWith('scripts/') && !f.startsWith('scripts/mediasoup-offline/')) || /\.wav$/.test(f) || /^(src|transports|agents)\//.test(f));
  assert.deepEqual(stray, [], 'no tests, benches, scripts, recordings or sources');
});

test('the installed command runs on plain Node, without tsx', async () => {
  const help = await runCommand(join(project, 'node_modules/.bin/hiwar'), ['--help'], { cwd: project, env: blankEnv });
  ok(help, 'hiwar --help');
  assert.match(help.stdout, /hiwar demo/);
  // The library itself on plain Node: every entry imports without a loader.
  const script = `${ENTRIES.map((e, i) => `const m${i} = await import('${e}');`).join(' ')} console.log(typeof m0.AgentSession);`;
  const lib = await runCommand(process.execPath, ['--input-type=module', '-e', script], { cwd: project, env: blankEnv });
  ok(lib, 'importing every entry');
  assert.equal(lib.stdout.trim(), 'function');
});

test('a whole simulated call on plain Node with the embedded sandbox, from the installed package', async () => {
  const out = join(work, 'demo-out');
  const demo = await runCommand(join(project, 'node_modules/.bin/hiwar'), ['demo', '--speed', '3', '--out', out], { cwd: project, env: blankEnv, timeoutMs: 300_000 });
  ok(demo, 'hiwar demo');
  const report = JSON.parse(readFileSync(join(out, 'report.json'), 'utf8')) as { turns: { role: string; text: string }[] };
  const callerTurns = report.turns.filter((t) => t.role === 'user');
  const agentTurns = report.turns.filter((t) => t.role === 'agent');
  assert.ok(callerTurns.length >= 3, `the caller's lines were heard (${callerTurns.length} turns)`);
  assert.ok(agentTurns.length >= 3, `the agent answered (${agentTurns.length} turns)`);
});

test("a consumer's tsc (nodenext, strict, skipLibCheck false) type-checks every public entry", async () => {
  // The optional peers whose types the cluster/analytics and WebRTC entries name: a user of those
  // entries installs them. Their install scripts are not needed for types.
  await optionalPeers();
  const lines = ENTRIES.map((e, i) => `import * as m${i} from '${e}';`);
  lines.push(`export const all = [${ENTRIES.map((_, i) => `m${i}`).join(', ')}];`);
  lines.push(`import { AgentSession, type Agent } from 'hiwar';`, `const agent: Agent = { name: 'x', instructions: 'y', voice: { voice_id: 'v' }, outOfServiceLine: 'z' };`, `export const s: typeof AgentSession = AgentSession; export { agent };`);
  writeFileSync(join(project, 'consumer.ts'), lines.join('\n') + '\n');
  writeFileSync(
    join(project, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, noEmit: true, types: ['node'] }, files: ['consumer.ts'] }),
  );
  const tsc = await runCommand(process.execPath, [join(project, 'node_modules/typescript/bin/tsc'), '-p', project], { cwd: project, env: blankEnv, timeoutMs: 300_000 });
  assert.equal(tsc.code, 0, `tsc reported:\n${tsc.stdout}${tsc.stderr}`);
});

/** The repository's Opus codec package: its version is installed, its native build reused. */
const opus = join(ROOT, 'node_modules/@discordjs/opus');
let peers: Promise<void> | undefined;
/**
 * The optional peers, as a user of the cluster/analytics and WebRTC entries adds them: one
 * `npm install` for the tests that need them (after the calls that run without them). Their
 * install scripts are not needed: types, mediasoup's worker given by path, Opus's prebuilt addon.
 */
function optionalPeers(): Promise<void> {
  const opusVersion = (JSON.parse(readFileSync(join(opus, 'package.json'), 'utf8')) as { version: string }).version;
  peers ??= npm(['install', '--ignore-scripts', 'ioredis', 'bullmq', 'mediasoup', `@discordjs/opus@${opusVersion}`], project).then((r) => ok(r, 'npm install of the optional peers'));
  return peers;
}

/** The runnable snippets of the README and docs/ by file name (test/helpers/snippets.ts). */
const SNIPPETS = new Map(runnableSnippets(ROOT).map((s) => [s.name, s.body]));

test("the README's app.mjs runs as written: a scripted call on the embedded sandbox, plain Node", async () => {
  assert.ok(SNIPPETS.has('app.mjs'), 'the README shows app.mjs');
  writeFileSync(join(project, 'app.mjs'), SNIPPETS.get('app.mjs')!);
  const r = await runCommand(process.execPath, ['app.mjs'], { cwd: project, env: blankEnv, timeoutMs: 300_000 });
  ok(r, 'node app.mjs');
  assert.match(r.stdout, /كم رصيدي/, 'the caller was heard');
  assert.match(r.stdout, /رصيدك/, 'the agent answered from its tool');
});

test("the README's server.mjs runs as written: the agent's routes on the user's own http.Server", async () => {
  assert.ok(SNIPPETS.has('server.mjs'), 'the README shows server.mjs');
  writeFileSync(join(project, 'server.mjs'), SNIPPETS.get('server.mjs')!);
  const server = await startUntil(process.execPath, ['server.mjs'], blankEnv, /listening on (http:\/\/\S+)/);
  try {
    const base = server.match[1]!;
    assert.equal(await (await fetch(`${base}/`)).text(), 'my app\n', "the user's own route");
    const health = await fetch(`${base}/healthz`);
    assert.equal(health.status, 200, "the agent server's probe, through the user's server");
    const twiml = await fetch(`${base}/telephony/twilio`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'CallSid=CA1&From=%2B966500000000&To=%2B966110000000' });
    assert.equal(twiml.status, 200, 'the Twilio webhook answers');
    assert.match(await twiml.text(), /<Stream url="ws:\/\/127\.0\.0\.1:8080\/telephony\/twilio/, 'with a media stream back to this server');
  } finally {
    server.stop();
  }
});

test('WebRTC from the installed package: with mediasoup and the Opus codec added, hiwar serve runs the compiled call page (and the guide at /docs)', async () => {
  // The optional peers as a user adds them, with the native parts this machine built
  // (scripts/setup.sh) instead of building them again (a minute of compiling C, not what is
  // tested here): mediasoup's worker given as mediasoup documents it, the Opus codec's addon
  // put where the package looks for its prebuilt binary (the same version as the repository's).
  const worker = join(ROOT, 'node_modules/mediasoup/worker/out/Release/mediasoup-worker');
  const withNative = { ...blankEnv, MEDIASOUP_WORKER_BIN: worker };
  await optionalPeers();
  cpSync(join(opus, 'prebuild'), join(project, 'node_modules/@discordjs/opus/prebuild'), { recursive: true });
  const serve = await startUntil(join(project, 'node_modules/.bin/hiwar'), ['serve', '--port', '0', '--open', '--docs'], withNative, /WebRTC is (on|off).*/);
  try {
    assert.match(serve.out, /WebRTC is on \(mediasoup/, serve.out);
    const base = /hiwar serve: .* at (http:\/\/\S+)/.exec(serve.out)![1]!;
    const page = await fetch(`${base}/`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<html/i);
    const script = await fetch(`${base}/webrtc/app.js`);
    assert.equal(script.status, 200, 'the prebuilt page script');
    assert.ok((await script.arrayBuffer()).byteLength > 10_000);
    assert.equal((await fetch(`${base}/webrtc/font.woff2`)).status, 200, 'the Arabic font, copied into the package');
    // --docs: the guide the package ships, rendered by the installed package's own dependencies.
    const guide = await fetch(`${base}/docs/webrtc.md`);
    assert.equal(guide.status, 200, 'the guide at /docs (docs/ shipped, markdown-it a dependency)');
    assert.match(await guide.text(), /<h1 id="[^"]+">[^<]*WebRTC/i);
  } finally {
    serve.stop();
  }
});

test("docs/writing-agents.md's session.mjs runs as written: a session on the user's own transport", async () => {
  assert.ok(SNIPPETS.has('session.mjs'), 'docs/writing-agents.md shows session.mjs');
  writeFileSync(join(project, 'session.mjs'), SNIPPETS.get('session.mjs')!);
  const r = await runCommand(process.execPath, ['session.mjs'], { cwd: project, env: blankEnv, timeoutMs: 300_000 });
  ok(r, 'node session.mjs');
  assert.match(r.stdout, /^user_turn كم رصيدي$/m, "the caller's line, heard through the user's transport");
  assert.match(r.stdout, /^agent_turn رصيدك/m, 'the agent answered');
  const audio = /([\d.]+) s of agent audio/.exec(r.stdout);
  assert.ok(audio && Number(audio[1]) > 1, `the agent's audio came out of the transport: ${r.stdout}`);
});

/** `hiwar serve` with a key the service refuses stops at once with the cause, not a warning per call. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { hiwar } from '../helpers/processes.ts';
import { runSandbox, type Running } from '../helpers/sandbox.ts';

const WRONG = 'sk-refused-key-0123456789abcdef';

let sandbox: Running;
before(async () => {
  sandbox = await runSandbox({
    keys: [
      { key: 'sk-scoped-speech-0001', allow: ['/text-to-speech', '/listen'], concurrency: 1 },
      { key: 'sk-scoped-tts-0001', allow: ['/text-to-speech'] },
      { key: 'sk-scoped-listen-0001', allow: ['/listen'] },
    ],
  });
});
after(() => sandbox?.close());

// The helper's 60 s limit is generous: what matters is that serve ends by itself (it used to
// start and fail every call).
test('a refused key: serve ends with code 1 and one line saying so, without the key', async () => {
  const r = await hiwar(['serve', '--port', '0'], { HIWAR_API_KEY: WRONG, HIWAR_BASE_URL: sandbox.sandbox.url });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /^hiwar serve: the service refused HIWAR_API_KEY \(401: not a valid key\): check the key \(asked in the global region: a key issued in the UAE region needs HIWAR_REGION=uae\); nothing was started\n$/);
  assert.ok(!(r.stdout + r.stderr).includes(WRONG), 'the key is in no output');
  assert.doesNotMatch(r.stdout, /agent ".*" at http/, 'no server was started');
});

// The service lets a key be restricted to some endpoints: one for text-to-speech only answers
// GET /models (here refused as well) and synthesizes the greeting, so serve used to start and every
// call greeted the caller and then heard nothing. /listen is now opened at start, without audio.
test('a key that may synthesize but not open /listen: serve ends with code 1 and one line naming /listen, without the key', async () => {
  const r = await hiwar(['serve', '--port', '0'], { HIWAR_API_KEY: 'sk-scoped-tts-0001', HIWAR_BASE_URL: sandbox.sandbox.url, HIWAR_REGION: '' });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stderr, /^hiwar serve: HIWAR_API_KEY may not open \/listen \(403: access denied: this key cannot call \/listen\): every call needs live recognition, so callers would be greeted and then not heard; allow \/listen for the key in the service's dashboard, or use a key that has it; nothing was started\n$/);
  assert.ok(!(r.stdout + r.stderr).includes('sk-scoped'), 'the key is in no output');
  assert.doesNotMatch(r.stdout, /agent ".*" at http/, 'no server was started');
});

/** `hiwar serve` with `key` until it says where it serves (then stopped): what it printed. */
async function startServe(key: string): Promise<string> {
  const child = spawn(process.execPath, [new URL('../../bin/hiwar.js', import.meta.url).pathname, 'serve', '--port', '0'], {
    env: { ...process.env, HIWAR_API_KEY: key, HIWAR_BASE_URL: sandbox.sandbox.url, HIWAR_REGION: '', HIWAR_LOG_FORMAT: 'text' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  const exited = new Promise((r) => child.once('exit', r));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', () => /agent "[^"]+" at http/.test(out) && resolve());
    child.once('exit', () => reject(new Error(`serve exited:\n${out}`)));
  });
  child.kill('SIGTERM');
  await exited;
  return out;
}

test('a key scoped to text-to-speech and /listen: serve starts, says in one line it may not call /models, checks /listen and renders the out-of-service line', async () => {
  const out = await startServe('sk-scoped-speech-0001');
  assert.match(out, /^\(HIWAR_API_KEY is a valid key that may not call GET \/models \(403: Access denied: this key cannot call \/models\); calls need \/listen and \/text-to-speech: checking \/listen\)$/m);
  assert.doesNotMatch(out, /\/listen \(|could not check \/listen/, '/listen took the key');
  assert.doesNotMatch(out, /not rendered|429/, 'the line was rendered (the key allows it), with its one concurrent session');
  assert.ok(!out.includes('sk-scoped'), 'the key is in no output');
});

test('a key that may not call text-to-speech: serve starts and names the permission the out-of-service line needs', async () => {
  const out = await startServe('sk-scoped-listen-0001');
  assert.match(out, /^\d\d:\d\d:\d\d warn out-of-service line not rendered at start-up: the key may not call POST \/text-to-speech\/\S+ \(403: Access denied: this key cannot call \/text-to-speech[^)]*\); a caller the service refuses hears no line before the hang-up/m);
});

/** `hiwar serve` with a key the service refuses stops at once with the cause, not a warning per call. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { runSandbox, type Running } from '../helpers/sandbox.ts';

const BIN = new URL('../../bin/hiwar.js', import.meta.url).pathname;
const WRONG = 'sk-refused-key-0123456789abcdef';

let sandbox: Running;
before(async () => {
  sandbox = await runSandbox();
});
after(() => sandbox?.close());

function serve(env: Record<string, string>): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    // Generous: what matters is that it ends by itself (it used to start and fail every call).
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`hiwar serve still running with a refused key\n${out}\n${err}`));
    }, 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

test('a refused key: serve ends with code 1 and one line saying so, without the key', async () => {
  const r = await serve({ HIWAR_API_KEY: WRONG, HIWAR_BASE_URL: sandbox.sandbox.url });
  assert.equal(r.code, 1, r.err);
  assert.match(r.err, /^hiwar serve: the service refused HIWAR_API_KEY \(401: not a valid key\): check the key; nothing was started\n$/);
  assert.ok(!(r.out + r.err).includes(WRONG), 'the key is in no output');
  assert.doesNotMatch(r.out, /agent ".*" at http/, 'no server was started');
});

/** `hiwar serve` with a key the service refuses stops at once with the cause, not a warning per call. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { hiwar } from '../helpers/processes.ts';
import { runSandbox, type Running } from '../helpers/sandbox.ts';

const WRONG = 'sk-refused-key-0123456789abcdef';

let sandbox: Running;
before(async () => {
  sandbox = await runSandbox();
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

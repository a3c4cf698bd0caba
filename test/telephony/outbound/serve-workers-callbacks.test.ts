/**
 * `hiwar serve --workers 2` without Redis: a platform's status callbacks reach the workers in
 * turn (each on a connection of its own, as a platform's many hosts send them), and the calls
 * API too. The outbound calls' records are the primary's, so the worker that did not place the
 * call records its callbacks (it answered them `404 unknown call` from its own memory) and answers
 * for the call, and the placing worker learns the outcome.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freePort } from '../../helpers/redis.ts';
import { runSandbox } from '../../helpers/sandbox.ts';
import { spawnServe } from '../serve-process.ts';
import { waitFor } from '../serve.ts';
import { fakeTwilioServeEnv, FakePlatforms, getAlone, placeCall, testKeys } from './fake-platforms.ts';

const SECRET = 'callbacks-workers-secret-0123456789abcdef';

test('hiwar serve --workers 2 without Redis: a status callback reaching the worker that did not place the call is recorded, and every worker answers for the call', async () => {
  const keys = testKeys();
  const sandbox = await runSandbox();
  const fake = await new FakePlatforms(keys, { scenario: () => 'busy', onMedia: async () => assert.fail('no call is answered'), freshConnections: true }).start();
  const port = await freePort();
  const env = fakeTwilioServeEnv(keys, fake.url, SECRET, { HIWAR_LOG_LEVEL: 'warn', HIWAR_API_KEY: sandbox.key, HIWAR_BASE_URL: sandbox.sandbox.url, HIWAR_MEDIA_SECRET: '' });
  const serve = spawnServe(['--port', String(port), '--workers', '2', '--public-url', `http://127.0.0.1:${port}`], env);
  const { child, until, exited } = serve;
  try {
    await until(/workers: 2 processes/, 'both workers up');
    const id = await placeCall(`http://127.0.0.1:${port}`, SECRET);
    await waitFor(() => fake.callbacks.length >= 3, "the platform's three callbacks (initiated, ringing, busy)");
    assert.deepEqual(
      fake.callbacks.map((c) => [c.status, c.answered]),
      [['initiated', 204], ['ringing', 204], ['busy', 204]],
      `each taken by whichever worker it reached: ${JSON.stringify(fake.callbacks.map((c) => c.body))}\n${serve.out()}`,
    );
    // Four fresh connections: two to each worker. Each answers for the call, busy.
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await getAlone(`http://127.0.0.1:${port}/calls/${id}`, `Bearer ${SECRET}`));
    assert.deepEqual(answers.map((a) => [a.status, a.status === 200 && (JSON.parse(a.body) as { outcome?: string }).outcome]), Array(4).fill([200, 'busy']), JSON.stringify(answers));
    assert.doesNotMatch(serve.out(), /unknown call/);
    child.kill('SIGTERM');
    const [code] = await exited;
    assert.equal(code, 0, serve.out());
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await fake.close();
    await sandbox.close();
  }
});

/**
 * `hiwar serve --workers 2` without Redis, the worker that placed a call killed while the phone
 * rings: the primary keeps the records (every worker still answers for the call after the
 * respawn), and the worker respawned in its place takes the call over, so the drain's bound
 * still hangs it up with the platform. Before, the placing worker's hold on the call died with
 * it: the drain did not wait for the call, and it kept ringing toward a stopped server.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freePort } from '../../helpers/redis.ts';
import { runSandbox } from '../../helpers/sandbox.ts';
import { spawnServe } from '../serve-process.ts';
import { waitFor } from '../serve.ts';
import { fakeTwilioServeEnv, FakePlatforms, getAlone, placeCall, ringsUntilCancelled, testKeys } from './fake-platforms.ts';

const SECRET = 'respawn-workers-secret-0123456789abcdef';

test('hiwar serve --workers 2: the worker that placed a ringing call is killed; its respawn takes the call over and the drain hangs it up', async () => {
  const keys = testKeys();
  const sandbox = await runSandbox();
  // The phone rings until it is cancelled.
  const phone = ringsUntilCancelled();
  const fake = await new FakePlatforms(keys, phone.options).start();
  const port = await freePort();
  const env = fakeTwilioServeEnv(keys, fake.url, SECRET, { HIWAR_LOG_LEVEL: 'info', HIWAR_LOG_FORMAT: 'json', HIWAR_API_KEY: sandbox.key, HIWAR_BASE_URL: sandbox.sandbox.url, HIWAR_MEDIA_SECRET: '' });
  const serve = spawnServe(['--port', String(port), '--workers', '2', '--drain-timeout', '1', '--public-url', `http://127.0.0.1:${port}`], env);
  const { child, until, exited } = serve;
  const logged = (msg: string) =>
    serve
      .out()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { msg?: string; call?: string; worker?: number; pid?: number })
      .filter((r) => r.msg === msg);
  try {
    await until(/workers: 2 processes/, 'both workers up');
    const id = await placeCall(`http://127.0.0.1:${port}`, SECRET);
    await waitFor(() => phone.rang() && logged('outbound call placed').length === 1, 'the phone rings');
    const placer = logged('outbound call placed')[0]!.worker!;
    const pid = Number(new RegExp(`worker ${placer} pid (\\d+)`).exec(serve.out())![1]);

    process.kill(pid, 'SIGKILL');
    await until(new RegExp(`worker ${placer} restarted`), 'the killed worker is restarted');
    // The records are the primary's: both workers, the respawned one included, answer for the call.
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await getAlone(`http://127.0.0.1:${port}/calls/${id}`, `Bearer ${SECRET}`));
    assert.deepEqual(answers.map((a) => [a.status, a.status === 200 && (JSON.parse(a.body) as { status?: string }).status]), Array(4).fill([200, 'ringing']), JSON.stringify(answers));
    await waitFor(() => logged('outbound call taken over from the worker that placed it').length === 1, 'the respawned worker takes the call over', 60_000, serve.out);
    const over = logged('outbound call taken over from the worker that placed it')[0]!;
    assert.deepEqual([over.call, over.worker], [id, placer], 'the worker respawned in its place takes it');

    child.kill('SIGTERM');
    const [code] = await exited;
    assert.match(serve.out(), /SIGTERM: draining 2 workers \(0 calls running, 1 placed call\(s\) ringing/);
    assert.equal(fake.cancels.length, 1, `the ringing call was hung up with the platform:\n${serve.out()}`);
    assert.equal(fake.cancels[0]!.raw, 'Status=canceled');
    assert.equal(code, 0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await fake.close();
    await sandbox.close();
  }
});

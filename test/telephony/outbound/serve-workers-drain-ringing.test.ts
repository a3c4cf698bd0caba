/**
 * `hiwar serve --workers 2` drained while a call one of its workers placed still rings: the
 * primary's line says the placed call is awaited (the workers' own lines are silent once
 * started), and at the drain's bound (`--drain-timeout 1`) the worker hangs the call up with
 * the fake Twilio before the machine exits.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freePort } from '../../helpers/redis.ts';
import { runSandbox } from '../../helpers/sandbox.ts';
import { spawnServe } from '../serve-process.ts';
import { waitFor } from '../serve.ts';
import { fakeTwilioServeEnv, FakePlatforms, ringsUntilCancelled, testKeys } from './fake-platforms.ts';

const SECRET = 'drain-workers-secret-0123456789abcdef';

test("hiwar serve --workers 2: SIGTERM while a placed call rings: the primary's line names it, and the drain's bound hangs it up with the platform", async () => {
  const keys = testKeys();
  const sandbox = await runSandbox();
  // The phone rings until it is cancelled.
  const phone = ringsUntilCancelled();
  const fake = await new FakePlatforms(keys, phone.options).start();
  const port = await freePort();
  const env = fakeTwilioServeEnv(keys, fake.url, SECRET, { HIWAR_LOG_LEVEL: 'info', HIWAR_API_KEY: sandbox.key, HIWAR_BASE_URL: sandbox.sandbox.url, HIWAR_MEDIA_SECRET: '' });
  const serve = spawnServe(['--port', String(port), '--workers', '2', '--drain-timeout', '1', '--public-url', `http://127.0.0.1:${port}`], env);
  const { child, until, exited } = serve;
  try {
    await until(/workers: 2 processes/, 'both workers up');
    const res = await fetch(`http://127.0.0.1:${port}/calls`, { method: 'POST', headers: { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' }, body: JSON.stringify({ to: '+966500000001' }) });
    assert.equal(res.status, 201, await res.text());
    await waitFor(() => phone.rang(), 'the phone rings');

    child.kill('SIGTERM');
    const [code] = await exited;
    assert.match(serve.out(), /SIGTERM: draining 2 workers \(0 calls running, 1 placed call\(s\) ringing, awaited up to \d+\.\d s, no new calls\)/);
    assert.equal(fake.cancels.length, 1, 'the ringing call was hung up with the platform');
    assert.equal(fake.cancels[0]!.raw, 'Status=canceled');
    assert.match(serve.out(), /drain: 1 placed call\(s\) still ringing when the drain stopped waiting, cancelled with their platform \(twilio:out-[\w-]+\)/);
    assert.ok(serve.out().indexOf('SIGTERM: draining 2 workers') < serve.out().indexOf('drained; bye'), "the drain's line comes before the last one");
    assert.equal(code, 0);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await fake.close();
    await sandbox.close();
  }
});

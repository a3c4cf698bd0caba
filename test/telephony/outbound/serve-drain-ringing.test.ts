/**
 * `hiwar serve`'s drain with calls it placed still ringing, as its own process against the fake
 * Twilio REST API: SIGTERM while two placed calls ring. The drain waits for them (up to their
 * ring timeout) and places no new call; the one that ends unanswered stops being waited for, the
 * one answered during the drain gets its media in, and the callee hears the agent.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { realClock } from '../../../src/transport/clock.ts';
import { freePort } from '../../helpers/redis.ts';
import { FarEnd } from '../far-end.ts';
import { spawnServe } from '../serve-process.ts';
import { waitFor } from '../serve.ts';
import { FakePlatforms, testKeys, type MediaLeg } from './fake-platforms.ts';

const SECRET = 'drain-calls-secret-0123456789abcdef';
const ANSWERS = '+966500000001';
const NO_ANSWER = '+966500000002';

test('hiwar serve: SIGTERM while placed calls ring: the drain waits for them, the answered one gets its media and the callee hears the agent', async () => {
  const keys = testKeys();
  // Each phone rings until the test lets it go on (after SIGTERM).
  const ring = new Map<string, () => void>();
  const rang = new Map<string, Promise<void>>();
  for (const to of [ANSWERS, NO_ANSWER]) rang.set(to, new Promise<void>((r) => ring.set(`seen ${to}`, r)));
  const heard: { far?: FarEnd; error?: string } = {};
  const fake = await new FakePlatforms(keys, {
    scenario: (to) => (to === NO_ANSWER ? 'no-answer' : 'answer'),
    ringing: (to) =>
      new Promise<void>((r) => {
        ring.set(to, r);
        ring.get(`seen ${to}`)!();
      }),
    // The callee answered: the platform connects the call's stream (refused: the callee hears nothing).
    onMedia: async (leg: MediaLeg) => {
      const far = new FarEnd(leg.streamUrl, leg.protocol, realClock());
      try {
        await far.start();
      } catch (err) {
        heard.error = (err as Error).message;
        return;
      }
      heard.far = far;
      await far.until(() => far.agentAudio.length > 0, 60_000).catch(() => {});
      far.hangup();
      await far.closed;
    },
  }).start();
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HIWAR_LOG_LEVEL: 'info',
    TWILIO_ACCOUNT_SID: keys.twilio.accountSid,
    TWILIO_AUTH_TOKEN: keys.twilio.authToken,
    HIWAR_TWILIO_API_URL: fake.url,
    HIWAR_CALLS_SECRET: SECRET,
    HIWAR_CALL_FROM: '+966110000000',
  };
  for (const k of ['HIWAR_API_KEY', 'TELNYX_API_KEY', 'PLIVO_AUTH_ID', 'VONAGE_APPLICATION_ID', 'HIWAR_PUBLIC_URL', 'REDIS_URL', 'HIWAR_CALL_PLATFORM']) delete env[k];
  const serve = spawnServe(['--port', String(port), '--public-url', `http://127.0.0.1:${port}`], env);
  const { child, until, exited } = serve;
  const place = (to: string) => fetch(`http://127.0.0.1:${port}/calls`, { method: 'POST', headers: { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' }, body: JSON.stringify({ to }) });
  try {
    await until(/live calls: .*\n/, 'the start-up lines');
    for (const to of [ANSWERS, NO_ANSWER]) assert.equal((await place(to)).status, 201);
    await Promise.all(rang.values());

    child.kill('SIGTERM');
    await until(/SIGTERM: draining/, 'the drain line');
    assert.match(serve.out(), /SIGTERM: draining \(0 calls running, 2 placed call\(s\) ringing, awaited up to \d+\.\d s, no new calls\)/);
    await until(/drain: waiting for/, "the drain's log line");
    assert.match(serve.out(), /drain: waiting for 2 placed call\(s\) still ringing, up to \d+\.\d s \(twilio:out-[\w-]+, twilio:out-[\w-]+\)/);
    // Nothing new is dialled while draining.
    assert.equal((await place('+966500000003')).status, 503);
    assert.equal(fake.received.length, 2, 'no third call was placed');

    // One phone stops ringing unanswered (its callback comes), then the other is answered, during the drain.
    ring.get(NO_ANSWER)!();
    await waitFor(() => fake.callbacks.some((c) => c.status === 'no-answer' && c.answered === 204), 'the no-answer callback taken by the draining server');
    assert.equal(child.exitCode, null, 'the drain still waits for the call ringing');
    ring.get(ANSWERS)!();

    const [code] = await exited;
    assert.equal(heard.error, undefined, `the answered call's stream was let in (${heard.error})`);
    assert.ok(heard.far && heard.far.agentAudio.length > 0, 'the callee heard the agent');
    assert.equal(code, 0);
    assert.doesNotMatch(serve.out(), /refused/, 'no media connection was refused');
    assert.doesNotMatch(serve.out(), /neither answered nor ended/, 'every placed call was settled before its ring timeout');
    assert.match(serve.out(), /drained; bye/);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    for (const r of ring.values()) r();
    await fake.close();
  }
});

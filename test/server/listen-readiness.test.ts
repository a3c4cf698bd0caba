/**
 * A service key that may synthesize but not open `/listen` (the service lets a key be restricted
 * to some endpoints) answers `GET /models` and text-to-speech: `/readyz` said "ok", `hiwar serve`
 * started, and the first call greeted the caller and then heard nothing. `/listen` refuses such a
 * key as soon as the socket opens (an Error event, then close 1008; or 403 at the handshake), so
 * it can be asked without audio: `ServiceClient.probeListen`, which `/readyz` now asks. Against
 * the embedded sandbox, whose keys can be restricted as the service's are.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createAgentServer } from '../../src/server/index.ts';
import { ServiceClient } from '../../src/service/client.ts';
import { AuthenticationError, PermissionDeniedError } from '../../src/service/errors.ts';
import type { Agent } from '../../src/session/agent.ts';
import { createLogger } from '../../src/session/logger.ts';
import { runSandbox, type Running } from '../helpers/sandbox.ts';

const TTS_ONLY = 'sk-readiness-tts-only-0001';
const FULL = 'sk-readiness-full-key-0001';
const agent: Agent = { name: 'ready', instructions: 'x', greeting: 'أهلًا', voice: { voice_id: 'ar-hijazi-female-1' }, outOfServiceLine: 'الخدمة غير متاحة.' };

let sandbox: Running;
before(async () => {
  sandbox = await runSandbox({ keys: [{ key: TTS_ONLY, allow: ['/text-to-speech', '/models'] }, { key: FULL }] });
});
after(() => sandbox?.close());

const client = (key: string) => new ServiceClient({ apiKey: key, baseUrl: sandbox.sandbox.url, maxRetries: 0 });
const credits = (key: string) => sandbox.sandbox.state.keys.lookup(key, 'global')!.credits;

test('probeListen: a key restricted away from /listen is a PermissionDeniedError, a wrong key an AuthenticationError, a good key resolves; no credits are spent', async () => {
  const before = [credits(TTS_ONLY), credits(FULL)];
  await client(FULL).probeListen();
  await assert.rejects(client(TTS_ONLY).probeListen(), (err: unknown) => err instanceof PermissionDeniedError && err.status === 403 && err.endpoint === '/listen' && /cannot call \/listen/.test(err.errorMessage));
  await assert.rejects(client('sk-readiness-wrong-key-0001').probeListen(), (err: unknown) => err instanceof AuthenticationError && err.endpoint === '/listen');
  assert.deepEqual([credits(TTS_ONLY), credits(FULL)], before, 'no audio was sent, nothing was billed');
});

async function readyz(url: string) {
  const res = await fetch(`${url}/readyz`, { headers: { connection: 'close' } });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as { status: string; degraded?: string[]; service?: { status: string; via: string; detail?: string } } };
}

test('/readyz with a key that may synthesize but not open /listen: 200 "degraded", the service refused for live recognition (never the key); a 503 with notReadyOn', async () => {
  for (const notReadyOn of [undefined, ['unreachable', 'refused'] as const]) {
    const app = await createAgentServer({ agent, client: client(TTS_ONLY), logger: createLogger('silent'), serviceProbe: { maxAgeMs: 600_000, ...(notReadyOn ? { notReadyOn } : {}) } });
    const { url } = await app.listen({ port: 0 });
    try {
      const r = await readyz(url);
      assert.deepEqual([r.status, r.body.status, r.body.service?.status, r.body.service?.via], notReadyOn ? [503, 'service refused', 'refused', 'probe'] : [200, 'degraded', 'refused', 'probe'], r.text);
      if (!notReadyOn) assert.deepEqual(r.body.degraded, ['service refused']);
      assert.match(r.body.service?.detail ?? '', /refused the API key for live recognition \(\/listen, HTTP 403: access denied: this key cannot call \/listen\)/);
      assert.ok(!r.text.includes(TTS_ONLY), 'the key is not in the body');
    } finally {
      await app.close();
    }
  }
});

test('/readyz with a key that may open /listen: "ok", reachable, and /listen is probed without spending audio', async () => {
  const app = await createAgentServer({ agent, client: client(FULL), logger: createLogger('silent'), serviceProbe: { maxAgeMs: 1 } });
  const { url } = await app.listen({ port: 0 });
  try {
    const spent = credits(FULL);
    for (let i = 0; i < 2; i++) {
      const r = await readyz(url);
      assert.deepEqual([r.status, r.body.status, r.body.service?.status], [200, 'ok', 'reachable'], r.text);
    }
    assert.equal(credits(FULL), spent);
  } finally {
    await app.close();
  }
});

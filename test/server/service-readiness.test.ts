/**
 * `/readyz` of `createAgentServer` says whether the voice service can be reached: a key and a URL
 * pointing nowhere (or an embedded sandbox that stopped) left it answering "ok" while every call
 * could only apologise. `/healthz` (liveness) stays 200. The service is a small HTTP server
 * answering `GET /models` as the service does (the cloud service cannot be reached from a test).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createAgentServer } from '../../src/server/index.ts';
import { ServiceReachability } from '../../src/server/service-reachability.ts';
import { ServiceClient } from '../../src/service/client.ts';
import type { Agent } from '../../src/session/agent.ts';
import { createLogger } from '../../src/session/logger.ts';

const agent: Agent = { name: 'ready', instructions: 'x', greeting: 'أهلًا', voice: { voice_id: 'ar-hijazi-female-1' }, outOfServiceLine: 'الخدمة غير متاحة.' };
const KEY = 'sk-readiness-test-key-0001';

/** A stand-in of the service's `GET /models`: answers `status` (200: an empty list), counting them. */
async function fakeService(): Promise<{ url: string; requests: () => number; answer: (status: number) => void; close: () => Promise<void> }> {
  let status = 200;
  let requests = 0;
  const server: Server = createServer((req, res) => {
    // Only the probe's: a server also renders its out-of-service line as it starts (a 404 here).
    if (req.url !== '/models') return void res.writeHead(404).end();
    requests++;
    if (status === 200) return void res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ errorCode: status * 100 + 1, errorMessage: 'refused' }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    answer: (s) => (status = s),
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}

async function probe(url: string, path: '/readyz' | '/healthz') {
  const res = await fetch(`${url}${path}`, { headers: { connection: 'close' } });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as { status: string; degraded?: string[]; service?: { status: string; via: string; detail?: string } } };
}

test('a service URL pointing nowhere: /readyz 503 "service unreachable", saying so in its body; /healthz stays 200; the key is in neither', async () => {
  const gone = await fakeService();
  await gone.close(); // its port: nothing listens there now
  const app = await createAgentServer({ agent, client: new ServiceClient({ apiKey: KEY, baseUrl: gone.url, maxRetries: 0 }), logger: createLogger('silent') });
  const { url } = await app.listen({ port: 0 });
  try {
    const ready = await probe(url, '/readyz');
    assert.equal(ready.status, 503, ready.text);
    assert.equal(ready.body.status, 'service unreachable');
    assert.deepEqual([ready.body.service?.status, ready.body.service?.via, ready.body.service?.detail], ['unreachable', 'probe', 'the voice service could not be reached']);
    const live = await probe(url, '/healthz');
    assert.equal(live.status, 200, 'liveness is only that the process answers');
    assert.ok(![ready.text, live.text].some((t) => t.includes(KEY)), 'the key is in no body');
  } finally {
    await app.close();
  }
});

test('the service answering: ready, with one probe however often /readyz is asked; it stops: 503 once what was known is stale; a refused key: 200 "degraded" saying "service refused" (503 with notReadyOn)', async () => {
  const service = await fakeService();
  const server = (maxAgeMs: number, notReadyOn?: ('unreachable' | 'refused')[]) =>
    createAgentServer({ agent, client: new ServiceClient({ apiKey: KEY, baseUrl: service.url, maxRetries: 0 }), logger: createLogger('silent'), serviceProbe: { maxAgeMs, ...(notReadyOn ? { notReadyOn } : {}) } });
  // Fresh for as long as the test could take: with 300 ms, a loaded machine let the answer go
  // stale between the first /readyz and the next.
  const keeping = await server(600_000);
  const app = await server(300);
  const strict = await server(300, ['unreachable', 'refused']);
  const { url } = await app.listen({ port: 0 });
  const strictUrl = (await strict.listen({ port: 0 })).url;
  try {
    const kept = (await keeping.listen({ port: 0 })).url;
    const answers = await Promise.all(Array.from({ length: 5 }, () => probe(kept, '/readyz')));
    assert.deepEqual(answers.map((a) => [a.status, a.body.status, a.body.service?.status]), Array(5).fill([200, 'ok', 'reachable']));
    assert.equal(service.requests(), 1, 'five /readyz at once, one request to the service');
    await probe(kept, '/readyz');
    assert.equal(service.requests(), 1, 'a fresh answer is kept');
    // Stale after 300 ms: the waits below only ever make it staler.
    assert.equal((await probe(url, '/readyz')).status, 200);
    service.answer(401);
    await sleep(350);
    // A refused key is every instance's: this one stays in the balancer, and its callers hear the
    // agent's out-of-service line rather than the platform's error tone; the body says why.
    const refused = await probe(url, '/readyz');
    assert.deepEqual(
      [refused.status, refused.body.status, refused.body.degraded, refused.body.service?.status, refused.body.service?.detail],
      [200, 'degraded', ['service refused'], 'refused', 'the voice service refused the API key (HTTP 401)'],
    );
    const strictRefused = await probe(strictUrl, '/readyz');
    assert.deepEqual([strictRefused.status, strictRefused.body.status], [503, 'service refused'], "notReadyOn: ['unreachable', 'refused'] takes it out");
    await service.close();
    await sleep(350);
    const stopped = await probe(url, '/readyz');
    assert.deepEqual([stopped.status, stopped.body.status, stopped.body.service?.status], [503, 'service unreachable', 'unreachable']);
    assert.equal((await probe(url, '/healthz')).status, 200);
  } finally {
    await keeping.close();
    await strict.close();
    await app.close();
    await service.close();
  }
});

test('a key scoped away from GET /models (403 there, as a key for speech only is): /readyz stays 200 "ok", the service reachable', async () => {
  const service = await fakeService();
  service.answer(403);
  const app = await createAgentServer({ agent, client: new ServiceClient({ apiKey: KEY, baseUrl: service.url, maxRetries: 0 }), logger: createLogger('silent'), serviceProbe: { maxAgeMs: 600_000 } });
  const { url } = await app.listen({ port: 0 });
  try {
    const ready = await probe(url, '/readyz');
    assert.deepEqual([ready.status, ready.body.status, ready.body.service?.status, ready.body.degraded], [200, 'ok', 'reachable', undefined], JSON.stringify(ready.body));
    assert.equal(service.requests(), 1, 'it was asked');
  } finally {
    await app.close();
    await service.close();
  }
});

test("what the calls' sessions met counts as a check: no probe while it is fresh; a call's fatal network failure makes it unreachable at once", async () => {
  let now = 1_000_000;
  let probes = 0;
  const r = new ServiceReachability(async () => void probes++, { maxAgeMs: 10_000 }, () => now);
  r.observe({ type: 'state', state: 'listening' });
  assert.equal((await r.status()).via, 'call');
  assert.equal(probes, 0, 'a call whose sockets opened was the check');
  r.observe({ type: 'error', source: 'stt', kind: 'network', message: 'speech recognition could not be reached', fatal: true });
  assert.deepEqual(await r.status(), { status: 'unreachable', via: 'call', checkedAt: new Date(now).toISOString(), detail: 'speech recognition could not be reached' });
  // Failures that are one call's own (a tool, a model, a non-fatal socket) say nothing of the service.
  r.observe({ type: 'error', source: 'agent', kind: 'tool', tool: 't', message: 'x', fatal: false });
  r.observe({ type: 'error', source: 'tts', kind: 'network', message: 'x', fatal: false });
  r.observe({ type: 'error', source: 'llm', kind: 'network', message: 'x', fatal: true });
  assert.equal((await r.status()).status, 'unreachable');
  now += 10_000;
  assert.deepEqual([(await r.status()).status, probes], ['reachable', 1], 'stale: the probe asked, and the service answered');
});

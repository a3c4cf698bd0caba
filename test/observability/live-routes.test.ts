import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, test } from 'node:test';
import { Redis } from 'ioredis';
import { InstanceRegistry } from '../../src/cluster/registry.ts';
import { LiveCalls } from '../../src/observability/live-calls.ts';
import { ClusterLiveCalls } from '../../src/observability/live-cluster.ts';
import { liveCallsRoutes } from '../../src/observability/live-routes.ts';
import { createLogger } from '../../src/session/logger.ts';
import type { ServerPlugin } from '../../src/server/types.ts';
import { startRedis } from '../helpers/redis.ts';

const servers: Server[] = [];
after(() => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))));

/** A real HTTP server with the given plugins in order, as the agent server tries them. */
async function serve(...plugins: ServerPlugin[]): Promise<string> {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    for (const p of plugins) if (await p.handleRequest?.(req, res, url)) return;
    res.writeHead(404).end('none');
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function callsWithOne(): LiveCalls {
  const live = new LiveCalls();
  const c = live.add({ callId: 'CA1', provider: 'twilio', parameters: {} }, 'bank');
  live.update(c, { type: 'state', state: 'listening' });
  live.update(c, { type: 'user_turn', text: 'كم رصيدي', source: 'speech' });
  live.update(c, { type: 'state', state: 'thinking' });
  live.update(c, { type: 'metrics', metrics: { voiceToVoiceMs: 812.5, interrupted: false } });
  live.update(c, { type: 'agent_handoff', from: 'bank', to: 'cards', carry: 'summary' });
  const web = live.add({ callId: 'room1:peer1', provider: 'webrtc', parameters: { room: 'room1' } }, 'bank');
  live.update(web, { type: 'state', state: 'speaking' });
  return live;
}

test('GET /calls/live: closed without a secret configured, 401 without the bearer, JSON of the calls with it, the page without call data', async () => {
  const live = callsWithOne();
  const closed = await serve(liveCallsRoutes({ calls: () => live.list(), secret: '' }));
  for (const path of ['/calls/live', '/calls/live?format=json', '/calls/live/app.js']) {
    const r = await fetch(closed + path);
    assert.equal(r.status, 403, path);
    assert.match(((await r.json()) as { error: string }).error, /set HIWAR_CALLS_SECRET/);
  }
  const base = await serve(liveCallsRoutes({ calls: () => live.list(), secret: 'op-secret', logger: createLogger('silent') }));
  assert.equal((await fetch(`${base}/calls/live?format=json`)).status, 401);
  assert.equal((await fetch(`${base}/calls/live`, { headers: { accept: 'application/json', authorization: 'Bearer nope' } })).status, 401);
  const ok = await fetch(`${base}/calls/live`, { headers: { accept: 'application/json', authorization: 'Bearer op-secret' } });
  assert.equal(ok.status, 200);
  assert.equal(ok.headers.get('cache-control'), 'no-store');
  const body = (await ok.json()) as { scope: string; calls: [Record<string, unknown>, Record<string, unknown>] };
  assert.equal(body.scope, 'instance');
  const [phone, web] = body.calls;
  assert.equal(phone.id, 'twilio:CA1');
  assert.equal(phone.state, 'thinking');
  assert.equal(phone.agent, 'cards', 'the agent after the handoff');
  assert.equal(phone.lastCallerLine, 'كم رصيدي');
  assert.deepEqual(phone.latenciesMs, [812.5]);
  assert.equal(phone.room, undefined, 'a phone call has no room to join');
  assert.equal(web.room, 'room1');
  const page = await fetch(`${base}/calls/live`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type')!, /text\/html/);
  assert.match(page.headers.get('content-security-policy')!, /script-src 'self'/);
  const html = await page.text();
  assert.match(html, /<html lang="ar" dir="rtl">/);
  assert.ok(!html.includes('CA1') && !html.includes('كم رصيدي'), 'the page itself carries no call data');
  const js = await fetch(`${base}/calls/live/app.js`);
  assert.match(js.headers.get('content-type')!, /javascript/);
  assert.match(await js.text(), /calls\/live\?format=json/);
  assert.equal((await fetch(`${base}/calls/live/nope`)).status, 404);
  assert.equal((await fetch(`${base}/calls/live`, { method: 'POST' })).status, 405);
});

test('/calls/live before the outbound routes: GET /calls/:id still reaches them, /calls/live never does', async () => {
  const seen: string[] = [];
  const outbound: ServerPlugin = {
    name: 'outbound',
    handleRequest: (req, res, url) => {
      if (!url.pathname.startsWith('/calls')) return false;
      seen.push(url.pathname);
      res.writeHead(401).end();
      return true;
    },
  };
  const base = await serve(liveCallsRoutes({ calls: () => [], secret: 's' }), outbound);
  assert.equal((await fetch(`${base}/calls/live?format=json`, { headers: { authorization: 'Bearer s' } })).status, 200);
  assert.equal((await fetch(`${base}/calls/abc123`)).status, 401);
  assert.deepEqual(seen, ['/calls/abc123']);
});

test('a cluster: each instance publishes its calls in Redis, the view lists every live instance’s, a gone instance’s drop out', async (t) => {
  const redisServer = await startRedis();
  const redis = new Redis(redisServer.url);
  t.after(async () => {
    redis.disconnect();
    await redisServer.stop();
  });
  const registry = new InstanceRegistry(redis, 'hw');
  const record = (id: string) => ({ id, address: `http://${id}`, calls: 1, maxCalls: 10, waiting: 0, loopDelayMs: 0, draining: false, slots: { key: 'k', used: 0, limit: 1, held: 0 }, startedAt: '', updatedAt: '' });
  await registry.publish(record('a'), 60_000);
  await registry.publish(record('b'), 60_000);
  const localA = new LiveCalls();
  const localB = new LiveCalls();
  localA.add({ callId: 'A1', provider: 'twilio', parameters: {} });
  const b1 = localB.add({ callId: 'B1', provider: 'pcm', parameters: {} });
  localB.update(b1, { type: 'state', state: 'speaking' });
  const a = new ClusterLiveCalls(redis, { prefix: 'hw', instance: 'a', local: localA });
  const b = new ClusterLiveCalls(redis, { prefix: 'hw', instance: 'b', local: localB });
  await Promise.all([a.publish(), b.publish()]);
  const both = await a.list();
  assert.deepEqual(both.map((c) => [c.instance, c.id, c.state]), [['a', 'twilio:A1', 'starting'], ['b', 'pcm:B1', 'speaking']]);
  // A call ends on b: published at its next publish (it changed).
  localB.update(b1, { type: 'ended', reason: 'hangup' });
  await b.publish();
  assert.deepEqual((await a.list()).map((c) => c.id), ['twilio:A1']);
  // b leaves the cluster: its record goes with it.
  await b.close();
  await registry.remove('b');
  assert.deepEqual((await b.list()).map((c) => c.instance), ['a']);
  await a.close();
});

/**
 * Placed calls on a cluster (real Redis): a call placed on one instance has its callbacks and
 * its media taken by another (a load balancer in front of both), and the instance that placed it
 * learns the outcome and who answered; a call whose callbacks were lost with a dead worker is
 * recovered by asking the platform's call resource.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import callCentre from '../../../agents/call-centre/index.ts';
import { createAgentServer, type AgentServerApp } from '../../../src/server/index.ts';
import type { Agent } from '../../../src/session/agent.ts';
import { createLogger } from '../../../src/session/logger.ts';
import { SteadyScaledClock } from '../../../src/testing/steady-clock.ts';
import { outboundCalls, outboundDialer, RedisCallRecords, telephonyRoutes, type Outbound, type OutboundCall } from '../../../transports/telephony/index.ts';
import { pad, runSandbox, voiced, type Running } from '../../helpers/sandbox.ts';
import { freePort, startRedis, type TestRedis } from '../../helpers/redis.ts';
import { FarEnd, quietAfter } from '../far-end.ts';
import { waitFor } from '../serve.ts';
import { platformClients } from './clients.ts';
import { FakePlatforms, testKeys, type MediaLeg } from './fake-platforms.ts';

delete process.env.HIWAR_API_KEY;

const SECRET = 'calls-secret-for-the-cluster-test-0123';
const FROM = '+966110000000';
const PERSON = '+966500000001';
const BUSY = '+966500000002';
const LOST = '+966500000009';
const keys = testKeys();
const signing = { twilio: keys.twilio.authToken, telnyx: keys.telnyx.publicKey, plivo: keys.plivo.authToken, vonage: keys.vonage.signatureSecret };
const agent: Agent = {
  ...callCentre,
  greeting: 'مرحبًا {name}، معك سارة من بنك الواحة.',
  voice: { ...callCentre.voice, firstAudioTimeoutMs: 20_000 },
  answeringMachine: { enabled: true },
};

describe('placed calls on a cluster (Redis)', () => {
  let redis: TestRedis;
  let sandbox: Running;
  let fake: FakePlatforms;
  const clock = new SteadyScaledClock(2);
  const apps: AgentServerApp[] = [];
  const conns: Redis[] = [];
  let alo: Int16Array;

  /** The person: "ألو", hears the greeting to its end, hangs up. */
  async function person(leg: MediaLeg): Promise<void> {
    const far = new FarEnd(leg.streamUrl, leg.protocol, clock);
    await far.start();
    await far.say(alo);
    // The greeting has ended once no agent audio came for 800 ms of this process's run time.
    await quietAfter(far, 1.5, 800);
    far.hangup();
  }

  const platforms = () => platformClients(keys, fake.url);

  /** One instance: its own server and port, the cluster's Redis for records, the cluster's token secret. */
  async function instance(o: { port: number; publicUrl: string }): Promise<{ app: AgentServerApp; outbound: Outbound; url: string }> {
    const conn = new Redis(redis.url);
    conns.push(conn);
    const outbound = outboundCalls({ platforms: platforms(), secret: SECRET, from: FROM, secrets: signing, publicUrl: o.publicUrl, records: new RedisCallRecords(conn) });
    const app = await createAgentServer({
      agent,
      client: sandbox.client,
      clock,
      port: o.port,
      logger: createLogger('silent'),
      tokens: { secret: 'the-cluster-media-secret-0123456789abcdef' },
      plugins: [telephonyRoutes({ media: { clock }, secrets: signing }), outbound.routes],
      onTransportEnded: (t, report) => outbound.callEnded(t.call, report),
    });
    apps.push(app);
    const { url } = await app.listen();
    return { app, outbound, url };
  }

  before(async () => {
    [redis, sandbox] = await Promise.all([startRedis(), runSandbox()]);
    alo = pad(await voiced(sandbox.client, 'ألو', 8000), 8000, 0.3, 0);
    fake = await new FakePlatforms(keys, { scenario: (to) => (to === PERSON ? 'answer' : 'busy'), onMedia: person, lost: (to) => to === LOST, durationS: 9 }).start();
  });
  after(async () => {
    for (const a of apps) await a.close().catch(() => {});
    for (const c of conns) c.disconnect();
    clock.stop();
    await fake?.close();
    await sandbox?.close();
    await redis?.stop();
  });

  test('a call placed on instance A whose callbacks and media reach instance B: A learns the outcome and who answered; B answers GET /calls/:id', async () => {
    const portB = await freePort();
    const b = await instance({ port: portB, publicUrl: `http://127.0.0.1:${portB}` });
    // A hands the platform B's address, as a load balancer in front of both would.
    const a = await instance({ port: 0, publicUrl: b.url });

    const busy = await a.outbound.placeCall({ to: BUSY, platform: 'telnyx', variables: { name: 'منى' } });
    const busyDone = await a.outbound.outcome(busy.id);
    assert.equal(busyDone.outcome, 'busy', 'the hang-up event reached B; A was told through Redis');
    assert.ok(fake.callbacks.filter((c) => c.platform === 'telnyx').every((c) => c.url.startsWith(b.url) && c.answered === 204), 'every callback went to B and was taken');

    const call = await a.outbound.placeCall({ to: PERSON, platform: 'twilio', variables: { name: 'خالد' } });
    const done = await a.outbound.outcome(call.id, { session: true });
    assert.equal(done.outcome, 'completed');
    assert.equal(done.durationS, 9);
    assert.equal(done.session?.amd?.class, 'human', JSON.stringify(done.session));
    assert.equal(done.session?.amd?.action, 'greeted');
    assert.match(done.session?.transcript ?? '', /^agent: مرحبًا خالد، معك سارة من بنك الواحة/, 'the session ran on B, with the variable');

    const got = await fetch(`${b.url}/calls/${call.id}`, { headers: { authorization: `Bearer ${SECRET}` } });
    assert.equal(got.status, 200, 'B knows a call A placed');
    const record = (await got.json()) as OutboundCall;
    assert.equal(record.outcome, 'completed');
    assert.equal(record.session?.amd?.class, 'human');
    assert.equal((await fetch(`${b.url}/calls/out-none`, { headers: { authorization: `Bearer ${SECRET}` } })).status, 404);
  });

  test("a dead worker's calls, their callbacks lost: another instance finds each by its dial id and asks the platform's call resource how it ended", async () => {
    const port = await freePort();
    const dying = await instance({ port, publicUrl: `http://127.0.0.1:${port}` });
    const before = fake.finished.size;
    const placed: Record<string, string> = {};
    for (const platform of ['twilio', 'telnyx', 'plivo', 'vonage'] as const) {
      placed[platform] = (await dying.outbound.placeCall({ to: LOST, platform, variables: { name: 'سعيد' }, reference: `spring:3:${platform}` })).id;
    }
    // The calls ring (their first callbacks reach the worker), then the worker dies and the rest of their callbacks are lost.
    await waitFor(() => fake.finished.size >= before + 4, 'the four calls ended at the platforms', 60_000, () => fake.errors.join('; '));
    await dying.app.close();
    const other = await instance({ port: 0, publicUrl: 'http://127.0.0.1:9' });
    const dialer = outboundDialer(other.outbound, { recoverPollMs: 50 });
    const recovered: Record<string, unknown> = {};
    for (const platform of ['twilio', 'telnyx', 'plivo', 'vonage']) {
      const r = await dialer.recover!({ campaignId: 'spring', index: 3, contact: { number: LOST, variables: {} }, attempt: 1, dialId: `spring:3:${platform}` });
      recovered[platform] = [r?.outcome, r?.callId === placed[platform]];
    }
    assert.deepEqual(recovered, {
      twilio: ['busy', true],
      // Telnyx's call resource says only that the call is no longer alive: how it ended is unknown, and it is not retried.
      telnyx: ['failed-unknown', true],
      plivo: ['busy', true],
      vonage: ['busy', true],
    });
    assert.ok(fake.fetched.some((p) => /\/Calls\/CA\w+\.json$/.test(p)), 'Twilio: the Call resource');
    assert.ok(fake.fetched.some((p) => /^\/v2\/calls\/v3:call-/.test(decodeURIComponent(p))), 'Telnyx: Retrieve a call status');
    assert.ok(fake.fetched.some((p) => /\/Call\/call-\d+\/$/.test(p)), "Plivo: the answered leg's record");
    assert.ok(fake.fetched.some((p) => /^\/v1\/calls\/63f61863/.test(p)), 'Vonage: the call');
    const none = await dialer.recover!({ campaignId: 'spring', index: 4, contact: { number: LOST, variables: {} }, attempt: 1, dialId: 'spring:4:1' });
    assert.equal(none, undefined, 'a dial never placed is not found (the campaign counts it failed-unknown)');
  });
});

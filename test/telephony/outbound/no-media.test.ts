/**
 * An answered outbound call whose media never connects is hung up with its platform (Twilio,
 * Telnyx, Plivo, Vonage: the request each documents for a live call, checked against
 * `test/fixtures/platforms/<platform>/hangup.json`), recorded `completed` with
 * `hangUpRequested: 'no-media'`, and counted `no-media` by a campaign; one whose media connected
 * is left alone. On a cluster, media that reached another instance (its token spent in the shared
 * Redis ledger) is neither hung up nor named "no media came" by the placing instance's drain.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Redis } from 'ioredis';
import WebSocket from 'ws';
import { RedisTokenLedger } from '../../../src/cluster/token-ledger.ts';
import { CAMPAIGN_DEFAULTS } from '../../../src/campaign/schedule.ts';
import { createAgentServer, type AgentServerApp } from '../../../src/server/index.ts';
import type { TokenLedger } from '../../../src/server/token-ledger.ts';
import type { ServerWarning } from '../../../src/server/types.ts';
import { ServiceClient } from '../../../src/service/client.ts';
import { createLogger } from '../../../src/session/logger.ts';
import { outboundCalls, outboundDialer, RedisCallRecords, telephonyRoutes, type Outbound, type OutboundCall, type OutboundPlatformName } from '../../../transports/telephony/index.ts';
import { within } from '../../helpers/deadline.ts';
import { freePort, startRedis, type TestRedis } from '../../helpers/redis.ts';
import { platformFixture } from '../fixture-files.ts';
import { waitFor } from '../serve.ts';
import { platformClients } from './clients.ts';
import { FakePlatforms, testKeys, type MediaLeg } from './fake-platforms.ts';


const FROM = '+966110000000';
const PERSON = '+966500000001';
const SECRET = 'calls-secret-for-the-no-media-test-0123';
const keys = testKeys();
const signing = { twilio: keys.twilio.authToken, telnyx: keys.telnyx.publicKey, plivo: keys.plivo.authToken, vonage: keys.vonage.signatureSecret };
const PLATFORMS: OutboundPlatformName[] = ['twilio', 'telnyx', 'plivo', 'vonage'];

/** One instance: a server with the telephony routes and outbound calls, no voice service (no call runs). */
async function instance(o: { fake: FakePlatforms; port: number; publicUrl: string; lines: string[]; mediaWaitMs?: number; ledger?: TokenLedger; redis?: Redis; statuses?: OutboundCall[] }): Promise<{ app: AgentServerApp; outbound: Outbound }> {
  const outbound = outboundCalls({
    platforms: platformClients(keys, o.fake.url),
    secret: SECRET,
    from: FROM,
    secrets: signing,
    publicUrl: o.publicUrl,
    ...(o.mediaWaitMs ? { mediaWaitMs: o.mediaWaitMs } : {}),
    ...(o.redis ? { records: new RedisCallRecords(o.redis) } : {}),
    onStatus: (c) => o.statuses?.push(c),
  });
  const app = await createAgentServer({
    agent: { name: 'silent', instructions: 'x', greeting: 'أهلًا', voice: { voice_id: 'ar-hijazi-female-1' }, outOfServiceLine: 'الخدمة غير متاحة.' },
    client: new ServiceClient({ apiKey: 'sk-x', baseUrl: 'http://127.0.0.1:9', maxRetries: 0 }),
    serviceProbe: false,
    port: o.port,
    logger: createLogger('debug', { write: (l: string) => void o.lines.push(JSON.parse(l).msg) }),
    tokens: { secret: 'the-no-media-test-media-secret-0123456789' },
    ...(o.ledger ? { ledger: o.ledger } : {}),
    plugins: [telephonyRoutes({ secrets: signing }), outbound.routes],
  });
  await app.listen();
  return { app, outbound };
}

/** Platforms whose answered calls' media streams connect (the token is taken) and stay open without a start: no session runs. */
async function connecting(): Promise<{ fake: FakePlatforms; open: WebSocket[]; connected: () => boolean }> {
  const open: WebSocket[] = [];
  let connected = false;
  const connect = (leg: MediaLeg) =>
    new Promise<void>((resolve) => {
      const ws = new WebSocket(leg.streamUrl);
      open.push(ws);
      ws.on('open', () => resolve());
      ws.on('error', () => resolve());
    });
  const fake = await new FakePlatforms(keys, { scenario: () => 'answer', onMedia: (leg) => connect(leg).then(() => ((connected = true), new Promise<void>(() => {}))) }).start();
  return { fake, open, connected: () => connected };
}

describe('an answered call whose media never comes', () => {
  test('is hung up with its platform after mediaWaitMs, on each platform as it documents it; a campaign counts it no-media', async () => {
    const fake = await new FakePlatforms(keys, { scenario: () => 'answer', onMedia: () => new Promise<void>(() => {}) }).start();
    const port = await freePort();
    const lines: string[] = [];
    const statuses: OutboundCall[] = [];
    const { app, outbound } = await instance({ fake, port, publicUrl: `http://127.0.0.1:${port}`, lines, mediaWaitMs: 300, statuses });
    const warnings: ServerWarning[] = [];
    app.events$.subscribe((e) => e.type === 'warning' && warnings.push(e));
    try {
      const results = PLATFORMS.map((platform, index) => outboundDialer(outbound, { platform }).dial({ campaignId: 'c', index, attempt: 1, dialId: `c:${index}:1`, contact: { number: PERSON, variables: {} } }));
      // Not hung up, a call would wait here for its callee to hang up.
      const outcomes = await within(Promise.all(results), 30_000, () => `every call ended (hang-ups taken: ${fake.hangups.length})`);
      assert.deepEqual(
        outcomes.map((r) => r.outcome),
        ['no-media', 'no-media', 'no-media', 'no-media'],
        `the campaign's outcome for each (${fake.errors.join('; ')})`,
      );
      assert.ok(CAMPAIGN_DEFAULTS.retryOn.includes('no-media'), 'retried by default: the person heard nothing');
      assert.equal(fake.cancels.length, 0, 'no cancel: the calls were answered');
      const byPlatform = Object.fromEntries(fake.hangups.map((r) => [r.platform, r]));
      assert.deepEqual(Object.keys(byPlatform).sort(), [...PLATFORMS].sort());
      assert.equal(fake.hangups.length, 4, 'one hang-up per call');
      const placed = Object.fromEntries(await Promise.all(PLATFORMS.map(async (p, i) => [p, (await outbound.byReference(`c:${i}:1`))!] as const)));
      const doc = (p: string) => platformFixture(p, 'hangup.json').request;
      for (const p of PLATFORMS) {
        const c = placed[p]!;
        const r = byPlatform[p]!;
        // Plivo names an answered call by its leg (call_uuid), not by the dial's request_uuid.
        const id = p === 'plivo' ? c.platformLegId! : c.platformCallId!;
        const path = doc(p)
          .path.replace('{AccountSid}', keys.twilio.accountSid)
          .replace('{auth_id}', keys.plivo.authId)
          .replace(/\{(Sid|call_control_id|call_uuid|uuid)\}/, id);
        assert.equal(r.method, doc(p).method, `${p}: the documented method`);
        assert.equal(decodeURIComponent(r.path), path, `${p}: the documented path, with the answered call's id`);
        if (doc(p).contentType) assert.equal(r.headers['content-type'], doc(p).contentType, `${p}: the documented body type`);
        assert.equal(c.outcome, 'completed', p);
        assert.equal(c.hangUpRequested, 'no-media', p);
        assert.equal(c.rawStatus, 'hung up by hiwar (no media came)', p);
        assert.ok(c.answeredAt, `${p}: it was answered`);
        assert.ok(
          statuses.some((s) => s.id === c.id && s.hangUpRequested === 'no-media' && s.outcome === 'completed'),
          `${p}: the onStatus hook was told`,
        );
      }
      assert.equal(byPlatform.twilio!.raw, doc('twilio').body);
      assert.deepEqual(byPlatform.telnyx!.json, doc('telnyx').body);
      assert.deepEqual(byPlatform.vonage!.json, doc('vonage').body);
      assert.equal(byPlatform.plivo!.raw, '', 'a DELETE with no arguments');
      assert.equal(lines.filter((l) => /^outbound call hung up: answered, but no media came within 0\.3 s$/.test(l)).length, 4, lines.join('\n'));
      // A warning event for each, naming the call and what to check.
      assert.deepEqual(warnings.map((w) => [w.code, w.call.direction]), Array(4).fill(['outbound_no_media', 'outbound']));
      assert.deepEqual(warnings.map((w) => w.call.callId).sort(), PLATFORMS.map((p) => placed[p]!.id).sort());
      assert.ok(warnings.every((w) => /publicUrl/.test(w.message)), warnings[0]?.message);
      // The platforms' last callbacks (hangup.json's) reached the server after the hang-ups.
      await waitFor(() => fake.finished.size === 4, "the platforms' last callbacks");
      assert.deepEqual(fake.errors, []);
    } finally {
      await app.close();
      await fake.close();
    }
  });

  test('one whose media connected is left alone', async () => {
    const { fake, open, connected } = await connecting();
    const port = await freePort();
    const lines: string[] = [];
    const { app, outbound } = await instance({ fake, port, publicUrl: `http://127.0.0.1:${port}`, lines, mediaWaitMs: 300 });
    try {
      const call = await outbound.placeCall({ to: PERSON, platform: 'twilio' });
      await waitFor(connected, 'the media connected');
      await waitFor(() => lines.some((l) => l.startsWith(`outbound call ${call.id}: its media connected`)), 'the watchdog looked', 10_000, () => lines.join('\n'));
      assert.equal(fake.hangups.length, 0, 'not hung up');
      assert.equal(outbound.get(call.id)?.hangUpRequested, undefined);
      assert.equal(outbound.get(call.id)?.outcome, undefined, 'still live');
    } finally {
      for (const ws of open) ws.terminate();
      await app.close();
      await fake.close();
    }
  });
});

describe('on a cluster (Redis)', () => {
  let redis: TestRedis;
  const conns: Redis[] = [];
  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    for (const c of conns) c.disconnect();
    await redis?.stop();
  });
  const conn = () => {
    const c = new Redis(redis.url);
    conns.push(c);
    return c;
  };

  test("media that reached another instance: the placing instance's drain says so, and nothing is hung up", async () => {
    const { fake, open, connected } = await connecting();
    const portB = await freePort();
    const linesA: string[] = [];
    const linesB: string[] = [];
    const b = await instance({ fake, port: portB, publicUrl: `http://127.0.0.1:${portB}`, lines: linesB, ledger: new RedisTokenLedger(conn()), redis: conn() });
    // A hands the platform B's address, as a load balancer in front of both would: the callbacks and the media reach B.
    const a = await instance({ fake, port: await freePort(), publicUrl: `http://127.0.0.1:${portB}`, lines: linesA, ledger: new RedisTokenLedger(conn()), redis: conn() });
    try {
      const call = await a.outbound.placeCall({ to: PERSON, platform: 'twilio' });
      await waitFor(() => connected() && a.outbound.get(call.id)?.status === 'answered', 'answered (A learnt it through Redis), its media on B', 20_000);
      // A drains before its own watchdog looks (mediaWaitMs, 5 s): the drain's bound asks what became of the media.
      await a.app.drain(200);
      const log = linesA.join('\n');
      assert.match(log, new RegExp(`drain: the media of 1 answered call\\(s\\) connected to another instance \\(twilio:${call.id}\\)`));
      assert.doesNotMatch(log, /no media came/);
      assert.equal(fake.hangups.length, 0, 'not hung up');
      assert.equal((await b.outbound.lookup(call.id))?.hangUpRequested, undefined);
    } finally {
      for (const ws of open) ws.terminate();
      await a.app.close();
      await b.app.close();
      await fake.close();
    }
  });

  test('the placing instance drains without waiting out the media bound: it asks the ledger and stops waiting once the media is known to be elsewhere', async () => {
    const { fake, open, connected } = await connecting();
    const portB = await freePort();
    const linesA: string[] = [];
    const b = await instance({ fake, port: portB, publicUrl: `http://127.0.0.1:${portB}`, lines: [], ledger: new RedisTokenLedger(conn()), redis: conn() });
    // A's own watchdog would look only after a minute: what ends its wait is the drain's own check.
    const a = await instance({ fake, port: await freePort(), publicUrl: `http://127.0.0.1:${portB}`, lines: linesA, ledger: new RedisTokenLedger(conn()), redis: conn(), mediaWaitMs: 60_000 });
    try {
      const call = await a.outbound.placeCall({ to: PERSON, platform: 'twilio' });
      await waitFor(() => connected(), 'its media connected to B', 20_000);
      // A long drain limit: before, A waited the whole media bound (5 s after the answer, or the
      // ring timeout for an answer it had not heard of) and only then asked what became of it.
      await a.app.drain(120_000);
      const log = linesA.join('\n');
      assert.match(log, new RegExp(`drain: the media of 1 call\\(s\\) connected to another instance \\(twilio:${call.id}\\); not waiting for it here \\(the shared ledger has its token spent\\)`), log);
      assert.doesNotMatch(log, /no media came|still ringing/, 'stopped waiting on the ledger, not at the bound');
      assert.equal(fake.hangups.length, 0, 'not hung up');
      assert.equal(fake.cancels.length, 0, 'not cancelled as ringing');
    } finally {
      for (const ws of open) ws.terminate();
      await a.app.close();
      await b.app.close();
      await fake.close();
    }
  });
});

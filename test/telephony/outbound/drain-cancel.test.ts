/**
 * A drain whose bound passes while calls it placed still ring: each is hung up with its
 * platform (Twilio, Telnyx, Plivo, Vonage: the cancel request each documents, checked against
 * the fake platforms' literal fixtures), recorded `canceled` at once, and a campaign counts it
 * as `canceled-draining`; a call that no longer rings is said so, not cancelled.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { CAMPAIGN_DEFAULTS } from '../../../src/campaign/schedule.ts';
import { CallManager } from '../../../src/server/calls.ts';
import { ServerMetrics } from '../../../src/server/metrics.ts';
import { CallTokens } from '../../../src/server/tokens.ts';
import { createLogger } from '../../../src/session/logger.ts';
import { outboundDialer } from '../../../transports/telephony/campaign/dialer.ts';
import { OutboundCalls, type OutboundPlatformName } from '../../../transports/telephony/index.ts';
import { platformFixture } from '../fixture-files.ts';
import { waitFor } from '../serve.ts';
import { platformClients } from './clients.ts';
import { FakePlatforms, testKeys } from './fake-platforms.ts';

const FROM = '+966110000000';
const RINGS = '+966500000001';
/** Telnyx only: this phone stops ringing unanswered before the drain, and hiwar never hears of it. */
const GONE = '+966500000009';

test('a drain out of time hangs up the calls it placed that still ring, on each platform, and a campaign counts them as canceled-draining', async () => {
  const keys = testKeys();
  let ringing = 0;
  const fake = await new FakePlatforms(keys, {
    scenario: () => 'no-answer',
    // Each phone rings until it is cancelled, except GONE's, which stops at once.
    ringing: (to) => (ringing++, to === GONE ? Promise.resolve() : new Promise<void>(() => {})),
    onMedia: async () => assert.fail('no call is answered'),
  }).start();
  // Where the platforms' callbacks go: a server that takes them and tells hiwar nothing (as one already stopping).
  const sink: Server = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', () => r()));
  const base = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  const lines: string[] = [];
  const logger = createLogger('info', { write: (l: string) => void lines.push(JSON.parse(l).msg) });
  const host = new CallManager({ sessions: () => assert.fail('no call runs here'), metrics: new ServerMetrics(), logger, publicUrl: () => base });
  const calls = new OutboundCalls(
    { tokens: new CallTokens(), host, logger },
    {
      platforms: platformClients(keys, fake.url),
      from: FROM,
      ringTimeoutS: 30,
    },
  );
  const urls = (id: string) => ({ stream: `ws://127.0.0.1:1/stream/${id}`, answer: `${base}/answer/${id}`, status: `${base}/status/${id}`, after: `${base}/after/${id}` });
  // As a campaign dials: through its dialler, one attempt per platform.
  const placer = { placeCall: (req: Parameters<OutboundCalls['place']>[0]) => calls.place(req, urls), outcome: (id: string, o?: { session?: boolean }) => calls.outcome(id, o) };
  const platforms: OutboundPlatformName[] = ['twilio', 'telnyx', 'plivo', 'vonage'];
  try {
    const results = platforms.map((platform, index) => outboundDialer(placer, { platform }).dial({ campaignId: 'c', index, attempt: 1, dialId: `c:${index}:1`, contact: { number: RINGS, variables: {} } }));
    const gone = await calls.place({ to: GONE, platform: 'telnyx' }, urls);
    await waitFor(() => ringing === 5 && fake.finished.size === 1, 'every phone rang (and GONE stopped)');
    assert.deepEqual(host.waitingFor().ringing.length, 5, 'the drain would wait for each (GONE: hiwar never heard it stopped)');

    await host.drain(300);

    // One cancel request per ringing call, as each platform documents it.
    const byPlatform = Object.fromEntries(fake.cancels.map((r) => [r.platform, r]));
    assert.deepEqual(Object.keys(byPlatform).sort(), ['plivo', 'telnyx', 'twilio', 'vonage'], 'every ringing call was cancelled, GONE was not');
    assert.equal(fake.cancels.length, 4);
    const placed = Object.fromEntries(await Promise.all(platforms.map(async (p, i) => [p, (await calls.byReference(`c:${i}:1`))!] as const)));
    const doc = (p: string) => platformFixture(p, 'cancel.json').request;
    const path = (p: OutboundPlatformName) =>
      doc(p)
        .path.replace('{AccountSid}', keys.twilio.accountSid)
        .replace('{auth_id}', keys.plivo.authId)
        .replace(/\{(Sid|call_control_id|call_uuid|uuid)\}/, placed[p]!.platformCallId!);
    for (const p of platforms) {
      const r = byPlatform[p]!;
      assert.equal(r.method, doc(p).method, `${p}: the documented method`);
      assert.equal(decodeURIComponent(r.path), path(p), `${p}: the documented path, with the call's id (Plivo: its request_uuid)`);
      if (doc(p).contentType) assert.equal(r.headers['content-type'], doc(p).contentType, `${p}: the documented body type`);
    }
    assert.equal(byPlatform.twilio!.raw, doc('twilio').body);
    assert.deepEqual(byPlatform.telnyx!.json, doc('telnyx').body);
    assert.deepEqual(byPlatform.vonage!.json, doc('vonage').body);
    assert.equal(byPlatform.plivo!.raw, '', 'a DELETE with no arguments');

    // Recorded at once (the stopping server took none of the platforms' callbacks), and told apart from a callee's cancel.
    for (const p of platforms) {
      const c = placed[p]!;
      assert.equal(c.outcome, 'canceled', `${p}: cancelled`);
      assert.equal(c.cancelRequested, 'draining');
      assert.match(c.rawStatus!, /server draining/);
    }
    const outcomes = await Promise.all(results);
    assert.deepEqual(
      outcomes.map((r) => r.outcome),
      ['canceled-draining', 'canceled-draining', 'canceled-draining', 'canceled-draining'],
      "the campaign's outcome for each",
    );
    assert.ok(CAMPAIGN_DEFAULTS.retryOn.includes('canceled-draining'), 'retried by default: the person never chose');
    // GONE was over on the platform (Telnyx answered 422): not cancelled, and said so.
    assert.equal((await calls.lookup(gone.id))!.outcome, undefined, 'no outcome invented for it');
    const log = lines.join('\n');
    assert.match(log, /drain: 4 placed call\(s\) still ringing when the drain stopped waiting, cancelled with their platform \(twilio:out-[\w-]+, telnyx:out-[\w-]+, plivo:out-[\w-]+, vonage:out-[\w-]+\)/);
    assert.match(log, new RegExp(`drain: 1 placed call\\(s\\) still ringing when the drain stopped waiting were not cancelled \\(telnyx:${gone.id}: no longer ringing`));
    assert.deepEqual(host.waitingFor().ringing, [], 'no longer awaited');
    // The platforms' callbacks for the cancelled calls went out (cancel.json's), to the stopping server.
    await waitFor(() => fake.finished.size === 5, "the platforms' last callbacks");
    assert.deepEqual(fake.errors, []);
  } finally {
    await calls.close();
    await fake.close();
    await new Promise((r) => sink.close(r));
  }
});

test("Twilio's cancel leaves a call answered meanwhile alone, and hiwar does not record it cancelled", async () => {
  const keys = testKeys();
  let answered!: () => void;
  const media = new Promise<void>((r) => (answered = r));
  let hangUp!: () => void;
  const fake = await new FakePlatforms(keys, {
    scenario: () => 'answer',
    // Answered at once; the test holds the stream open until it has asked for the cancel.
    onMedia: () => (answered(), new Promise<void>((r) => (hangUp = r))),
  }).start();
  // Where the callbacks go: nowhere that tells hiwar (it still has the call as placed).
  const sink: Server = createServer((req, res) => req.resume().on('end', () => res.writeHead(204).end()));
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', () => r()));
  const base = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
  const calls = new OutboundCalls({ tokens: new CallTokens() }, { platforms: platformClients(keys, fake.url), from: FROM });
  try {
    const c = await calls.place({ to: RINGS, platform: 'twilio' }, (id) => ({ stream: `ws://127.0.0.1:1/stream/${id}`, answer: `${base}/a`, status: `${base}/s`, after: `${base}/after` }));
    await media;
    assert.equal(await calls.cancel(c.id, 'draining'), false, 'Twilio answered the resource in-progress');
    assert.equal(fake.cancels.length, 0);
    const now = (await calls.lookup(c.id))!;
    assert.equal(now.outcome, undefined, 'not cancelled');
  } finally {
    hangUp?.();
    await calls.close();
    await fake.close();
    await new Promise((r) => sink.close(r));
  }
});

test("a call answered during a drain whose media has not come when the drain's limit passes: named as answered with no media, not hung up as ringing", async () => {
  const keys = testKeys();
  let answer!: () => void;
  const rang = new Promise<void>((ringing) => (answer = ringing));
  let pickUp!: () => void;
  let endMedia!: () => void;
  const media = new Promise<void>((r) => (endMedia = r));
  let mediaAsked = false;
  const fake = await new FakePlatforms(keys, {
    scenario: () => 'answer',
    // Rings until the drain has begun, then is answered; its media does not connect before the drain's limit.
    ringing: () => new Promise<void>((r) => ((pickUp = r), answer())),
    onMedia: () => ((mediaAsked = true), media),
  }).start();
  const lines: string[] = [];
  const logger = createLogger('info', { write: (l: string) => void lines.push(JSON.parse(l).msg) });
  const host = new CallManager({ sessions: () => assert.fail('no call runs here'), metrics: new ServerMetrics(), logger, publicUrl: () => 'http://127.0.0.1' });
  const calls = new OutboundCalls({ tokens: new CallTokens(), host, logger }, { platforms: platformClients(keys, fake.url), from: FROM, ringTimeoutS: 30 });
  // The platform's status callbacks reach the calls as the status route hands them on.
  const callbacks: Server = createServer(async (req, res) => {
    const form = new URLSearchParams(await new Response(req as unknown as ReadableStream).text());
    await calls.report(req.url!.split('/').pop()!, 'twilio', Object.fromEntries(form));
    res.writeHead(204).end();
  });
  await new Promise<void>((r) => callbacks.listen(0, '127.0.0.1', () => r()));
  const base = `http://127.0.0.1:${(callbacks.address() as AddressInfo).port}`;
  try {
    const c = await calls.place({ to: RINGS, platform: 'twilio' }, (id) => ({ stream: `ws://127.0.0.1:1/stream/${id}`, answer: `${base}/answer/${id}`, status: `${base}/status/${id}`, after: `${base}/after/${id}` }));
    await rang;
    const drain = host.drain(3_000);
    pickUp();
    await waitFor(() => calls.get(c.id)?.status === 'answered' && mediaAsked, 'the callee answered during the drain');
    assert.deepEqual(host.waitingFor().media, [`twilio:${c.id}`], 'the drain waits for its media');
    await drain;
    assert.equal(fake.cancels.length, 0, 'no cancel went to the platform');
    assert.ok(lines.some((l) => l.includes(`no media came for 1 answered call(s) (twilio:${c.id})`)), lines.join('\n'));
    assert.ok(!lines.some((l) => /no longer ringing|still ringing when the drain stopped/.test(l)), lines.join('\n'));
    assert.equal(calls.get(c.id)?.outcome, undefined, 'not recorded cancelled');
  } finally {
    endMedia();
    await calls.close();
    await fake.close();
    callbacks.closeAllConnections();
    await new Promise((r) => callbacks.close(r));
  }
});

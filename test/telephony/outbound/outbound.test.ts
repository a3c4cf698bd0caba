/**
 * Placing calls through each platform's REST API, end to end: `POST /calls` on a composed agent
 * server → the platform's REST request (asserted field by field) → the fake platform's signed
 * status callbacks → the answered call's media stream to the telephony routes, where a scripted
 * far end says "ألو، نعم أنا" after the agent greeted with the call's variable → hang-up →
 * `completed` with the platform's duration. Then the other outcomes, refusals and forgeries.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import callCentre from '../../../agents/call-centre/index.ts';
import { createAgentServer, type AgentServerApp } from '../../../src/server/index.ts';
import type { Agent } from '../../../src/session/agent.ts';
import type { SessionEvent } from '../../../src/session/events.ts';
import { createLogger } from '../../../src/session/logger.ts';
import { SteadyScaledClock } from '../../../src/testing/steady-clock.ts';
import type { Transport } from '../../../src/transport/types.ts';
import { outboundCalls, telephonyRoutes, twilioOutbound, type Outbound, type OutboundCall } from '../../../transports/telephony/index.ts';
import { pad, runSandbox, voiced, type Running } from '../../helpers/sandbox.ts';
import { FarEnd } from '../far-end.ts';
import { waitFor } from '../serve.ts';
import { platformClients } from './clients.ts';
import { FakePlatforms, testKeys, type MediaLeg, type Scenario } from './fake-platforms.ts';
import { within } from '../../helpers/deadline.ts';

delete process.env.HIWAR_API_KEY;

const SECRET = 'calls-secret-for-the-test-0123456789';
const FROM = '+966110000000';
const PERSON = '+966500000001';
const NUMBERS: Record<string, Scenario> = { '+966500000002': 'busy', '+966500000003': 'no-answer', '+966500000004': 'failed' };
const PLATFORMS = ['twilio', 'telnyx', 'plivo', 'vonage'] as const;
const keys = testKeys();
// The stall-free clock, as every whole call in a test's process (docs/testing.md).
const clock = new SteadyScaledClock(2);

interface Tracked {
  transport: Transport;
  events: SessionEvent[];
  ended: boolean;
}

const agent: Agent = {
  ...callCentre,
  greeting: 'مرحبًا {name}، معك سارة من بنك الواحة.',
  // A loaded machine can make the sandbox's first synthesis slow: this test is about the call's path.
  voice: { ...callCentre.voice, firstAudioTimeoutMs: 20_000 },
};

describe('outbound calls through the four platforms', () => {
  let sandbox: Running;
  let fake: FakePlatforms;
  let outbound: Outbound;
  let app: AgentServerApp;
  let url: string;
  const tracked = new Map<string, Tracked>();
  const hello: Record<number, Int16Array> = {};

  /** The platform's far end of an answered call: waits for the greeting, answers, hangs up. */
  async function farEnd(leg: MediaLeg): Promise<void> {
    const far = new FarEnd(leg.streamUrl, leg.protocol, clock);
    await far.start();
    let call: Tracked | undefined;
    // One answered call at a time: the platform's running one (Vonage's stream names hiwar's id, not its own).
    await waitFor(() => !!(call = [...tracked.values()].find((c) => c.transport.call.provider === leg.platform && !c.ended)), `the ${leg.platform} call's session started`);
    await waitFor(() => call!.events.some((e) => e.type === 'agent_turn'), 'the greeting was played');
    await far.say(hello[leg.protocol.rate]!);
    await waitFor(() => call!.events.some((e) => e.type === 'user_turn' && /نعم/.test(e.text)), 'the person was heard');
    far.hangup();
    await waitFor(() => call!.ended, 'the call ended on the server');
  }

  before(async () => {
    sandbox = await runSandbox();
    for (const rate of [8000, 16000]) hello[rate] = pad(await voiced(sandbox.client, 'ألو، نعم أنا', rate), rate, 0.2, 1.0);
    fake = await new FakePlatforms(keys, { scenario: (to) => NUMBERS[to] ?? 'answer', onMedia: farEnd, durationS: 12 }).start();
    const signing = { twilio: keys.twilio.authToken, telnyx: keys.telnyx.publicKey, plivo: keys.plivo.authToken, vonage: keys.vonage.signatureSecret };
    outbound = outboundCalls({
      platforms: platformClients(keys, fake.url),
      secret: SECRET,
      from: FROM,
      secrets: signing,
    });
    app = await createAgentServer({
      agent,
      client: sandbox.client,
      clock,
      logger: createLogger('silent'),
      onCallEnded: (call) => {
        const c = tracked.get(call.callId);
        if (c) c.ended = true;
      },
      // Closed, as in production: every webhook of the platforms is signed with the test keys.
      plugins: [telephonyRoutes({ media: { clock }, secrets: signing }), outbound.routes],
      wrapSessions: (inner) => async (t) => {
        const s = await inner(t);
        const c: Tracked = { transport: t, events: [], ended: false };
        tracked.set(t.call.callId, c);
        s.events$.subscribe((e) => c.events.push(e));
        return s;
      },
    });
    url = (await app.listen({ port: 0 })).url;
  });
  after(async () => {
    await app?.close();
    await fake?.close();
    await sandbox?.close();
    clock.stop();
  });

  const place = (body: unknown, secret = SECRET) =>
    fetch(`${url}/calls`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const placed = async (body: unknown): Promise<OutboundCall> => {
    const res = await place(body);
    const json = (await res.json()) as OutboundCall & { error?: string };
    assert.equal(res.status, 201, json.error);
    return json;
  };
  const lastRequest = (platform: string) => fake.received.filter((r) => r.platform === platform).at(-1)!;
  const base = () => url.replace('http://', '');

  for (const platform of PLATFORMS) {
    test(`${platform}: dial → answer → the agent greets with the variable → the person answers → hang-up → completed`, async () => {
      const call = await placed({ to: PERSON, platform, variables: { name: 'خالد', due: '١٥ مارس' } });
      assert.match(call.id, /^out-/);
      assert.equal(call.status, 'queued');
      assert.ok(call.platformCallId, 'the platform id from its answer');
      assertRequest(platform, lastRequest(platform), keys, base());

      const done = await settled(outbound, call.id, () => fake.errors);
      assert.equal(done.outcome, 'completed');
      // Telnyx's hangup event carries no answered time: the duration is measured from its callbacks.
      if (platform === 'telnyx') assert.ok(done.durationS! >= 1 && done.durationS! < 300, `measured ${done.durationS} s`);
      else assert.equal(done.durationS, 12, "the platform's duration");
      assert.ok(done.answeredAt && done.endedAt);
      const session = tracked.get(call.id)!;
      assert.equal(session.transport.call.direction, 'outbound');
      assert.equal(session.transport.call.provider, platform);
      assert.equal(session.transport.call.parameters.name, 'خالد', 'the variable reached ctx.call.info.parameters');
      assert.equal(session.transport.call.parameters.due, '١٥ مارس');
      // A call Telnyx placed (Call Control) never asks TeXML's after-stream URL: no built-in transfer, the agent's tool is told.
      assert.equal(typeof session.transport.transfer, platform === 'telnyx' ? 'undefined' : 'function');
      const greeting = session.events.find((e) => e.type === 'agent_turn') as Extract<SessionEvent, { type: 'agent_turn' }>;
      assert.equal(greeting.text, 'مرحبًا خالد، معك سارة من بنك الواحة.');
      assert.ok(session.events.some((e) => e.type === 'user_turn' && /نعم/.test(e.text)));
      for (const c of fake.callbacks.filter((x) => x.platform === platform)) assert.ok(c.answered === 204 || c.answered === 200, `${c.status} answered ${c.answered}`);

      const got = await fetch(`${url}/calls/${call.id}`, { headers: { authorization: `Bearer ${SECRET}` } });
      assert.equal(got.status, 200);
      const record = (await got.json()) as OutboundCall;
      assert.equal(record.outcome, 'completed');
      assert.equal(record.variables.name, 'خالد');
      assert.ok(record.rawStatus);
      if (platform === 'twilio') assert.match(fake.afterAnswers.at(-1)!, /<Hangup\/>/, 'the <Connect action> hangs up once the agent let go');
    });
  }

  test('busy, no answer and failed come back as typed outcomes on every platform, with the raw status kept', async () => {
    const raw: Record<string, Record<Scenario, RegExp>> = {
      twilio: { busy: /^busy$/, 'no-answer': /^no-answer$/, failed: /^failed$/, answer: /./ },
      telnyx: { busy: /^user_busy$/, 'no-answer': /^timeout$/, failed: /^unspecified$/, answer: /./ },
      plivo: { busy: /^busy$/, 'no-answer': /^no-answer$/, failed: /^failed$/, answer: /./ },
      vonage: { busy: /^busy$/, 'no-answer': /^timeout$/, failed: /^failed$/, answer: /./ },
    };
    for (const platform of PLATFORMS) {
      for (const [to, scenario] of Object.entries(NUMBERS)) {
        const call = await placed({ to, platform, variables: { name: 'منى' } });
        const done = await settled(outbound, call.id, () => fake.errors);
        assert.equal(done.outcome, scenario, `${platform} ${scenario}`);
        assert.match(done.rawStatus ?? '', raw[platform]![scenario], `${platform} raw status ${done.rawStatus}`);
        assert.equal(done.answeredAt, undefined);
        assert.equal(tracked.has(call.id), false, 'no media, no session');
      }
    }
  });

  test('a status callback with a bad signature is refused and changes nothing', async () => {
    for (const platform of PLATFORMS) {
      const call = await placed({ to: NUMBERS_BY['busy'], platform, variables: { name: 'منى' } });
      await settled(outbound, call.id, () => fake.errors);
      const r = lastRequest(platform);
      const statusUrl = platform === 'twilio' ? r.form!.get('StatusCallback')! : platform === 'telnyx' ? r.json.webhook_url : platform === 'plivo' ? r.json.hangup_url : r.json.event_url[0];
      const fields = platform === 'vonage' ? { uuid: call.platformCallId, status: 'completed', duration: '99' } : platform === 'telnyx' ? { data: { event_type: 'call.answered', payload: {} } } : { CallSid: 'x', CallUUID: 'x', CallStatus: 'completed', CallDuration: '99', Duration: '99' };
      const forged = await fake.callback(platform, statusUrl, 'forged', fields, { form: platform === 'twilio' || platform === 'plivo', forge: true });
      assert.equal(forged.status, 403, `${platform}: forged signature refused`);
      assert.equal(outbound.get(call.id)!.outcome, 'busy', 'the outcome stands');
      // A well-signed callback whose token was tampered with names no call.
      const tampered = statusUrl.replace(/\/([^/]+)$/, (_: string, t: string) => `/${t.slice(0, -2)}xx`);
      const res = await fetch(tampered, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      assert.equal(res.status, 401);
    }
  });

  test('a missing variable is refused before dialling, naming it; nothing reaches the platform', async () => {
    const before = fake.received.length;
    const res = await place({ to: PERSON, platform: 'twilio', variables: { nom: 'x' } });
    assert.equal(res.status, 400);
    assert.match(((await res.json()) as { error: string }).error, /missing call variable: name .*\{name\}/);
    assert.equal(fake.received.length, before, 'nothing was dialled');
  });

  test('the calls API: bearer secret required, bad requests explained, platform refusals reported without credentials', async () => {
    assert.equal((await place({ to: PERSON, platform: 'twilio', variables: { name: 'x' } }, 'wrong')).status, 401);
    const noAuth = await fetch(`${url}/calls`, { method: 'POST', body: '{}' });
    assert.equal(noAuth.status, 401);
    assert.equal((await fetch(`${url}/calls/out-nothing`, { headers: { authorization: `Bearer ${SECRET}` } })).status, 404);
    assert.equal((await fetch(`${url}/calls/out-nothing`)).status, 401);
    // GET /calls without Accept: text/html is neither route: said, with where the recorded calls are.
    const list = await fetch(`${url}/calls`, { headers: { authorization: `Bearer ${SECRET}` } });
    assert.equal(list.status, 405);
    assert.match(((await list.json()) as { error: string }).error, /POST \/calls or GET \/calls\/:id; the list of recorded calls .* Accept: text\/html and HIWAR_REVIEW_SECRET, and one call as JSON at \/calls\/<id>\/review\.json/);
    for (const [body, why] of [
      [{ to: '0500000001', platform: 'twilio' }, /E\.164/],
      [{ to: PERSON, platform: 'exotel' }, /not configured/],
      [{ to: PERSON }, /several platforms/],
      [{ to: PERSON, platform: 'twilio', variables: { '1x': 'a', name: 'b' } }, /variable name "1x"/],
    ] as const) {
      const res = await place(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.match(((await res.json()) as { error: string }).error, why);
    }
    // The fake Twilio refuses a number too short for it, with its documented error.
    const refused = await place({ to: '+96650000', platform: 'twilio', variables: { name: 'x' } });
    assert.equal(refused.status, 502);
    const text = await refused.text();
    assert.match(text, /twilio refused the call \(HTTP 400\): The 'To' number/);
    assert.ok(!text.includes(keys.twilio.authToken), 'no credential in the message');
  });

  test('without HIWAR_CALLS_SECRET the calls API is closed, even on a server started open', async () => {
    const saved = process.env.HIWAR_CALLS_SECRET;
    delete process.env.HIWAR_CALLS_SECRET;
    const closed = outboundCalls({ platforms: { twilio: twilioOutbound({ ...keys.twilio, baseUrl: fake.url }) }, from: FROM });
    const other = await createAgentServer({ agent, client: sandbox.client, open: true, logger: createLogger('silent'), plugins: [telephonyRoutes(), closed.routes] });
    try {
      const { url: u } = await other.listen({ port: 0 });
      const before = fake.received.length;
      const res = await fetch(`${u}/calls`, { method: 'POST', headers: { authorization: 'Bearer anything' }, body: JSON.stringify({ to: PERSON, variables: { name: 'x' } }) });
      assert.equal(res.status, 403);
      // Both ways to open it: hiwar serve's variable, and the option of a server of one's own.
      assert.equal(((await res.json()) as { error: string }).error, 'the calls API is closed: set HIWAR_CALLS_SECRET (in your own server: outboundCalls({ secret }))');
      assert.equal(fake.received.length, before);
    } finally {
      await other.close();
      if (saved !== undefined) process.env.HIWAR_CALLS_SECRET = saved;
    }
  });
});

/** The call's final record; fails (instead of waiting for ever) when the platform's last callback never came. */
async function settled(outbound: Outbound, id: string, explain: () => string[] = () => [], ms = 150_000): Promise<OutboundCall> {
  return within(outbound.outcome(id), ms, () => `no outcome for ${id} within ${ms} ms of the machine's time: ${JSON.stringify(outbound.get(id))} ${explain().join('; ')}`);
}

const NUMBERS_BY = Object.fromEntries(Object.entries(NUMBERS).map(([n, s]) => [s, n])) as Record<Exclude<Scenario, 'answer'>, string>;

/** The REST request each platform's documentation asks for, field by field. */
function assertRequest(platform: string, r: import('./fake-platforms.ts').Received, k: ReturnType<typeof testKeys>, host: string): void {
  const token = /^[\w-]{40,}$/; // sealed claims: one opaque base64url string
  const path = (u: string) => new URL(u).pathname.split('/');
  if (platform === 'twilio') {
    assert.equal(r.method, 'POST');
    assert.equal(r.headers.authorization, `Basic ${Buffer.from(`${k.twilio.accountSid}:${k.twilio.authToken}`).toString('base64')}`);
    assert.match(String(r.headers['content-type']), /^application\/x-www-form-urlencoded/);
    const f = r.form!;
    assert.deepEqual([...new Set(f.keys())].sort(), ['From', 'StatusCallback', 'StatusCallbackEvent', 'StatusCallbackMethod', 'Timeout', 'To', 'Twiml']);
    assert.equal(f.get('To'), PERSON);
    assert.equal(f.get('From'), FROM);
    assert.equal(f.get('Timeout'), '30');
    assert.equal(f.get('StatusCallbackMethod'), 'POST');
    assert.deepEqual(f.getAll('StatusCallbackEvent'), ['initiated', 'ringing', 'answered', 'completed']);
    assert.equal(new URL(f.get('StatusCallback')!).host, host);
    assert.deepEqual(path(f.get('StatusCallback')!).slice(1, 4), ['outbound', 'twilio', 'status']);
    const twiml = f.get('Twiml')!;
    assert.match(twiml, new RegExp(`^<Response><Connect action="http://${host}/telephony/twilio/after/[\\w.-]+"><Stream url="ws://${host}/telephony/twilio/stream/[\\w.-]+">`));
    assert.match(twiml, /<Parameter name="name" value="خالد"\/><Parameter name="due" value="١٥ مارس"\/><Parameter name="From" value="\+966110000000"\/><Parameter name="To" value="\+966500000001"\/><\/Stream><\/Connect><\/Response>$/);
  }
  if (platform === 'telnyx') {
    assert.equal(r.headers.authorization, `Bearer ${k.telnyx.apiKey}`);
    assert.match(String(r.headers['content-type']), /^application\/json/);
    const j = r.json;
    assert.deepEqual(Object.keys(j).sort(), ['client_state', 'connection_id', 'from', 'stream_bidirectional_codec', 'stream_bidirectional_mode', 'stream_track', 'stream_url', 'timeout_secs', 'to', 'webhook_url', 'webhook_url_method']);
    assert.equal(j.connection_id, k.telnyx.connectionId);
    assert.equal(j.to, PERSON);
    assert.equal(j.from, FROM);
    assert.equal(j.timeout_secs, 30);
    assert.equal(j.stream_track, 'inbound_track');
    assert.equal(j.stream_bidirectional_mode, 'rtp');
    assert.equal(j.stream_bidirectional_codec, 'PCMU');
    assert.equal(j.webhook_url_method, 'POST');
    assert.match(Buffer.from(j.client_state, 'base64').toString(), /^out-/);
    assert.match(path(j.stream_url).at(-1)!, token);
    assert.ok(j.stream_url.startsWith(`ws://${host}/telephony/telnyx/stream/`));
    assert.ok(j.webhook_url.startsWith(`http://${host}/outbound/telnyx/status/`));
  }
  if (platform === 'plivo') {
    assert.equal(r.headers.authorization, `Basic ${Buffer.from(`${k.plivo.authId}:${k.plivo.authToken}`).toString('base64')}`);
    const j = r.json;
    assert.deepEqual(Object.keys(j).sort(), ['answer_method', 'answer_url', 'from', 'hangup_method', 'hangup_url', 'ring_method', 'ring_timeout', 'ring_url', 'to']);
    assert.equal(j.to, PERSON.slice(1), 'Plivo numbers carry no +');
    assert.equal(j.from, FROM.slice(1));
    assert.equal(j.ring_timeout, 30);
    assert.equal(j.answer_method, 'POST');
    assert.ok(j.answer_url.startsWith(`http://${host}/outbound/plivo/answer/`));
    assert.ok(j.hangup_url.startsWith(`http://${host}/outbound/plivo/status/`));
    assert.equal(j.ring_url, j.hangup_url);
  }
  if (platform === 'vonage') {
    const jwt = /^Bearer (.+)$/.exec(String(r.headers.authorization))![1]!;
    const [head, claims] = jwt.split('.').slice(0, 2).map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()));
    assert.equal(head.alg, 'RS256');
    assert.equal(claims.application_id, k.vonage.applicationId);
    assert.ok(claims.iat && claims.jti && claims.exp > claims.iat);
    const j = r.json;
    assert.deepEqual(Object.keys(j).sort(), ['event_method', 'event_url', 'from', 'ncco', 'ringing_timer', 'to']);
    assert.deepEqual(j.to, [{ type: 'phone', number: PERSON.slice(1) }]);
    assert.deepEqual(j.from, { type: 'phone', number: FROM.slice(1) });
    assert.equal(j.ringing_timer, 30);
    assert.equal(j.event_method, 'POST');
    assert.ok(j.event_url[0].startsWith(`http://${host}/outbound/vonage/status/`));
    const c = j.ncco[0];
    assert.equal(c.action, 'connect');
    assert.equal(c.eventType, 'synchronous');
    assert.ok(c.eventUrl[0].startsWith(`http://${host}/telephony/vonage/event/`));
    assert.equal(c.endpoint[0].type, 'websocket');
    assert.equal(c.endpoint[0]['content-type'], 'audio/l16;rate=16000');
    assert.ok(c.endpoint[0].uri.startsWith(`ws://${host}/telephony/vonage/stream/`));
    assert.match(c.endpoint[0].headers.callId, /^out-/);
  }
}

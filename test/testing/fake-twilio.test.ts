/**
 * `hiwar/testing`'s fake Twilio: its wire format checked against the examples of Twilio's own
 * pages (copied below, each with its address), stray requests answered with a 404 instead of a
 * crash, the call's callbacks scripted by the phone (answer, busy, no-answer; cancel and hang-up
 * through the update request), and a whole placed call played against a real `createAgentServer`
 * with `outboundCalls`, as a user's test would.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import callCentre from '../../agents/call-centre/index.ts';
import { createAgentServer, type AgentServerApp } from '../../src/server/index.ts';
import { createLogger } from '../../src/session/logger.ts';
import { startFakeTwilio, type FakePhone, type FakeTwilio } from '../../src/testing/index.ts';
import { outboundCalls, telephonyRoutes, twilioOutbound } from '../../transports/telephony/index.ts';
import { runSandbox, type Running } from '../helpers/sandbox.ts';

/**
 * Twilio's "Create a Call resource" response (201), as its page shows it:
 * https://www.twilio.com/docs/voice/api/call-resource#create-a-call-resource
 */
const DOC_CREATED = {
  account_sid: 'ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX',
  annotation: null,
  answered_by: null,
  api_version: '2010-04-01',
  caller_name: null,
  date_created: 'Tue, 31 Aug 2010 20:36:28 +0000',
  date_updated: 'Tue, 31 Aug 2010 20:36:44 +0000',
  direction: 'outbound-api',
  duration: null,
  end_time: null,
  forwarded_from: null,
  from: '+14155551212',
  from_formatted: '(415) 555-1212',
  group_sid: null,
  parent_call_sid: null,
  phone_number_sid: 'PNXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX',
  price: null,
  price_unit: 'USD',
  sid: 'CAXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX',
  start_time: null,
  status: 'queued',
  subresource_uris: {
    notifications: '/2010-04-01/Accounts/ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX/Calls/CAXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX/Notifications.json',
    recordings: '/2010-04-01/Accounts/ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX/Calls/CAXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX/Recordings.json',
  },
  to: '+14155551212',
  to_formatted: '(415) 555-1212',
  trunk_sid: null,
  uri: '/2010-04-01/Accounts/ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX/Calls/CAXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX.json',
  queue_time: '1000',
};

/** Twilio's error body, as "Twilio's response" shows it: https://www.twilio.com/docs/usage/twilios-response#response-formats-exceptions */
const DOC_ERROR = { code: 20404, message: 'The requested resource /2010-04-01/Accounts/ACXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX/Calls/CA123.json was not found', more_info: 'https://www.twilio.com/docs/errors/20404', status: 404 };

/** The call statuses of the Call resource's page (https://www.twilio.com/docs/voice/api/call-resource#call-status-values). */
const DOC_STATUSES = ['queued', 'ringing', 'in-progress', 'canceled', 'completed', 'failed', 'busy', 'no-answer'];

const SID = 'AC0123456789abcdef0123456789abcdef';
const TOKEN = 'test-token';
const auth = `Basic ${Buffer.from(`${SID}:${TOKEN}`).toString('base64')}`;
const typeOf = (v: unknown) => (v === null ? 'null' : typeof v);

/** A server of the test's own taking status callbacks (204), to see what the fake sends. */
let hooks: Server;
let hookUrl = '';
const received: URLSearchParams[] = [];
before(async () => {
  hooks = createServer(async (req, res) => {
    received.push(new URLSearchParams(await new Response(req as unknown as ReadableStream).text()));
    res.writeHead(204).end();
  });
  await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', () => r()));
  hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/status`;
});
after(() => {
  hooks.closeAllConnections();
  hooks.close();
});

const dial = (fake: FakeTwilio, to: string, more: Record<string, string> = {}) => {
  const form = new URLSearchParams({ To: to, From: '+966110000000', Twiml: '<Response><Say>hi</Say></Response>', StatusCallback: hookUrl, ...more });
  for (const e of ['initiated', 'ringing', 'answered', 'completed']) form.append('StatusCallbackEvent', e);
  return fetch(`${fake.url}/2010-04-01/Accounts/${SID}/Calls.json`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' }, body: form });
};
const statusesOf = (sid: string) => received.filter((f) => f.get('CallSid') === sid).map((f) => f.get('CallStatus'));

test("the create request is answered with the Call resource of Twilio's page: its fields, their types, status queued", async () => {
  const fake = await startFakeTwilio({ accountSid: SID, authToken: TOKEN, phone: () => 'busy' });
  try {
    const res = await dial(fake, '+966500000001');
    assert.equal(res.status, 201);
    const body = (await res.json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), Object.keys(DOC_CREATED).sort(), 'the documented fields, no more, no fewer');
    for (const [k, v] of Object.entries(DOC_CREATED)) {
      if (['duration', 'end_time', 'start_time', 'price', 'forwarded_from', 'phone_number_sid'].includes(k)) assert.ok(['string', 'null'].includes(typeOf(body[k])), k);
      else assert.equal(typeOf(body[k]), typeOf(v), k);
    }
    assert.match(String(body.sid), /^CA[0-9a-f]{32}$/, 'a Call SID: CA and 32 hex digits, as the page\'s placeholder');
    assert.equal(body.status, 'queued');
    assert.ok(DOC_STATUSES.includes(String(body.status)));
    assert.equal(body.direction, 'outbound-api');
    assert.equal(body.uri, `/2010-04-01/Accounts/${SID}/Calls/${body.sid}.json`);
    assert.equal(body.to, '+966500000001');
    await fake.ended(String(body.sid));
    const req = fake.requests[0]!;
    assert.equal(req.method, 'POST');
    assert.equal(req.form.get('To'), '+966500000001', 'the request recorded with its form');
    assert.deepEqual(req.form.getAll('StatusCallbackEvent'), ['initiated', 'ringing', 'answered', 'completed']);
    assert.equal(req.authorized, true);
  } finally {
    await fake.close();
  }
});

test('a stray request, another account or wrong credentials is answered as Twilio answers: a JSON error, and the fake goes on serving', async () => {
  const fake = await startFakeTwilio({ accountSid: SID, authToken: TOKEN });
  try {
    const stray = await fetch(`${fake.url}/`);
    assert.equal(stray.status, 404);
    const body = (await stray.json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), Object.keys(DOC_ERROR).sort());
    assert.equal(body.code, DOC_ERROR.code);
    assert.equal(body.status, 404);
    assert.equal((await fetch(`${fake.url}/2010-04-01/Accounts/${SID}/Calls/CA123.json`, { headers: { authorization: auth } })).status, 404, 'a call never placed');
    assert.equal((await fetch(`${fake.url}/2010-04-01/Accounts/ACother/Calls.json`, { method: 'POST' })).status, 404, 'another account');
    const wrong = await fetch(`${fake.url}/2010-04-01/Accounts/${SID}/Calls.json`, { method: 'POST', headers: { authorization: `Basic ${Buffer.from(`${SID}:nope`).toString('base64')}` } });
    assert.equal(wrong.status, 401);
    assert.equal(((await wrong.json()) as { code: number }).code, 20003);
    const noTo = await fetch(`${fake.url}/2010-04-01/Accounts/${SID}/Calls.json`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' }, body: 'From=%2B966110000000' });
    assert.equal(noTo.status, 400);
    assert.equal((await dial(fake, '+966500000009')).status, 201, 'still serving after them all');
    assert.deepEqual(
      fake.requests.map((r) => r.status),
      [404, 404, 404, 401, 400, 201],
      'each recorded with its answer',
    );
  } finally {
    await fake.close();
  }
});

test('the phone scripts the callbacks: busy and no-answer after ringing; a cancel ends a ringing call, a hang-up an answered one', async () => {
  const fake = await startFakeTwilio({ accountSid: SID, authToken: TOKEN, ringMs: 50, talkMs: 600_000, phone: (to) => ({ '+966500000002': 'busy', '+966500000003': 'no-answer' } as Record<string, FakePhone>)[to] ?? 'answer' });
  const slow = await startFakeTwilio({ accountSid: SID, authToken: TOKEN, ringMs: 600_000 });
  try {
    const sidOf = async (r: Response) => ((await r.json()) as { sid: string }).sid;
    const busy = await sidOf(await dial(fake, '+966500000002'));
    const noAnswer = await sidOf(await dial(fake, '+966500000003'));
    assert.equal((await fake.ended(busy)).status, 'busy');
    assert.equal((await fake.ended(noAnswer)).status, 'no-answer');
    assert.deepEqual(statusesOf(busy), ['initiated', 'ringing', 'busy']);
    assert.deepEqual(statusesOf(noAnswer), ['initiated', 'ringing', 'no-answer']);

    const update = (f: FakeTwilio, sid: string, status: string) =>
      fetch(`${f.url}/2010-04-01/Accounts/${SID}/Calls/${sid}.json`, { method: 'POST', headers: { authorization: auth, 'content-type': 'application/x-www-form-urlencoded' }, body: `Status=${status}` }).then(async (r) => ({ code: r.status, body: (await r.json()) as { status: string } }));
    const ringing = await sidOf(await dial(slow, '+966500000004'));
    while (!statusesOf(ringing).includes('ringing')) await new Promise((r) => setTimeout(r, 10));
    const cancel = await update(slow, ringing, 'canceled');
    assert.equal(cancel.code, 200);
    assert.equal(cancel.body.status, 'canceled', "Twilio's update answers the resource as it now stands");
    assert.equal((await slow.ended(ringing)).status, 'canceled');
    assert.deepEqual(statusesOf(ringing), ['initiated', 'ringing', 'canceled']);

    // Answered: no stream in its TwiML, so the callee just listens until hung up.
    const answered = await sidOf(await dial(fake, '+966500000005'));
    while (!statusesOf(answered).includes('in-progress')) await new Promise((r) => setTimeout(r, 10));
    assert.equal((await update(fake, answered, 'canceled')).body.status, 'in-progress', 'canceled leaves a call in progress alone');
    assert.equal((await update(fake, answered, 'completed')).body.status, 'completed', 'completed hangs it up');
    assert.equal((await fake.ended(answered)).status, 'completed');
    assert.deepEqual(statusesOf(answered), ['initiated', 'ringing', 'in-progress', 'completed']);
    assert.ok(received.find((f) => f.get('CallSid') === answered && f.get('CallStatus') === 'completed')?.has('CallDuration'), 'completed carries CallDuration');
    assert.equal((await update(fake, answered, 'ringing')).code, 400, 'another Status is refused');
  } finally {
    await fake.close();
    await slow.close();
  }
});

test('a whole placed call against createAgentServer with outboundCalls: dialled, signed callbacks taken, answered, streamed, completed', async () => {
  let sandbox: Running | undefined;
  let app: AgentServerApp | undefined;
  const fake = await startFakeTwilio({ accountSid: SID, authToken: TOKEN, ringMs: 100, talkMs: 4000 });
  try {
    sandbox = await runSandbox();
    const outbound = outboundCalls({ platforms: { twilio: twilioOutbound({ accountSid: SID, authToken: TOKEN, baseUrl: fake.url }) }, secret: 'calls-secret-0123456789abcdef', from: '+966110000000', secrets: { twilio: TOKEN } });
    app = await createAgentServer({ agent: callCentre, client: sandbox.client, logger: createLogger('silent'), plugins: [telephonyRoutes(), outbound.routes] });
    const { url } = await app.listen({ port: 0 });
    const placed = await fetch(`${url}/calls`, { method: 'POST', headers: { authorization: 'Bearer calls-secret-0123456789abcdef', 'content-type': 'application/json' }, body: JSON.stringify({ to: '+966500000001' }) });
    assert.equal(placed.status, 201, await placed.clone().text());
    const call = await fake.ended('+966500000001');
    assert.equal(call.status, 'completed');
    const mine = fake.callbacks.filter((c) => c.sid === call.sid);
    assert.deepEqual(mine.map((c) => c.status), ['initiated', 'ringing', 'in-progress', 'completed']);
    for (const c of mine) assert.ok(c.answered >= 200 && c.answered < 300, `hiwar took the signed ${c.status} callback (answered ${c.answered})`);
    assert.match(fake.requests[0]!.form.get('Twiml') ?? '', /<Stream url="ws/, "hiwar's TwiML streams the call's media to it");
  } finally {
    await app?.close();
    await sandbox?.close();
    await fake.close();
  }
});

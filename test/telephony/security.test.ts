/**
 * What a token or a signed webhook grants, probed over real sockets against an in-process
 * `hiwar serve` (docs/security.md): one call per media token, never media from an after-route
 * token, never a call other than the token's, no replayed or stale Vonage JWT, no replayed Plivo
 * nonce, the static token only on platforms without a webhook, closed unless `open`.
 */
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import { SignJWT } from 'jose';
import WebSocket from 'ws';
import { generateKey } from '../../src/sandbox/keys.ts';
import { plivoSignature } from '../../transports/telephony/plivo.ts';
import { twilioSignature } from '../../transports/telephony/twilio.ts';
import { runSandbox, type Running } from '../helpers/sandbox.ts';
import { startServe, twilioCall, waitFor, type Served } from './serve.ts';
import { twilioProtocol } from './twilio-protocol.ts';
import { platformFixture, shape } from './fixture-files.ts';
import { upgradeRefusal, upgradeStatus } from '../helpers/upgrade.ts';

const TWILIO = 'twilio-auth-token';
const PLIVO = 'plivo-auth-token';
const VONAGE = 'vonage-signature-secret-of-32-bytes!';
const STATIC = 'static-media-token-for-gateways';
const MEDIA_SECRET = 'media-secret-shared-by-instances';

/** A media connection that says it is Twilio call `callSid`; resolves once the server accepted the upgrade. */
async function twilioStream(url: string, callSid: string): Promise<WebSocket> {
  const ws = new WebSocket(url);
  ws.on('error', () => {});
  await once(ws, 'open');
  for (const m of twilioProtocol(callSid).opening()) ws.send('text' in m ? m.text : m.binary);
  return ws;
}

const unescape = (s: string) => s.replace(/&amp;/g, '&');

describe('tokens grant one call; signed webhooks answer once and briefly', () => {
  let sandbox: Running;
  let s: Served;
  before(async () => {
    sandbox = await runSandbox({ keys: [{ key: generateKey(), concurrency: 32 }] });
    // Closed, as `hiwar serve` without --open (the helper's `open: true` is overridden).
    s = await startServe({ sandbox, open: undefined, secrets: { twilio: TWILIO, plivo: PLIVO, vonage: VONAGE, exotel: 'exo:tel-pass' }, mediaToken: STATIC, tokenSecret: MEDIA_SECRET });
  });
  after(async () => {
    await s.close();
    await sandbox.close();
  });

  const signedTwilioCall = (callSid: string, fields: Record<string, string> = {}) =>
    twilioCall(s, callSid, { 'x-twilio-signature': twilioSignature(TWILIO, `${s.url}/telephony/twilio`, { CallSid: callSid, ...fields }) }, fields);

  test("the media URL does not tell the platform's or a proxy's logs who calls whom; the call still gets both numbers, once", async () => {
    const numbers = { From: '+966501234567', To: '+966112345678' };
    const answer = await signedTwilioCall('CA-private', numbers);
    assert.equal(answer.status, 200);
    const url = unescape(answer.streamUrl!);
    // The URLs the platform will request (the stream's, <Connect action>'s), in any encoding a log
    // reader could undo: as written, URL-encoded, base64 and base64url (at each of the four
    // alignments), hex. (The markup's <Parameter>s go to Twilio alone, which sent the numbers.)
    const urls = [...answer.xml.matchAll(/(?:url|action)="([^"]+)"/g)].map((m) => unescape(m[1]!));
    assert.equal(urls.length, 2);
    for (const u of urls) {
      const last = u.split('/').at(-1)!;
      const decodings = [u, decodeURIComponent(u), Buffer.from(last, 'hex').toString('latin1')];
      for (let skip = 0; skip < 4; skip++) decodings.push(Buffer.from(last.slice(skip), 'base64url').toString('latin1'), Buffer.from(last.slice(skip), 'base64').toString('latin1'));
      for (const n of Object.values(numbers)) {
        const digits = n.slice(1);
        for (const d of decodings) assert.ok(!d.includes(digits) && !d.includes(digits.slice(3)), `${n} readable in ${u}`);
      }
    }
    const ws = await twilioStream(url, 'CA-private');
    await waitFor(() => s.calls.some((c) => c.transport.call.callId === 'CA-private'), 'the call started');
    const call = s.calls.find((c) => c.transport.call.callId === 'CA-private')!.transport.call;
    assert.equal(call.parameters?.From, numbers.From, 'the server read the caller from the token');
    assert.equal(call.parameters?.To, numbers.To);
    assert.equal(await upgradeStatus(url), 403, 'the token still grants one call only');
    assert.equal(s.calls.filter((c) => c.transport.call.callId === 'CA-private').length, 1);
    ws.close();
    await waitFor(() => s.server.calls.active === 0, 'the call ended');
  });

  test('a token in the old readable form (signed claims) opens nothing', async () => {
    const { createHmac } = await import('node:crypto');
    // What a server before the sealed tokens minted, with the same secret: claims readable in base64url, a dot, an HMAC.
    const body = Buffer.from(JSON.stringify({ scope: 'twilio', kind: 'media', callId: 'CA-old', jti: 'x', exp: Date.now() + 60_000 })).toString('base64url');
    const old = `${body}.${createHmac('sha256', MEDIA_SECRET).update(body).digest('base64url')}`;
    assert.equal(await upgradeStatus(`${s.url.replace('http', 'ws')}/telephony/twilio/stream/${old}`), 401);
  });

  test('a media token opens one call: the same URL again, or a token from a replayed webhook for that call, is refused', async () => {
    const first = await signedTwilioCall('CA-once');
    assert.equal(first.status, 200);
    const url = unescape(first.streamUrl!);
    const ws = await twilioStream(url, 'CA-once');
    await waitFor(() => s.calls.some((c) => c.transport.call.callId === 'CA-once'), 'the call started');
    // The refusal says why in its body, as the log does (it was an empty 403: a far end's developer saw only the status).
    assert.deepEqual(await upgradeRefusal(url), { status: 403, body: 'media connection refused: token already used (replay)\n' }, 'the same token again (a replay)');
    const replayed = await signedTwilioCall('CA-once');
    assert.equal(replayed.status, 200, 'Twilio requests carry no time: the webhook itself answers');
    assert.notEqual(replayed.streamUrl, first.streamUrl);
    assert.equal(await upgradeStatus(unescape(replayed.streamUrl!)), 403, 'but its token is for a call already served');
    assert.equal(s.calls.filter((c) => c.transport.call.callId === 'CA-once').length, 1, 'one call in all');
    ws.close();
    await waitFor(() => s.server.calls.active === 0, 'the call ended');
  });

  test('the <Connect action> token (a day long) cannot open media', async () => {
    const { xml } = await signedTwilioCall('CA-after');
    const action = unescape(/<Connect action="([^"]+)"/.exec(xml)![1]!);
    const afterToken = action.split('/after/')[1]!;
    assert.ok(afterToken.length > 20);
    const base = s.url.replace('http', 'ws');
    assert.equal(await upgradeStatus(`${base}/telephony/twilio/stream/${afterToken}`), 401, 'as a stream token');
    assert.equal(await upgradeStatus(`${base}/telephony/twilio?token=${afterToken}`), 401, 'as a query token');
    assert.deepEqual(await upgradeRefusal(`${base}/telephony/twilio?token=not-a-token`), { status: 401, body: 'media connection refused: invalid or expired token\n' });
    assert.equal(await upgradeStatus(action.replace('http', 'ws')), 404, 'the after route takes no upgrade');
    assert.ok(!s.calls.some((c) => c.transport.call.callId === 'CA-after'));
  });

  test("a start naming another call than the token's is refused before any call, and the token is spent", async () => {
    const { streamUrl } = await signedTwilioCall('CA-mine');
    const url = unescape(streamUrl!);
    const ws = await twilioStream(url, 'CA-someone-else');
    const [code, reason] = (await once(ws, 'close')) as [number, Buffer];
    assert.equal(code, 1000);
    assert.equal(reason.toString(), 'call id does not match the token');
    assert.ok(!s.calls.some((c) => ['CA-mine', 'CA-someone-else'].includes(c.transport.call.callId)), 'no call started');
    assert.equal(await upgradeStatus(url), 403, 'spent');
  });

  test('HIWAR_MEDIA_TOKEN opens only platforms without a webhook', async () => {
    const base = s.url.replace('http', 'ws');
    for (const p of ['twilio', 'telnyx', 'plivo', 'vonage', 'exotel']) assert.equal(await upgradeStatus(`${base}/telephony/${p}?token=${STATIC}`), 401, p);
    for (const p of ['freeswitch', 'asterisk', 'jambonz']) assert.equal(await upgradeStatus(`${base}/telephony/${p}?rate=8000&token=${STATIC}`), 101, p);
    assert.equal(await upgradeStatus(`${base}/telephony/pcm?rate=8000&token=${STATIC}`), 101, 'pcm');
    await waitFor(() => s.connections() === 0, 'probe sockets gone');
  });

  describe('Vonage signed webhooks', () => {
    const hash = (body: string) => createHash('sha256').update(body).digest('hex');
    const jwt = (claims: Record<string, unknown>, iat: number | null = Math.floor(Date.now() / 1000)) => {
      const t = new SignJWT({ jti: randomUUID(), ...claims }).setProtectedHeader({ alg: 'HS256' });
      if (iat !== null) t.setIssuedAt(iat);
      return t.sign(new TextEncoder().encode(VONAGE));
    };
    const answer = async (token: string) => (await fetch(`${s.url}/telephony/vonage?uuid=u-1`, { headers: { authorization: `Bearer ${token}` } })).status;

    test('fresh and bound to the empty body of the GET: answered', async () => {
      assert.equal(await answer(await jwt({ payload_hash: hash('') })), 200);
    });

    test('the same JWT replayed within its age (same jti): refused, once answered', async () => {
      const token = await jwt({ payload_hash: hash('') });
      assert.equal(await answer(token), 200);
      assert.equal(await answer(token), 403, 'replayed');
      assert.equal(await answer(await jwt({ payload_hash: hash(''), jti: undefined })), 403, 'a JWT without an id');
    });

    test('a JWT signed for a body, replayed on a GET without one: refused', async () => {
      assert.equal(await answer(await jwt({ payload_hash: hash(JSON.stringify({ uuid: 'u-1', status: 'answered' })) })), 403);
    });

    test('no payload_hash, no iat, an iat a day old or an hour ahead, or expired: refused', async () => {
      const now = Math.floor(Date.now() / 1000);
      assert.equal(await answer(await jwt({})), 403, 'no payload_hash');
      assert.equal(await answer(await jwt({ payload_hash: hash('') }, null)), 403, 'no iat, no exp');
      assert.equal(await answer(await jwt({ payload_hash: hash('') }, now - 86_400)), 403, 'a day old');
      assert.equal(await answer(await jwt({ payload_hash: hash('') }, now - 600)), 403, 'ten minutes old');
      assert.equal(await answer(await jwt({ payload_hash: hash('') }, now + 3600)), 403, 'an hour ahead');
      assert.equal(await answer(await jwt({ payload_hash: hash(''), exp: now - 120 })), 403, 'expired two minutes ago (beyond the 30 s clock skew)');
    });
  });

  test('a Plivo request (signed nonce) answers once', async () => {
    const url = `${s.url}/telephony/plivo`;
    const fields = { CallUUID: 'p-1' };
    const send = () =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-plivo-signature-v3-nonce': '88119912', 'x-plivo-signature-v3': plivoSignature(PLIVO, 'POST', url, fields, '88119912') },
        body: new URLSearchParams(fields),
      });
    assert.equal((await send()).status, 200);
    assert.equal((await send()).status, 403, 'the same request replayed');
  });

  test("Exotel's dynamic endpoint hands out a one-call URL (wideband when the endpoint asks for it)", async () => {
    const res = await fetch(`${s.url}/telephony/exotel?sample-rate=16000`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('exo:tel-pass').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'CallSid=exo-1&CustomField=vip',
    });
    assert.equal(res.status, 200);
    const answer = (await res.json()) as { url: string };
    // The JSON Exotel's documentation asks of the endpoint: one key, `url`, a WebSocket URL.
    const documented = platformFixture('exotel').toPlatform.dynamicUrlAnswer.message;
    assert.deepEqual(shape(answer), shape(documented));
    assert.match(answer.url, /^wss?:\/\//, 'a WebSocket URL (ws:// behind this test\'s plain HTTP server)');
    const { url } = answer;
    assert.match(url, /\/telephony\/exotel\/stream\/[^/?]+\?sample-rate=16000$/);
    assert.equal(await upgradeStatus(url), 101);
    assert.equal(await upgradeStatus(url), 403, 'once');
    // Wrong credentials are called what they are (it said "bad or missing signature": Exotel signs nothing).
    const wrong = await fetch(`${s.url}/telephony/exotel`, { method: 'POST', headers: { authorization: `Basic ${Buffer.from('exo:wrong').toString('base64')}` }, body: 'CallSid=exo-2' });
    assert.deepEqual([wrong.status, await wrong.text()], [403, 'bad or missing Basic credentials (checked against EXOTEL_BASIC_AUTH)\n']);
  });

  test('a webhook without a call id hands out no media URL', async () => {
    const res = await fetch(`${s.url}/telephony/twilio`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignature(TWILIO, `${s.url}/telephony/twilio`, { From: '+1' }) }, body: 'From=%2B1' });
    assert.equal(res.status, 400);
  });
});

describe('closed unless told otherwise', () => {
  let sandbox: Running;
  before(async () => {
    sandbox = await runSandbox({ keys: [{ key: generateKey(), concurrency: 16 }] });
  });
  after(() => sandbox.close());

  test('on localhost with no secrets and not open: no webhook, no media, and the plugin says so per platform', async () => {
    const s = await startServe({ sandbox, open: undefined });
    try {
      assert.match(s.url, /127\.0\.0\.1/);
      const base = s.url.replace('http', 'ws');
      assert.equal((await twilioCall(s, 'CA-1')).status, 403, 'unsigned webhook');
      assert.equal(await upgradeStatus(`${base}/telephony/twilio`), 401, 'twilio media without a token');
      assert.equal(await upgradeStatus(`${base}/telephony/pcm?rate=8000`), 401, 'pcm media without a token');
      const access = Object.fromEntries(s.plugin.access.map((a) => [a.provider, a]));
      assert.equal(access.twilio!.webhook, 'closed');
      assert.equal(access.pcm!.tokenless, 'closed');
      assert.match(access.twilio!.line, /CLOSED: set TWILIO_AUTH_TOKEN/);
      assert.match(access.freeswitch!.line, /CLOSED: set HIWAR_MEDIA_TOKEN/);
    } finally {
      await s.close();
    }
  });

  test('open: platforms without a secret are open; one whose secret is set stays closed', async () => {
    const s = await startServe({ sandbox, open: true, secrets: { twilio: TWILIO } });
    try {
      const base = s.url.replace('http', 'ws');
      assert.equal(await upgradeStatus(`${base}/telephony/pcm?rate=8000`), 101, 'pcm without a token');
      assert.equal((await fetch(`${s.url}/telephony/plivo`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'CallUUID=p-9' })).status, 200, 'an unsigned Plivo webhook');
      assert.equal((await twilioCall(s, 'CA-2')).status, 403, 'Twilio has its secret: still signed');
      assert.equal(await upgradeStatus(`${base}/telephony/twilio`), 401, 'and its media still needs a token');
      assert.equal(await upgradeStatus(`${base}/telephony/pcm?rate=8000&token=forged`), 401, 'a token shown must be valid, even open');
      const access = Object.fromEntries(s.plugin.access.map((a) => [a.provider, a]));
      assert.match(access.plivo!.line, /OPEN/);
      assert.doesNotMatch(access.twilio!.line, /OPEN/);
      await waitFor(() => s.connections() === 0, 'probe sockets gone');
    } finally {
      await s.close();
    }
  });
});

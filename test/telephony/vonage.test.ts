import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { SignJWT } from 'jose';
import { pad, voiced } from '../helpers/sandbox.ts';
import { FarEnd } from './far-end.ts';
import { vonageProtocol } from './protocols.ts';
import { wholeCall } from './scenario.ts';
import WebSocket from 'ws';
import { startServe, waitFor, type Served } from './serve.ts';

const SECRET = 'vonage-signature-secret-of-32-bytes!';

describe('Vonage WebSockets against hiwar serve', () => {
  let s: Served;
  let lines: { balance: Int16Array };
  before(async () => {
    s = await startServe({ speed: 2, secrets: { vonage: SECRET } });
    lines = {
      balance: pad(await voiced(s.sandbox.client, 'كم رصيدي', 16000), 16000, 0.2, 1.0)
    };
  });
  after(() => s.close());

  const jwt = (body = '', secret = SECRET) =>
    // Vonage signs every request with the body's hash, the empty body of a GET included.
    new SignJWT({ payload_hash: createHash('sha256').update(body).digest('hex') })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setJti(randomUUID())
      .sign(new TextEncoder().encode(secret));
  const answer = async (query: string, secret = SECRET) =>
    fetch(`${s.url}/telephony/vonage?${query}`, { headers: { authorization: `Bearer ${await jwt('', secret)}` } });

  test('a signed answer webhook gets an NCCO; unsigned or wrongly signed are refused', async () => {
    assert.equal((await fetch(`${s.url}/telephony/vonage?uuid=u0`)).status, 403);
    assert.equal((await answer('uuid=u0', 'another-secret-another-secret-xx')).status, 403);
    const res = await answer('uuid=u0&from=447700900001&to=447700900000');
    assert.equal(res.status, 200);
    const ncco = (await res.json()) as any[];
    assert.equal(ncco[0].action, 'connect');
    assert.equal(ncco[0].eventType, 'synchronous');
    assert.equal(ncco[0].endpoint[0].type, 'websocket');
    assert.equal(ncco[0].endpoint[0]['content-type'], 'audio/l16;rate=16000');
    assert.match(ncco[0].endpoint[0].uri, /^ws:\/\/.+\/telephony\/vonage\/stream\/.+/);
    assert.deepEqual(ncco[0].endpoint[0].headers, { callId: 'u0', from: '447700900001', to: '447700900000' });
    const body = JSON.stringify({ uuid: 'u0', status: 'answered' });
    const event = await fetch(ncco[0].eventUrl[0], { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${await jwt(body)}` }, body });
    assert.equal(event.status, 204, 'a call event with nothing to change');
    const forged = await fetch(ncco[0].eventUrl[0], { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${await jwt('{}')}` }, body });
    assert.equal(forged.status, 403, 'a token signed for another body');
  });

  test('a whole call in binary L16 16 kHz: exact 640-byte frames, notify marks, DTMF, barge-in with clear, hang-up', async () => {
    const ncco = (await (await answer('uuid=u1&from=447700900001&to=447700900000')).json()) as any[];
    const ep = ncco[0].endpoint[0];
    const proto = vonageProtocol(ep.headers);
    const call = await wholeCall(s, new FarEnd(ep.uri, proto, s.clock), 'u1', lines);
    assert.equal(call.transport.inputRate, 16000);
    assert.equal(call.transport.call.from, '447700900001');
    assert.deepEqual(proto.problems, []);
  });

  test('open (no secret, no token): audio before any connected frame still makes a call, with an id of its own', async () => {
    const open = await startServe({ speed: 2, sandbox: s.sandbox, open: true });
    try {
      const sockets = [0, 1].map(() => new WebSocket(`${open.url.replace(/^http/, 'ws')}/telephony/vonage?rate=16000`));
      await Promise.all(sockets.map((ws) => new Promise((r, j) => ws.once('open', r).once('error', j))));
      for (const ws of sockets) ws.send(Buffer.alloc(640));
      await waitFor(() => open.calls.length === 2, 'both calls started');
      const [a, b] = open.calls.map((c) => c.transport.call.callId);
      assert.ok(a && b && a !== b, `two calls with no id from the platform get distinct ids: ${a}, ${b}`);
      for (const ws of sockets) ws.close();
    } finally {
      await open.close();
    }
  });
});

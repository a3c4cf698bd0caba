import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { plivoSignature } from '../../transports/telephony/plivo.ts';
import { pad, voiced } from '../helpers/sandbox.ts';
import { FarEnd } from './far-end.ts';
import { plivoProtocol } from './protocols.ts';
import { wholeCall } from './scenario.ts';
import { startServe, type Served } from './serve.ts';

const AUTH_TOKEN = 'plivo-test-token';

describe('Plivo audio streams against hiwar serve', () => {
  let s: Served;
  let lines: { balance: Int16Array };
  before(async () => {
    s = await startServe({ speed: 2, secrets: { plivo: AUTH_TOKEN } });
    lines = {
      balance: pad(await voiced(s.sandbox.client, 'كم رصيدي', 8000), 8000, 0.2, 1.0)
    };
  });
  after(() => s.close());

  const answer = (fields: Record<string, string>, nonce = 'n-1', token = AUTH_TOKEN) => {
    const url = `${s.url}/telephony/plivo`;
    return fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'x-plivo-signature-v3-nonce': nonce,
        'x-plivo-signature-v3': plivoSignature(token, 'POST', url, fields, nonce),
      },
      body: new URLSearchParams(fields),
    });
  };

  test('a signed answer gets Stream XML; a wrong signature is refused', async () => {
    assert.equal((await answer({ CallUUID: 'c-0' }, 'n', 'wrong-token')).status, 403);
    const res = await answer({ CallUUID: 'c-0', From: '966500000002', To: '966110000000' });
    assert.equal(res.status, 200);
    const xml = await res.text();
    assert.match(xml, /<Stream bidirectional="true" keepCallAlive="true" contentType="audio\/x-mulaw;rate=8000"[^>]*>ws:\/\/[^<]+\/telephony\/plivo\/stream\/[^<]+<\/Stream><Redirect>[^<]+\/telephony\/plivo\/after\/[^<]+<\/Redirect>/);
    assert.match(xml, /extraHeaders="From=966500000002,To=966110000000"/);
  });

  test('a whole call: answer as playAudio, checkpoints, DTMF, barge-in with clearAudio, hang-up; the Redirect hangs up', async () => {
    const xml = await (await answer({ CallUUID: 'c-1', From: '966500000002' })).text();
    const url = /<Stream [^>]+>([^<]+)<\/Stream>/.exec(xml)![1]!.replace(/&amp;/g, '&');
    const redirect = /<Redirect>([^<]+)<\/Redirect>/.exec(xml)![1]!.replace(/&amp;/g, '&');
    const proto = plivoProtocol('c-1', 'From=966500000002;To=966110000000');
    const call = await wholeCall(s, new FarEnd(url, proto, s.clock), 'c-1', lines);
    assert.equal(call.transport.call.parameters.From, '966500000002');
    // Plivo's start names no numbers: the webhook's, carried by extraHeaders, are the call's
    // (agentFor's call.to and call.from were undefined on Plivo).
    assert.equal(call.transport.call.from, '966500000002');
    assert.equal(call.transport.call.to, '966110000000');
    assert.deepEqual(proto.problems, []);
    // The Redirect URL carries its own token: Plivo's request for it needs no second secret.
    const next = await fetch(redirect, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'CallUUID=c-1' });
    assert.equal(next.status, 403, 'still signed: the token is not a substitute for the signature when a secret is set');
    const nonce = 'n-after';
    const signedNext = await fetch(redirect, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-plivo-signature-v3-nonce': nonce, 'x-plivo-signature-v3': plivoSignature(AUTH_TOKEN, 'POST', redirect, { CallUUID: 'c-1' }, nonce) },
      body: 'CallUUID=c-1',
    });
    assert.match(await signedNext.text(), /<Hangup\/>/, 'the caller hung up, nothing to dial');
  });
});

import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, it, test } from 'node:test';
import { l16Decode, l16Encode } from './far-codec.ts';
import { FarEnd, type PlatformProtocol } from './far-end.ts';
import { MEDIA_TOKEN, mediaStreamSuite } from './media-stream-suite.ts';
import { startServe, waitFor, type Served } from './serve.ts';
import { startOf } from './wire.ts';
import { JAMBONZ_SUBPROTOCOL, afterListen, jambonz, listenVerb, verifyJambonzSignature } from '../../transports/telephony/jambonz.ts';

const open = () => jambonz.open({ url: new URL('ws://h/telephony/jambonz'), headers: {} });
const textOf = (m: unknown) => JSON.parse((m as { text: string }).text);
const attributes = { callSid: 'cs-1', direction: 'inbound', from: '+966500000001', to: '+966110000000', callId: 'sip-call-id', accountSid: 'acc', applicationSid: 'app', sampleRate: 16000, mixType: 'mono', campaign: 'zakat' };

describe('jambonz listen wire format', () => {
  it('starts on the call attributes frame: call sid, numbers, direction, metadata as parameters, L16 at its rate', () => {
    const c = open();
    assert.equal(c.parse({ binary: new Uint8Array(640) })[0]!.type, 'invalid', 'audio before the attributes');
    const s = startOf(c.parse({ text: JSON.stringify(attributes) }));
    assert.deepEqual(s.call, { callId: 'cs-1', from: '+966500000001', to: '+966110000000', direction: 'inbound', parameters: { campaign: 'zakat' } });
    assert.deepEqual({ codec: s.input.codec, rate: s.input.sampleRate }, { codec: 'l16', rate: 16000 });
    assert.deepEqual(c.parse({ binary: new Uint8Array([1, 0]) }), [{ type: 'audio', payload: new Uint8Array([1, 0]) }]);
  });

  it('parses dtmf and mark events; renders killAudio, mark and disconnect', () => {
    const c = open();
    c.parse({ text: JSON.stringify(attributes) });
    assert.deepEqual(c.parse({ text: JSON.stringify({ event: 'dtmf', dtmf: '7', duration: '1600' }) }), [{ type: 'dtmf', digit: '7', durationMs: 200 }]);
    assert.deepEqual(c.parse({ text: JSON.stringify({ type: 'mark', data: { name: 'h2', event: 'playout' } }) }), [{ type: 'mark', name: 'h2' }]);
    assert.deepEqual(c.parse({ text: JSON.stringify({ type: 'mark', data: { name: 'h3', event: 'cleared' } }) }), [{ type: 'mark', name: 'h3', cleared: true }]);
    assert.deepEqual(textOf(c.clear!()), { type: 'killAudio' });
    assert.deepEqual(textOf(c.mark!('h9')), { type: 'mark', data: { name: 'h9' } });
    assert.deepEqual(c.hangup!().map(textOf), [{ type: 'disconnect' }]);
    for (const bad of [{ text: '{' }, { text: JSON.stringify({ event: 'dtmf', dtmf: 'Q' }) }, { text: JSON.stringify({ type: 'what' }) }]) assert.equal(c.parse(bad)[0]!.type, 'invalid');
  });

  it('refuses stereo and unknown rates', () => {
    assert.equal(open().parse({ text: JSON.stringify({ ...attributes, mixType: 'stereo' }) })[0]!.type, 'invalid');
    assert.equal(open().parse({ text: JSON.stringify({ ...attributes, sampleRate: 11025 }) })[0]!.type, 'invalid');
  });

  it('answers the call webhook with a bidirectional streaming listen, and the actionHook with hangup or dial', () => {
    const v = listenVerb('wss://bot/telephony/jambonz/stream/T', 'https://bot/telephony/jambonz/after/T', 8000);
    assert.equal(v.verb, 'listen');
    assert.deepEqual(v.bidirectionalAudio, { enabled: true, streaming: true, sampleRate: 8000 });
    assert.equal(v.passDtmf, true);
    assert.deepEqual(afterListen(undefined), [{ verb: 'hangup' }]);
    assert.deepEqual(afterListen({ action: 'transfer', target: '+97145551234' }), [{ verb: 'dial', target: [{ type: 'phone', number: '+97145551234' }] }]);
    assert.deepEqual(afterListen({ action: 'transfer', target: 'sip:agent@pbx.example' }), [{ verb: 'dial', target: [{ type: 'sip', sipUri: 'sip:agent@pbx.example' }] }]);
  });
});


/** jambonz's side of a bidirectional streaming listen: attributes first, binary L16, marks reported played or cleared. */
function jambonzProtocol(callId: string): PlatformProtocol {
  return {
    rate: 8000,
    opening: () => [{ text: JSON.stringify({ ...attributes, callSid: callId, sampleRate: 8000 }) }],
    audio: (pcm) => ({ binary: l16Encode(pcm) }),
    dtmf: (digit) => ({ text: JSON.stringify({ event: 'dtmf', dtmf: digit, duration: '800' }) }),
    read(msg) {
      if ('binary' in msg) return [{ type: 'audio', pcm: l16Decode(msg.binary) }];
      const m = JSON.parse(msg.text);
      if (m.type === 'killAudio') return [{ type: 'clear' }];
      if (m.type === 'mark') return [{ type: 'mark', name: m.data.name }];
      return [{ type: 'other', raw: m }];
    },
    ackMark: (name) => ({ text: JSON.stringify({ type: 'mark', data: { name, event: 'playout' } }) }),
    onClear: (dropped) => dropped.map((name) => ({ text: JSON.stringify({ type: 'mark', data: { name, event: 'cleared' } }) })),
  };
}

mediaStreamSuite({
  provider: 'jambonz',
  rate: 8000,
  protocol: jambonzProtocol,
  protocols: [JAMBONZ_SUBPROTOCOL],
  acknowledges: true,
  interrupts: true,
  dtmf: true,
  checkAudio: (pcm) => assert.equal(pcm.length, 160, '20 ms binary L16 frames'),
  junk: [{ text: '{' }, { text: '{"event":"dtmf","dtmf":"Q"}' }, { text: '{"type":"mystery"}' }],
});

describe('jambonz webhooks against hiwar serve', () => {
  const secret = 'whsec-test';
  let s: Served;
  before(async () => {
    s = await startServe({ open: false, mediaToken: MEDIA_TOKEN, secrets: { jambonz: secret } });
  });
  after(() => s.close());

  const post = (path: string, body: unknown, sign: string | null = secret) => {
    const raw = JSON.stringify(body);
    const t = Math.floor(Date.now() / 1000);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (sign !== null) headers['jambonz-signature'] = `t=${t},v1=${createHmac('sha256', sign).update(`${t}.${raw}`).digest('hex')}`;
    return fetch(path.startsWith('http') ? path : `${s.url}${path}`, { method: 'POST', headers, body: raw });
  };

  test('the call webhook is answered with a listen verb to a tokenized stream URL only when signed', async () => {
    const body = { call_sid: 'jz-1', from: '+966500000001', to: '+966110000000', direction: 'inbound' };
    assert.equal((await post('/telephony/jambonz', body, null)).status, 403, 'unsigned');
    assert.equal((await post('/telephony/jambonz', body, 'other-secret')).status, 403, 'signed with another secret');
    const res = await post('/telephony/jambonz', body);
    assert.equal(res.status, 200);
    const [listen] = (await res.json()) as Record<string, any>[];
    assert.equal(listen!.verb, 'listen');
    assert.match(listen!.url, /^ws:\/\/.+\/telephony\/jambonz\/stream\/[\w-]{40,}$/);
    assert.match(listen!.actionHook, /\/telephony\/jambonz\/after\/[\w-]{40,}$/);
    assert.deepEqual(listen!.bidirectionalAudio, { enabled: true, streaming: true, sampleRate: 8000 });
    // jambonz signs the actionHook request too. Nothing was decided: hang up.
    assert.equal((await post(listen!.actionHook, { call_sid: 'jz-1' }, null)).status, 403);
    const next = await post(listen!.actionHook, { call_sid: 'jz-1' });
    assert.deepEqual(await next.json(), [{ verb: 'hangup' }]);
  });

  test('an agent transfer closes the listen and the actionHook dials the target', async () => {
    const res = await post('/telephony/jambonz', { call_sid: 'jz-2' });
    const [listen] = (await res.json()) as Record<string, any>[];
    const far = new FarEnd(listen!.url, jambonzProtocol('jz-2'), s.clock, { protocols: [JAMBONZ_SUBPROTOCOL] });
    await far.start();
    await waitFor(() => s.calls.some((c) => c.transport.call.callId === 'jz-2'), 'the call started');
    const call = s.calls.find((c) => c.transport.call.callId === 'jz-2')!;
    // Mid-call, as an agent tool would.
    await waitFor(() => call.events.some((e) => e.type === 'agent_chunk'), 'the greeting started');
    await call.transport.transfer!('+97145551234');
    const closed = await far.closed;
    assert.equal(closed.code, 1000, 'the listen socket closed cleanly');
    // The plugin records the decision once the session has ended; jambonz may ask sooner (see the report).
    await waitFor(() => s.server.calls.active === 0, 'the call ended');
    const next = await post(listen!.actionHook, { call_sid: 'jz-2' });
    assert.deepEqual(await next.json(), [{ verb: 'dial', target: [{ type: 'phone', number: '+97145551234' }] }]);
  });

  test('signatures: fresh and right only', () => {
    const raw = Buffer.from('{"call_sid":"x"}');
    const now = 1_800_000_000;
    const sig = (t: number, key = secret) => `t=${t},v1=${createHmac('sha256', key).update(`${t}.`).update(raw).digest('hex')}`;
    assert.ok(verifyJambonzSignature(sig(now), raw, secret, now));
    assert.ok(!verifyJambonzSignature(sig(now - 3600), raw, secret, now), 'an old signature is replayed');
    assert.ok(!verifyJambonzSignature(sig(now, 'x'), raw, secret, now));
    assert.ok(!verifyJambonzSignature(undefined, raw, secret, now));
    assert.ok(!verifyJambonzSignature('garbage', raw, secret, now));
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startOf } from './wire.ts';
import { afterListen, jambonz, listenVerb } from '../../transports/telephony/jambonz.ts';

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

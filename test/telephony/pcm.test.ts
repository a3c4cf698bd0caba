import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startOf } from './wire.ts';
import { pcm } from '../../transports/telephony/pcm.ts';
import { mediaStreamSuite } from './media-stream-suite.ts';
import { gatewayProtocol } from './gateway.ts';

const open = (q: string, claims?: { callId?: string; parameters?: Record<string, string> }) => pcm.open({ url: new URL(`ws://h/telephony/pcm${q}`), headers: {}, claims });

describe('generic pcm wire format', () => {
  it('starts at once from the URL: rate, call id, numbers, custom parameters', () => {
    const s = startOf(open('?rate=8000&call_id=c-7&from=100&to=200&token=x&queue=vip').opened!());
    assert.deepEqual(s.call, { callId: 'c-7', from: '100', to: '200', parameters: { queue: 'vip' } });
    assert.equal(s.input.sampleRate, 8000);
    assert.equal(s.input.codec, 'l16');
  });

  it('takes the call id from a per-call token when there is one', () => {
    const s = startOf(open('?rate=16000', { callId: 'from-token', parameters: { a: '1' } }).opened!());
    assert.equal(s.call.callId, 'from-token');
    assert.equal(s.call.parameters.a, '1');
  });

  it('refuses a bad rate at once', () => {
    const items = open('?rate=12345').opened!();
    assert.deepEqual(items.map((i) => i.type), ['invalid', 'stop']);
  });

  it('parses audio, dtmf, mark echoes and hangup; renders mark, clear and hangup; marks=0 means clock pacing', () => {
    const c = open('?rate=16000');
    assert.deepEqual(c.parse({ binary: new Uint8Array([1, 0]) }), [{ type: 'audio', payload: new Uint8Array([1, 0]) }]);
    assert.equal(c.parse({ binary: new Uint8Array(3) })[0]!.type, 'invalid');
    assert.deepEqual(c.parse({ text: '{"type":"dtmf","digit":"9"}' }), [{ type: 'dtmf', digit: '9', durationMs: undefined }]);
    assert.deepEqual(c.parse({ text: '{"type":"mark","name":"h1"}' }), [{ type: 'mark', name: 'h1' }]);
    assert.deepEqual(c.parse({ text: '{"type":"hangup"}' }), [{ type: 'stop', reason: 'caller hung up' }]);
    assert.deepEqual(JSON.parse((c.mark!('h2') as { text: string }).text), { type: 'mark', name: 'h2' });
    assert.deepEqual(JSON.parse((c.clear!() as { text: string }).text), { type: 'clear' });
    assert.deepEqual(JSON.parse((c.hangup!('done') as { text: string }[])[0]!.text), { type: 'hangup', reason: 'done' });
    assert.equal(open('?rate=16000&marks=0').mark, undefined);
    for (const bad of ['nope', '{"type":"dtmf","digit":"55"}', '{"type":"mark"}', '{"type":"other"}']) assert.equal(c.parse({ text: bad })[0]!.type, 'invalid', bad);
  });
});

const gateway = {
  provider: 'pcm',
  rate: 16000,
  protocol: gatewayProtocol,
  interrupts: true,
  dtmf: true,
  checkAudio: (p: Int16Array) => assert.equal(p.length, 320, '20 ms binary frames at the URL rate'),
  junk: [{ text: 'nope' }, { text: '{"type":"dtmf","digit":"55"}' }, { binary: new Uint8Array(3) }],
};

mediaStreamSuite({ ...gateway, query: (callId) => ({ rate: '16000', call_id: callId, from: '100' }), acknowledges: true });
// A gateway that cannot echo marks: the server paces on its clock.
mediaStreamSuite({ ...gateway, query: (callId) => ({ rate: '16000', call_id: callId, marks: '0' }), acknowledges: false, variant: 'marks=0', only: ['barge-in'] });

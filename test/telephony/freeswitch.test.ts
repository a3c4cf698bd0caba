import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startOf } from './wire.ts';
import { freeswitch } from '../../transports/telephony/freeswitch.ts';
import type { PlatformProtocol } from './far-end.ts';
import { fromBase64, l16Decode, l16Encode, readJson } from './far-codec.ts';
import { mediaStreamSuite } from './media-stream-suite.ts';

const open = (q = '?rate=16000') => freeswitch.open({ url: new URL(`ws://h/telephony/freeswitch${q}`), headers: {} });

describe('freeswitch mod_audio_stream wire format', () => {
  it('starts on JSON metadata (uuid, numbers, custom fields) at the URL rate, then takes binary L16', () => {
    const c = open('?rate=16000&queue=sales');
    const s = startOf(c.parse({ text: JSON.stringify({ uuid: 'fs-uuid-1', from: '1001', to: '5000', lang: 'ar' }) }));
    assert.deepEqual(s.call, { callId: 'fs-uuid-1', from: '1001', to: '5000', parameters: { queue: 'sales', lang: 'ar' } });
    assert.equal(s.input.sampleRate, 16000);
    assert.deepEqual(c.parse({ binary: new Uint8Array([1, 0]) }), [{ type: 'audio', payload: new Uint8Array([1, 0]) }]);
    assert.equal(c.parse({ text: 'late text' })[0]!.type, 'invalid');
    assert.deepEqual(c.parse({ text: '{"type":"dtmf","digit":"3"}' }), [{ type: 'dtmf', digit: '3' }], 'DTMF forwarded with send_text');
    assert.equal(c.parse({ text: '{"type":"dtmf","digit":"33"}' })[0]!.type, 'invalid');
  });

  it('starts on the first audio frame when there is no metadata; plain-text metadata becomes a parameter', () => {
    const items = open('?rate=8000&call_id=abc').parse({ binary: new Uint8Array(320) });
    const [, a] = items;
    const s = startOf(items);
    assert.equal(s.call.callId, 'abc');
    assert.equal(a!.type, 'audio');
    const p = startOf(open().parse({ text: 'hello from the dialplan' }));
    assert.equal(p.call.parameters.metadata, 'hello from the dialplan');
  });

  it('renders agent audio as streamAudio raw base64 at its rate; has no marks or clear (paced on the clock)', () => {
    const c = open('?rate=8000');
    c.parse({ binary: new Uint8Array(2) });
    assert.deepEqual(JSON.parse((c.encodeAudio(new Uint8Array([1, 2])) as { text: string }).text), { type: 'streamAudio', data: { audioDataType: 'raw', sampleRate: 8000, audioData: 'AQI=' } });
    assert.equal(c.mark, undefined);
    assert.equal(c.clear, undefined);
  });

  it('refuses a rate mod_audio_stream cannot send', () => {
    assert.equal(open('?rate=44100').parse({ binary: new Uint8Array(2) })[0]!.type, 'invalid');
  });
});


/** mod_audio_stream's side: metadata first, binary L16 16 kHz, streamAudio played as it arrives. */
function freeswitchProtocol(callId: string): PlatformProtocol {
  return {
    rate: 16000,
    opening: () => [{ text: JSON.stringify({ uuid: callId, from: '1001', to: '5000' }) }],
    audio: (pcm) => ({ binary: l16Encode(pcm) }),
    dtmf: (digit) => ({ text: JSON.stringify({ type: 'dtmf', digit }) }),
    read(msg) {
      const m = readJson(msg);
      assert.ok(m?.type === 'streamAudio', 'FreeSWITCH only takes streamAudio');
      assert.equal(m.data.audioDataType, 'raw');
      assert.equal(m.data.sampleRate, 16000);
      return [{ type: 'audio', pcm: l16Decode(fromBase64(m.data.audioData)) }];
    },
  };
}

mediaStreamSuite({
  provider: 'freeswitch',
  rate: 16000,
  protocol: freeswitchProtocol,
  query: () => ({ rate: '16000' }),
  acknowledges: false,
  interrupts: false,
  dtmf: true,
  checkAudio: (pcm) => assert.equal(pcm.length, 3200, 'streamAudio messages of 200 ms at 16 kHz'),
  junk: [{ text: 'junk' }, { text: '{"type":"dtmf","digit":"??"}' }],
});

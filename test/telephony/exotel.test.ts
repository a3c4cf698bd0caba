import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startOf } from './wire.ts';
import { exotel, exotelFormat } from '../../transports/telephony/exotel.ts';
import type { PlatformProtocol } from './far-end.ts';
import { fromBase64, l16Decode, l16Encode, readJson, text as farText, toBase64 } from './far-codec.ts';
import { platformFixture } from './fixture-files.ts';
import { mediaStreamSuite } from './media-stream-suite.ts';

const open = (q = '') => exotel.open({ url: new URL(`ws://h/telephony/exotel${q}`), headers: {} });
const text = (v: unknown) => ({ text: JSON.stringify(v) });
const start = (format: Record<string, unknown> = { encoding: 'base64', sample_rate: '8000', bit_rate: '128kbps' }) =>
  text({ event: 'start', sequence_number: 1, stream_sid: 'S1', start: { stream_sid: 'S1', call_sid: 'C1', account_sid: 'A', from: '+971500000001', to: '+97145550000', custom_parameters: { lang: 'ar' }, media_format: format } });

describe('exotel wire format', () => {
  it('parses start with the call, custom parameters from start and from the URL, and raw PCM16 8 kHz', () => {
    const c = open('?token=t&campaign=ramadan');
    assert.deepEqual(c.parse(text({ event: 'connected' })), []);
    const s = startOf(c.parse(start()));
    assert.equal(s.call.callId, 'C1');
    assert.equal(s.call.streamId, 'S1');
    assert.equal(s.call.from, '+971500000001');
    assert.deepEqual(s.call.parameters, { campaign: 'ramadan', lang: 'ar' });
    assert.deepEqual({ codec: s.input.codec, rate: s.input.sampleRate }, { codec: 'l16', rate: 8000 });
  });

  it('sends chunks Exotel accepts: multiples of 320 bytes and at least 3.2 KB', () => {
    for (const [codec, rate] of [['l16', 8000], ['l16', 16000], ['l16', 24000], ['mulaw', 8000]] as const) {
      const f = exotelFormat(codec, rate);
      const bytes = (rate * f.frameMs) / 1000 * (codec === 'l16' ? 2 : 1);
      assert.equal(bytes % 320, 0, `${codec}@${rate}`);
      assert.ok(bytes >= 3200, `${codec}@${rate}: ${bytes}`);
      assert.ok(f.frameMs >= 100 && f.frameMs <= 400);
    }
  });

  it('takes the rate from the applet URL and mu-law from an extended media format', () => {
    const s16 = startOf(open('?sample-rate=16000').parse(start({ encoding: 'base64' })));
    assert.equal(s16.input.sampleRate, 16000);
    const mu = startOf(open().parse(start({ encoding: 'audio/x-mulaw', sample_rate: '8000' })));
    assert.equal(mu.input.codec, 'mulaw');
    const [bad] = open().parse(start({ sample_rate: '11025' }));
    assert.equal(bad!.type, 'invalid');
  });

  it('parses media with its chunk number, dtmf, marks and stop; renders media, mark and clear with the stream sid', () => {
    const c = open();
    c.parse(start());
    const [m] = c.parse(text({ event: 'media', sequence_number: 3, stream_sid: 'S1', media: { chunk: 2, timestamp: '200', payload: Buffer.from([1, 0, 2, 0]).toString('base64') } }));
    assert.deepEqual(m, { type: 'audio', payload: new Uint8Array([1, 0, 2, 0]), seq: 2 });
    assert.deepEqual(c.parse(text({ event: 'dtmf', stream_sid: 'S1', dtmf: { digit: '5', duration: '120' } })), [{ type: 'dtmf', digit: '5', durationMs: 120 }]);
    assert.deepEqual(c.parse(text({ event: 'mark', stream_sid: 'S1', mark: { name: 'h3' } })), [{ type: 'mark', name: 'h3' }]);
    assert.deepEqual(c.parse(text({ event: 'stop', stream_sid: 'S1', stop: { call_sid: 'C1', reason: 'callended' } })), [{ type: 'stop', reason: 'stream stopped (callended)' }]);
    assert.deepEqual(JSON.parse((c.encodeAudio(new Uint8Array([1, 2])) as { text: string }).text), { event: 'media', stream_sid: 'S1', media: { payload: 'AQI=' } });
    assert.deepEqual(JSON.parse((c.clear!() as { text: string }).text), { event: 'clear', stream_sid: 'S1' });
    assert.deepEqual(JSON.parse((c.mark!('h1') as { text: string }).text), { event: 'mark', stream_sid: 'S1', mark: { name: 'h1' } });
  });

  it('turns malformed messages into invalid items, never throws', () => {
    const c = open();
    for (const bad of [{ text: 'not json' }, { binary: new Uint8Array([1, 2]) }, text({ event: 'media', media: {} }), text({ event: 'dtmf', dtmf: { digit: 'x' } }), text({ event: 'nope' }), text({ event: 'start', start: {} }), text([1, 2])]) {
      const items = c.parse(bad);
      assert.equal(items.length, 1);
      assert.equal(items[0]!.type, 'invalid', JSON.stringify(bad));
    }
  });
});

/**
 * Exotel's side of a Voicebot stream: the documented messages (test/fixtures/platforms/exotel/)
 * with this call's ids, raw PCM16 8 kHz in base64 by the test's own codec, marks echoed when
 * played or cleared.
 */
function exotelProtocol(callId: string): PlatformProtocol {
  const doc = platformFixture('exotel').fromPlatform;
  const from = (k: string) => structuredClone(doc[k].message);
  const sid = `stream-${callId}`;
  let n = 1;
  const p: PlatformProtocol = {
    rate: 8000,
    opening: () => {
      const start = from('start');
      Object.assign(start, { sequence_number: String(n++), stream_sid: sid });
      Object.assign(start.start, { stream_sid: sid, call_sid: callId, custom_parameters: {} });
      return [farText(from('connected')), farText(start)];
    },
    audio: (pcm, seq) => {
      const m = from('media');
      Object.assign(m, { sequence_number: String(n++), stream_sid: sid });
      m.media = { chunk: String(seq), timestamp: String(seq * 20), payload: toBase64(l16Encode(pcm)) };
      return farText(m);
    },
    dtmf: (digit) => farText({ ...from('dtmf'), sequence_number: String(n++), stream_sid: sid, dtmf: { digit, duration: '100' } }),
    stop: () => {
      const m = from('stop');
      Object.assign(m, { sequence_number: String(n++), stream_sid: sid });
      m.stop.call_sid = callId;
      return farText(m);
    },
    read(msg) {
      const m = readJson(msg);
      assert.ok(m && m.stream_sid === sid, 'every message names the stream');
      if (m.event === 'media') return [{ type: 'audio', pcm: l16Decode(fromBase64(m.media.payload)) }];
      if (m.event === 'mark') return [{ type: 'mark', name: m.mark.name }];
      if (m.event === 'clear') return [{ type: 'clear' }];
      return [{ type: 'other', raw: m }];
    },
    ackMark: (name) => farText({ ...from('mark'), sequence_number: String(n++), stream_sid: sid, mark: { name } }),
    onClear: (dropped) => dropped.map((name) => p.ackMark!(name)!),
  };
  return p;
}

mediaStreamSuite({
  provider: 'exotel',
  perCallToken: true,
  rate: 8000,
  protocol: exotelProtocol,
  acknowledges: true,
  interrupts: true,
  dtmf: true,
  checkAudio: (pcm) => assert.ok(pcm.length * 2 >= 3200 && (pcm.length * 2) % 320 === 0, `chunk of ${pcm.length * 2} bytes`),
  junk: [{ text: 'not json' }, { text: '{"event":"media","media":{"payload":42}}' }, { text: '{"event":"dtmf","dtmf":{"digit":"XYZ"}}' }, { binary: new Uint8Array([1, 2, 3]) }],
});

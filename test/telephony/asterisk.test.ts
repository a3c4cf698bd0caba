import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startOf } from './wire.ts';
import { g711Decode, g711Encode } from './far-codec.ts';
import { asterisk, parseControl } from '../../transports/telephony/asterisk.ts';
import type { PlatformProtocol } from './far-end.ts';
import { mediaStreamSuite } from './media-stream-suite.ts';

const open = () => asterisk.open({ url: new URL('ws://h/telephony/asterisk'), headers: {} });
const textOf = (m: unknown) => (m as { text: string }).text;

describe('asterisk chan_websocket wire format', () => {
  it('reads plain-text MEDIA_START (format, frame size, channel) and answers in plain text, with no marks', () => {
    const c = open();
    const s = startOf(c.parse({ text: 'MEDIA_START connection_id:e226e283 channel:WebSocket/connection1/0x5140001a0040 format:ulaw optimal_frame_size:160 ptime:20' }));
    assert.equal(s.call.callId, 'e226e283');
    assert.equal(s.call.parameters.channel, 'WebSocket/connection1/0x5140001a0040');
    assert.deepEqual({ codec: s.input.codec, rate: s.input.sampleRate }, { codec: 'mulaw', rate: 8000 });
    assert.equal(s.output!.frameMs % 20, 0, 'whole 20 ms frames');
    assert.equal(textOf(c.clear!()), 'FLUSH_MEDIA');
    assert.deepEqual(c.hangup!().map(textOf), ['HANGUP']);
    assert.equal(c.mark, undefined, 'plain text has no per-mark report: the transport paces on its clock');
  });

  it('reads JSON MEDIA_START with channel variables and answers in JSON, with MARK_MEDIA marks', () => {
    const c = open();
    const s = startOf(c.parse({ text: JSON.stringify({ event: 'MEDIA_START', connection_id: 'media1', channel: 'WebSocket/media1/0x1', channel_id: '1761245643.1', format: 'slin16', optimal_frame_size: 640, ptime: 20, channel_variables: { CALLERID: '0501234567' } }) }));
    assert.equal(s.call.callId, '1761245643.1');
    assert.equal(s.call.parameters.CALLERID, '0501234567');
    assert.equal(s.input.sampleRate, 16000);
    assert.deepEqual(JSON.parse(textOf(c.clear!())), { command: 'FLUSH_MEDIA' });
    assert.deepEqual(JSON.parse(textOf(c.mark!('h4'))), { command: 'MARK_MEDIA', correlation_id: 'h4' });
    assert.deepEqual(c.parse({ text: JSON.stringify({ event: 'MEDIA_MARK_PROCESSED', channel_id: '1761245643.1', correlation_id: 'h4' }) }), [{ type: 'mark', name: 'h4' }]);
    assert.deepEqual(c.parse({ text: JSON.stringify({ event: 'DTMF_END', channel_id: '1', digit: '#' }) }), [{ type: 'dtmf', digit: '#' }]);
  });

  it('parses DTMF, flow control and media; refuses audio before MEDIA_START and unknown formats', () => {
    const c = open();
    assert.equal(c.parse({ binary: new Uint8Array(160) })[0]!.type, 'invalid');
    assert.equal(open().parse({ text: 'MEDIA_START connection_id:x format:g729 optimal_frame_size:20' })[0]!.type, 'invalid');
    c.parse({ text: 'MEDIA_START connection_id:x channel:y format:alaw optimal_frame_size:160' });
    assert.deepEqual(c.parse({ text: 'DTMF_END digit:5' }), [{ type: 'dtmf', digit: '5' }]);
    assert.deepEqual(c.parse({ text: 'MEDIA_XOFF' }), [{ type: 'pause-output' }]);
    assert.deepEqual(c.parse({ text: 'MEDIA_XON' }), [{ type: 'resume-output' }]);
    assert.deepEqual(c.parse({ text: 'QUEUE_DRAINED' }), []);
    assert.deepEqual(c.parse({ binary: new Uint8Array([1, 2]) }), [{ type: 'audio', payload: new Uint8Array([1, 2]) }]);
    for (const bad of ['', 'lowercase junk', '{"no":"event"}', 'SOMETHING_NEW x:y', 'DTMF_END digit:Z']) assert.equal(c.parse({ text: bad })[0]!.type, 'invalid', bad);
  });

  it('splits plain-text fields at the first colon', () => {
    assert.deepEqual(parseControl('STATUS queue_length:43 xon_level:800 bulk_media:true')!.fields, { queue_length: '43', xon_level: '800', bulk_media: 'true' });
    assert.deepEqual(parseControl('MEDIA_START channel:PJSIP/a:b-0001')!.fields, { channel: 'PJSIP/a:b-0001' });
  });
});

/** chan_websocket's side: MEDIA_START, ulaw binary frames, commands as text; JSON or plain-text control. */
function asteriskProtocol(control: 'json' | 'plain') {
  return (callId: string): PlatformProtocol => {
    const say = (event: string, fields: Record<string, string | number>) =>
      control === 'json' ? { text: JSON.stringify({ event, channel_id: callId, ...fields }) } : { text: [event, ...Object.entries(fields).map(([k, v]) => `${k}:${v}`)].join(' ') };
    const p: PlatformProtocol = {
      rate: 8000,
      opening: () => [control === 'json' ? say('MEDIA_START', { connection_id: 'c1', channel: `WebSocket/c1/${callId}`, format: 'ulaw', optimal_frame_size: 160, ptime: 20 }) : say('MEDIA_START', { connection_id: callId, channel: `WebSocket/c1/0x1`, format: 'ulaw', optimal_frame_size: 160, ptime: 20 })],
      audio: (pcm) => ({ binary: g711Encode('mulaw', pcm) }),
      dtmf: (digit) => say('DTMF_END', { digit }),
      read(msg) {
        if ('binary' in msg) return [{ type: 'audio', pcm: g711Decode('mulaw', msg.binary) }];
        const cmd = control === 'json' ? (JSON.parse(msg.text) as Record<string, string>) : { command: msg.text.split(' ')[0]!, correlation_id: msg.text.split(' ')[1]! };
        assert.ok(control === 'json' ? msg.text.startsWith('{') : !msg.text.startsWith('{'), `answered in ${control}: ${msg.text}`);
        if (cmd.command === 'FLUSH_MEDIA') return [{ type: 'clear' }];
        if (cmd.command === 'MARK_MEDIA') return [{ type: 'mark', name: cmd.correlation_id! }];
        return [{ type: 'other', raw: msg.text }];
      },
      // Asterisk reports a mark when it reaches the front of the queue; flushed marks are never reported.
      ackMark: (name) => say('MEDIA_MARK_PROCESSED', { correlation_id: name }),
    };
    return p;
  };
}

const base = {
  provider: 'asterisk',
  // As websocket_client.conf asks (`protocols = media`); the server names it back, or ws fails the handshake.
  protocols: ['media'],
  rate: 8000,
  interrupts: true,
  dtmf: true,
  checkAudio: (pcm: Int16Array) => assert.equal(pcm.length % 160, 0, 'whole 20 ms ulaw frames'),
  junk: [{ text: 'NOT_AN_EVENT x:y' }, { text: '{"event":"DTMF_END","digit":"XY"}' }, { text: 'garbage words' }],
};

mediaStreamSuite({ ...base, protocol: asteriskProtocol('json'), acknowledges: true });
// The plain-text control format of Asterisk before 20.18/22.8: no per-mark report, the send clock says what was heard.
mediaStreamSuite({ ...base, protocol: asteriskProtocol('plain'), acknowledges: false, variant: 'plain-text control', only: ['barge-in'] });

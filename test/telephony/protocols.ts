import { mulaw } from '../../src/audio/g711.ts';
import { decode, encode } from '../../transports/telephony/codec.ts';
import { b64, fromB64, json, parseJson, type WireMessage } from '../../transports/telephony/provider.ts';
import type { PlatformProtocol, ServerSays } from './far-end.ts';

/** Deviations from the protocol seen in what the server sent (wrong ids, sizes, formats). */
export interface Checked {
  problems: string[];
}

const L16_16K = { codec: 'l16', sampleRate: 16000, frameMs: 20 } as const;

/** Telnyx, bidirectional RTP mode; `swapPairs` delivers every two media frames in reverse order (Telnyx does not guarantee order). */
export function telnyxProtocol(callControlId: string, opts: { swapPairs?: boolean } = {}): PlatformProtocol & Checked {
  const streamId = `stream-${callControlId}`;
  let n = 1;
  let held: WireMessage | undefined;
  const p = {
    rate: 8000,
    problems: [] as string[],
    opening: () => [
      json({ event: 'connected', version: '1.0.0' }),
      json({
        event: 'start',
        sequence_number: String(n++),
        stream_id: streamId,
        start: { user_id: 'u1', call_control_id: callControlId, client_state: 'YWJj', from: '+971500000001', to: '+97140000000', media_format: { encoding: 'PCMU', sample_rate: 8000, channels: 1 } },
      }),
    ],
    audio(pcm: Int16Array, seq: number): WireMessage[] {
      const m = json({ event: 'media', sequence_number: String(n++), stream_id: streamId, media: { track: 'inbound', chunk: String(seq), timestamp: String(seq * 20), payload: b64(mulaw.encode(pcm)) } });
      if (!opts.swapPairs) return [m];
      if (seq % 2 === 1) {
        held = m;
        return [];
      }
      const out = held ? [m, held] : [m];
      held = undefined;
      return out;
    },
    dtmf: (digit: string) => json({ event: 'dtmf', stream_id: streamId, dtmf: { digit } }),
    stop: () => json({ event: 'stop', stream_id: streamId }),
    read(msg: WireMessage): ServerSays[] {
      const m = parseJson(msg);
      if (!m) return [{ type: 'other', raw: msg }];
      if (m.event === 'media') return [{ type: 'audio', pcm: mulaw.decode(fromB64(m.media.payload)) }];
      if (m.event === 'mark') return [{ type: 'mark', name: m.mark.name }];
      if (m.event === 'clear') return [{ type: 'clear' }];
      return [{ type: 'other', raw: m }];
    },
    ackMark: (name: string) => json({ event: 'mark', stream_id: streamId, mark: { name } }),
    onClear: (dropped: string[]) => dropped.map((name) => p.ackMark(name)),
  };
  return p;
}

/** Plivo, `<Stream bidirectional="true" contentType="audio/x-mulaw;rate=8000">`. */
export function plivoProtocol(callId: string, extraHeaders = '{}'): PlatformProtocol & Checked {
  const streamId = `st-${callId}`;
  let n = 0;
  const p = {
    rate: 8000,
    problems: [] as string[],
    opening: () => [
      json({ event: 'start', sequenceNumber: n++, start: { callId, streamId, accountId: 'MA1', tracks: ['inbound'], mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000 } }, extra_headers: extraHeaders }),
    ],
    audio: (pcm: Int16Array, seq: number) =>
      json({ event: 'media', sequenceNumber: n++, streamId, media: { track: 'inbound', timestamp: String(seq * 20), chunk: seq, payload: b64(mulaw.encode(pcm)) } }),
    dtmf: (digit: string) => json({ event: 'dtmf', sequenceNumber: n++, streamId, dtmf: { track: 'inbound', digit, timestamp: '0' } }),
    read(msg: WireMessage): ServerSays[] {
      const m = parseJson(msg);
      if (!m) return [{ type: 'other', raw: msg }];
      if (m.event === 'playAudio') {
        if (m.media?.contentType !== 'audio/x-mulaw' || m.media?.sampleRate !== 8000) p.problems.push(`playAudio as ${m.media?.contentType}/${m.media?.sampleRate}`);
        return [{ type: 'audio', pcm: mulaw.decode(fromB64(m.media.payload)) }];
      }
      if (m.event === 'checkpoint') {
        if (m.streamId !== streamId) p.problems.push('checkpoint for another stream');
        return [{ type: 'mark', name: m.name }];
      }
      if (m.event === 'clearAudio') return [{ type: 'clear' }];
      return [{ type: 'other', raw: m }];
    },
    ackMark: (name: string) => json({ event: 'playedStream', sequenceNumber: n++, streamId, name }),
    onClear: () => [json({ event: 'clearedAudio', sequenceNumber: n++, streamId })],
  };
  return p;
}

/** Vonage, NCCO websocket endpoint with `audio/l16;rate=16000`. */
export function vonageProtocol(headers: Record<string, string>): PlatformProtocol & Checked {
  const p = {
    rate: 16000,
    problems: [] as string[],
    opening: () => [json({ event: 'websocket:connected', 'content-type': 'audio/l16;rate=16000', ...headers })],
    audio: (pcm: Int16Array) => ({ binary: encode(L16_16K, pcm) }),
    dtmf: (digit: string) => json({ event: 'websocket:dtmf', digit, duration: 260 }),
    read(msg: WireMessage): ServerSays[] {
      if ('binary' in msg) {
        if (msg.binary.byteLength !== 640) p.problems.push(`binary frame of ${msg.binary.byteLength} bytes`);
        return [{ type: 'audio', pcm: decode(L16_16K, msg.binary) }];
      }
      const m = parseJson(msg);
      if (m?.action === 'clear') return [{ type: 'clear' }];
      if (m?.action === 'notify') return [{ type: 'mark', name: m.payload?.mark }];
      return [{ type: 'other', raw: m ?? msg }];
    },
    ackMark: (name: string) => json({ event: 'websocket:notify', payload: { mark: name } }),
    onClear: () => [json({ event: 'websocket:cleared' })],
  };
  return p;
}

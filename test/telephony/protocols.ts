import type { PlatformProtocol, ServerSays, WireMessage } from './far-end.ts';
import { fromBase64, g711Decode, g711Encode, l16Decode, l16Encode, readJson, text, toBase64 } from './far-codec.ts';
import { platformFixture } from './fixture-files.ts';

/**
 * The platforms' side of their media streams, for the far ends in tests. Each message is the
 * documented one of test/fixtures/platforms/<platform>/ with the call's ids and audio put in;
 * audio goes through far-codec.ts (the ITU-T G.711 table, Buffer for L16), never through the
 * transport's own helpers, so a misread protocol cannot pass on both sides.
 */

/** Deviations from the protocol seen in what the server sent (wrong ids, sizes, formats). */
export interface Checked {
  problems: string[];
}

const documented = (platform: string) => {
  const doc = platformFixture(platform).fromPlatform;
  return (k: string) => structuredClone(doc[k].message);
};

/** Telnyx, bidirectional RTP mode; `swapPairs` delivers every two media frames in reverse order (Telnyx does not guarantee order). */
export function telnyxProtocol(callControlId: string, opts: { swapPairs?: boolean } = {}): PlatformProtocol & Checked {
  const from = documented('telnyx');
  const streamId = `stream-${callControlId}`;
  let n = 1;
  let held: WireMessage | undefined;
  const p = {
    rate: 8000,
    problems: [] as string[],
    opening: () => {
      const start = from('start');
      Object.assign(start, { sequence_number: String(n++), stream_id: streamId });
      Object.assign(start.start, { call_control_id: callControlId, client_state: 'YWJj', from: '+971500000001', to: '+97140000000', custom_parameters: {} });
      return [text(from('connected')), text(start)];
    },
    audio(pcm: Int16Array, seq: number): WireMessage[] {
      const m = from('media');
      Object.assign(m, { sequence_number: String(n++), stream_id: streamId });
      Object.assign(m.media, { chunk: String(seq), timestamp: String(seq * 20), payload: toBase64(g711Encode('mulaw', pcm)) });
      const msg = text(m);
      if (!opts.swapPairs) return [msg];
      if (seq % 2 === 1) {
        held = msg;
        return [];
      }
      const out = held ? [msg, held] : [msg];
      held = undefined;
      return out;
    },
    dtmf: (digit: string) => {
      const m = from('dtmf');
      Object.assign(m, { stream_id: streamId, sequence_number: String(n++) });
      m.dtmf.digit = digit;
      return text(m);
    },
    stop: () => {
      const m = from('stop');
      Object.assign(m, { stream_id: streamId, sequence_number: String(n++) });
      m.stop.call_control_id = callControlId;
      return text(m);
    },
    read(msg: WireMessage): ServerSays[] {
      const m = readJson(msg);
      if (!m) return [{ type: 'other', raw: msg }];
      if (m.event === 'media') return [{ type: 'audio', pcm: g711Decode('mulaw', fromBase64(m.media.payload)) }];
      if (m.event === 'mark') return [{ type: 'mark', name: m.mark.name }];
      if (m.event === 'clear') return [{ type: 'clear' }];
      return [{ type: 'other', raw: m }];
    },
    ackMark: (name: string) => {
      const m = from('mark');
      Object.assign(m, { stream_id: streamId, sequence_number: String(n++), mark: { name } });
      return text(m);
    },
    onClear: (dropped: string[]) => dropped.map((name) => p.ackMark(name)),
  };
  return p;
}

/** Plivo, `<Stream bidirectional="true" contentType="audio/x-mulaw;rate=8000">`. */
export function plivoProtocol(callId: string, extraHeaders = ''): PlatformProtocol & Checked {
  const from = documented('plivo');
  const streamId = `st-${callId}`;
  let n = 1;
  const p = {
    rate: 8000,
    problems: [] as string[],
    opening: () => {
      const start = from('start');
      start.sequenceNumber = n++;
      Object.assign(start.start, { callId, streamId });
      start.extra_headers = extraHeaders;
      return [text(start)];
    },
    audio: (pcm: Int16Array, seq: number) => {
      const m = from('media');
      Object.assign(m, { sequenceNumber: n++, streamId, extra_headers: extraHeaders });
      Object.assign(m.media, { timestamp: String(seq * 20), chunk: seq, payload: toBase64(g711Encode('mulaw', pcm)) });
      return text(m);
    },
    dtmf: (digit: string) => {
      const m = from('dtmf');
      Object.assign(m, { sequenceNumber: n++, streamId });
      m.dtmf.digit = digit;
      return text(m);
    },
    read(msg: WireMessage): ServerSays[] {
      const m = readJson(msg);
      if (!m) return [{ type: 'other', raw: msg }];
      if (m.event === 'playAudio') {
        if (m.media?.contentType !== 'audio/x-mulaw' || m.media?.sampleRate !== 8000) p.problems.push(`playAudio as ${m.media?.contentType}/${m.media?.sampleRate}`);
        return [{ type: 'audio', pcm: g711Decode('mulaw', fromBase64(m.media.payload)) }];
      }
      if (m.event === 'checkpoint') {
        if (m.streamId !== streamId) p.problems.push('checkpoint for another stream');
        return [{ type: 'mark', name: m.name }];
      }
      if (m.event === 'clearAudio') return [{ type: 'clear' }];
      return [{ type: 'other', raw: m }];
    },
    ackMark: (name: string) => text({ ...from('playedStream'), streamId, name }),
    onClear: () => [text({ ...from('clearedAudio'), sequenceNumber: n++, streamId })],
  };
  return p;
}

/** Vonage, NCCO websocket endpoint with `audio/l16;rate=16000`: the NCCO's headers in the connected frame. */
export function vonageProtocol(headers: Record<string, string>): PlatformProtocol & Checked {
  const from = documented('vonage');
  const p = {
    rate: 16000,
    problems: [] as string[],
    opening: () => {
      const { prop1: _1, prop2: _2, ...connected } = from('connected');
      return [text({ ...connected, ...headers })];
    },
    audio: (pcm: Int16Array) => ({ binary: l16Encode(pcm) }),
    dtmf: (digit: string) => text({ ...from('dtmf'), digit }),
    read(msg: WireMessage): ServerSays[] {
      if ('binary' in msg) {
        if (msg.binary.byteLength !== 640) p.problems.push(`binary frame of ${msg.binary.byteLength} bytes`);
        return [{ type: 'audio', pcm: l16Decode(msg.binary) }];
      }
      const m = readJson(msg);
      if (m?.action === 'clear') return [{ type: 'clear' }];
      if (m?.action === 'notify') return [{ type: 'mark', name: m.payload?.mark }];
      return [{ type: 'other', raw: m ?? msg }];
    },
    ackMark: (name: string) => text({ ...from('notify'), payload: { mark: name } }),
    onClear: () => [text(from('cleared'))],
  };
  return p;
}

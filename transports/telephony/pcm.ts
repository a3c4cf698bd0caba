/**
 * hiwar's generic media-stream protocol, for gateways of the user's own (documented in
 * docs/telephony.md, "Generic PCM protocol"): one WebSocket per call at
 * `/telephony/pcm?rate=16000&call_id=…`; BINARY frames are 16-bit little-endian mono PCM at
 * `rate` both ways; TEXT frames are JSON control messages with a `type`.
 *
 * From the gateway: `{"type":"dtmf","digit":"5"}`, `{"type":"mark","name":"…"}` (echo of a
 * server mark once everything before it was played), `{"type":"hangup"}` (or just close).
 * From the server: `{"type":"mark","name":"…"}`, `{"type":"clear"}` (drop all buffered agent
 * audio now: barge-in), `{"type":"hangup","reason":"…"}` before it closes the socket.
 *
 * A gateway that cannot echo marks connects with `marks=0`: the server then paces agent audio on
 * its own clock, keeping a small lead, and reports playout from that clock.
 */
import { randomUUID } from 'node:crypto';
import { dtmfDigit, json, parseJson, type Inbound, type MediaFormat, type ProviderConnection, type TelephonyProvider, type WireMessage } from './provider.ts';

export const PCM_RATES = [8000, 16000, 24000, 48000];
/**
 * Milliseconds of agent audio per BINARY message.
 * @default 20
 */
export const PCM_FRAME_MS = 20;
/** Query parameters with a meaning of their own; every other one is a custom call parameter. */
const RESERVED = new Set(['token', 'rate', 'call_id', 'from', 'to', 'marks']);

class PcmConnection implements ProviderConnection {
  private readonly format: MediaFormat | undefined;
  /** Absent with `marks=0`: the transport then reports playout from its send clock. */
  readonly mark?: (name: string) => WireMessage;

  constructor(private readonly url: URL, private readonly claims: { callId?: string; parameters?: Record<string, string> } | undefined) {
    const rate = Number(url.searchParams.get('rate') ?? 16000);
    this.format = PCM_RATES.includes(rate) ? { codec: 'l16', sampleRate: rate, frameMs: PCM_FRAME_MS } : undefined;
    if (url.searchParams.get('marks') !== '0') this.mark = (name) => json({ type: 'mark', name });
  }

  opened(): Inbound[] {
    if (!this.format) return [{ type: 'invalid', reason: `rate must be one of ${PCM_RATES.join(', ')}` }, { type: 'stop', reason: 'bad rate' }];
    const q = this.url.searchParams;
    const parameters: Record<string, string> = { ...this.claims?.parameters };
    for (const [k, v] of q) if (!RESERVED.has(k)) parameters[k] = v;
    return [
      {
        type: 'start',
        call: { callId: this.claims?.callId ?? q.get('call_id') ?? `pcm-${randomUUID()}`, from: q.get('from') ?? undefined, to: q.get('to') ?? undefined, parameters },
        input: this.format,
        output: this.format,
      },
    ];
  }

  parse(msg: WireMessage): Inbound[] {
    if ('binary' in msg) {
      if (msg.binary.byteLength % 2) return [{ type: 'invalid', reason: 'PCM16 frame with an odd number of bytes' }];
      return [{ type: 'audio', payload: msg.binary }];
    }
    const m = parseJson(msg);
    if (!m) return [{ type: 'invalid', reason: 'control messages are JSON objects' }];
    switch (m.type) {
      case 'dtmf': {
        const digit = dtmfDigit(m.digit);
        return digit ? [{ type: 'dtmf', digit, durationMs: typeof m.durationMs === 'number' ? m.durationMs : undefined }] : [{ type: 'invalid', reason: `not a DTMF digit: ${JSON.stringify(m.digit)}` }];
      }
      case 'mark':
        return typeof m.name === 'string' ? [{ type: 'mark', name: m.name }] : [{ type: 'invalid', reason: 'mark without a name' }];
      case 'hangup':
      case 'stop':
        return [{ type: 'stop', reason: typeof m.reason === 'string' ? m.reason : 'caller hung up' }];
      default:
        return [{ type: 'invalid', reason: `unknown control message type ${JSON.stringify(m.type)}` }];
    }
  }

  encodeAudio(payload: Uint8Array): WireMessage {
    return { binary: payload };
  }

  clear(): WireMessage {
    return json({ type: 'clear' });
  }

  hangup(reason?: string): WireMessage[] {
    return [json({ type: 'hangup', reason: reason ?? 'agent hung up' })];
  }
}

export const pcm: TelephonyProvider = {
  name: 'pcm',
  staticMediaToken: true,
  open: (ctx) => new PcmConnection(ctx.url, ctx.claims),
};

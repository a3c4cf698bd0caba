/**
 * FreeSWITCH mod_audio_stream: `uuid_audio_stream <uuid> start ws://host/telephony/freeswitch?…
 * mono 16k <metadata>` streams the channel as BINARY L16 (8k or 16k, as the command says) and
 * sends the optional metadata as the first TEXT frame. Agent audio goes back as JSON
 * `{"type":"streamAudio","data":{"audioDataType":"raw","sampleRate":…,"audioData":"<base64>"}}`
 * which the module plays into the channel.
 *
 * The module acknowledges nothing and has no in-stream "stop playing": the transport paces agent
 * audio on its clock (keeping only a small lead in FreeSWITCH) and reports playout from that clock;
 * on barge-in it stops sending, and the rest of what FreeSWITCH holds can be cut with `uuid_break`
 * through the user's event-socket hook (docs/telephony.md). Closing the socket ends the stream;
 * hanging the call up is the `hangup` hook (ESL `uuid_kill`). Keys reach the agent when the
 * dialplan forwards them as `{"type":"dtmf","digit":"5"}` with `uuid_audio_stream … send_text`.
 *
 * The stream URL says what the command cannot: `rate` (must match the command's 8k/16k), and
 * optionally `call_id`; the metadata text, when it is JSON, adds `uuid`/`call_id`, `from`, `to`
 * and custom parameters. Without metadata the call starts with the first audio frame.
 */
import { b64, dtmfEvent, json, type Inbound, type MediaFormat, type ProviderConnection, type TelephonyProvider, type WireMessage } from './provider.ts';
import { randomUUID } from 'node:crypto';

const RATES = [8000, 16000];
/**
 * Milliseconds of agent audio per streamAudio message: each one is queued as a playback in
 * FreeSWITCH, so messages are longer than a network frame.
 * @default 200
 */
export const FREESWITCH_MESSAGE_MS = 200;
const RESERVED = new Set(['token', 'rate', 'call_id']);

class FreeswitchConnection implements ProviderConnection {
  private started = false;
  private readonly format: MediaFormat | undefined;
  private readonly urlParameters: Record<string, string> = {};

  constructor(private readonly url: URL) {
    const rate = Number(url.searchParams.get('rate') ?? 8000);
    this.format = RATES.includes(rate) ? { codec: 'l16', sampleRate: rate, frameMs: FREESWITCH_MESSAGE_MS } : undefined;
    for (const [k, v] of url.searchParams) if (!RESERVED.has(k)) this.urlParameters[k] = v;
  }

  parse(msg: WireMessage): Inbound[] {
    if (!this.format) return [{ type: 'invalid', reason: `rate must be 8000 or 16000 (the uuid_audio_stream 8k/16k), got ${this.url.searchParams.get('rate')}` }];
    if ('binary' in msg) {
      // No metadata was sent: the call starts with its first audio.
      const start = this.started ? [] : [this.start({})];
      return [...start, { type: 'audio', payload: msg.binary }];
    }
    if (this.started) return this.control(msg.text);
    let meta: Record<string, unknown> = {};
    try {
      const v = JSON.parse(msg.text);
      if (v && typeof v === 'object' && !Array.isArray(v)) meta = v;
      else meta = { metadata: msg.text };
    } catch {
      meta = { metadata: msg.text };
    }
    return [this.start(meta)];
  }

  /**
   * Text after the start: DTMF forwarded by the dialplan or ESL with
   * `uuid_audio_stream <uuid> send_text {"type":"dtmf","digit":"5"}` (mod_audio_stream itself
   * forwards no keys). Anything else is counted as unreadable.
   */
  private control(text: string): Inbound[] {
    let m: Record<string, unknown> | undefined;
    try {
      m = JSON.parse(text);
    } catch {
      // not JSON
    }
    if (m?.type === 'dtmf') {
      return dtmfEvent(m.digit, `not a DTMF digit: ${JSON.stringify(m.digit)}`);
    }
    if (m?.type === 'hangup') return [{ type: 'stop', reason: 'caller hung up' }];
    return [{ type: 'invalid', reason: `unexpected text from FreeSWITCH: ${text.slice(0, 60)}` }];
  }

  private start(meta: Record<string, unknown>): Inbound {
    this.started = true;
    const s = (k: string) => (typeof meta[k] === 'string' || typeof meta[k] === 'number' ? String(meta[k]) : undefined);
    const parameters = { ...this.urlParameters };
    for (const [k, v] of Object.entries(meta)) if (!['uuid', 'call_id', 'from', 'to'].includes(k) && (typeof v === 'string' || typeof v === 'number')) parameters[k] = String(v);
    const callId = s('uuid') ?? s('call_id') ?? this.url.searchParams.get('call_id') ?? `freeswitch-${randomUUID()}`;
    return { type: 'start', call: { callId, from: s('from'), to: s('to'), parameters }, input: { ...this.format!, frameMs: 20 }, output: this.format! };
  }

  encodeAudio(payload: Uint8Array): WireMessage {
    return json({ type: 'streamAudio', data: { audioDataType: 'raw', sampleRate: this.format!.sampleRate, audioData: b64(payload) } });
  }
}

export const freeswitch: TelephonyProvider = {
  name: 'freeswitch',
  staticMediaToken: true,
  open: (ctx) => new FreeswitchConnection(ctx.url),
};

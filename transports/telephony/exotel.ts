/**
 * Exotel Voicebot applet (bidirectional stream). Exotel sends `connected`, `start` (stream_sid,
 * call_sid, from, to, custom_parameters, media_format), then `media` with base64 audio (raw
 * 16-bit little-endian PCM by default; mu-law when the applet's extended media format says so),
 * `dtmf`, `mark` echoes and `stop`. Agent audio goes back as `media` in chunks of at least 3.2 KB
 * that are whole multiples of 320 bytes (Exotel's chunk rules); barge-in is `clear`; a `mark` is
 * echoed once the audio before it was played.
 *
 * The sample rate is chosen in the applet URL (`?sample-rate=16000`) and repeated in `start`;
 * custom parameters arrive both as URL query parameters and in `start.custom_parameters`.
 *
 * The applet takes either the stream URL itself (with `?token=` the server's media token) or an
 * HTTPS endpoint that answers with the stream URL: `GET /telephony/exotel` answers
 * `{"url":"wss://…/telephony/exotel/stream/<per-call token>"}`. Exotel does not sign its
 * requests; it can send Basic credentials put in that endpoint's URL, checked against
 * `EXOTEL_BASIC_AUTH` (`user:password`). Closing the stream moves the flow to its next applet.
 */
import { safeEqual } from '../../src/server/tokens.ts';
import { b64, dtmfDigit, fromB64, json, parseJson, type Inbound, type MediaFormat, type ProviderConnection, type TelephonyProvider, type WebhookContext, type WireCodec } from './provider.ts';

/** Exotel's chunk rules: whole multiples of 320 bytes, never under 3200 bytes. */
export const EXOTEL_CHUNK_QUANTUM = 320;
export const EXOTEL_MIN_CHUNK = 3200;
const RATES = [8000, 16000, 24000];
/** Query parameters of the stream URL that are ours, not the user's custom parameters. */
const RESERVED = new Set(['token', 'sample-rate', 'sample_rate']);

export function exotelCodec(encoding: unknown): WireCodec {
  return typeof encoding === 'string' && /mulaw|ulaw|pcmu/i.test(encoding) ? 'mulaw' : 'l16';
}

/** The outbound format: 100 ms messages, stretched to Exotel's 3.2 KB floor where 100 ms is less. */
export function exotelFormat(codec: WireCodec, sampleRate: number): MediaFormat {
  const bytesPerMs = (sampleRate / 1000) * (codec === 'l16' ? 2 : 1);
  const bytes = Math.ceil(Math.max(EXOTEL_MIN_CHUNK, bytesPerMs * 100) / EXOTEL_CHUNK_QUANTUM) * EXOTEL_CHUNK_QUANTUM;
  return { codec, sampleRate, frameMs: bytes / bytesPerMs };
}

const rateOf = (v: unknown, fallback: number): number | undefined => {
  const n = v === undefined || v === '' ? fallback : Number(v);
  return RATES.includes(n) ? n : undefined;
};

const stringsOf = (v: unknown): Record<string, string> =>
  Object.fromEntries(
    Object.entries(v && typeof v === 'object' ? (v as Record<string, unknown>) : {})
      .filter(([, val]) => typeof val === 'string' || typeof val === 'number')
      .map(([k, val]) => [k, String(val)]),
  );

class ExotelConnection implements ProviderConnection {
  private streamSid = '';
  private readonly urlRate: number | undefined;
  private readonly urlParameters: Record<string, string> = {};

  constructor(url: URL) {
    this.urlRate = rateOf(url.searchParams.get('sample-rate') ?? url.searchParams.get('sample_rate') ?? undefined, 8000);
    for (const [k, v] of url.searchParams) if (!RESERVED.has(k)) this.urlParameters[k] = v;
  }

  parse(msg: Parameters<ProviderConnection['parse']>[0]): Inbound[] {
    const m = parseJson(msg);
    if (!m) return [{ type: 'invalid', reason: 'Exotel sends JSON text messages only' }];
    switch (m.event) {
      case 'connected':
      case 'clear':
        return [];
      case 'start':
        return [this.start(m)];
      case 'media': {
        const payload = m.media?.payload;
        if (typeof payload !== 'string') return [{ type: 'invalid', reason: 'Exotel media without a payload' }];
        const seq = Number(m.media?.chunk ?? m.sequence_number);
        return [{ type: 'audio', payload: fromB64(payload), seq: Number.isFinite(seq) ? seq : undefined }];
      }
      case 'dtmf': {
        const digit = dtmfDigit(m.dtmf?.digit);
        if (!digit) return [{ type: 'invalid', reason: `Exotel dtmf with no valid digit: ${JSON.stringify(m.dtmf?.digit)}` }];
        const duration = Number(m.dtmf?.duration);
        return [{ type: 'dtmf', digit, durationMs: duration > 0 ? duration : undefined }];
      }
      case 'mark':
        return typeof m.mark?.name === 'string' ? [{ type: 'mark', name: m.mark.name }] : [{ type: 'invalid', reason: 'Exotel mark without a name' }];
      case 'stop':
        return [{ type: 'stop', reason: `stream stopped (${typeof m.stop?.reason === 'string' ? m.stop.reason : 'no reason'})` }];
      default:
        return [{ type: 'invalid', reason: `unknown Exotel event ${JSON.stringify(m.event)}` }];
    }
  }

  private start(m: Record<string, any>): Inbound {
    const start = m.start ?? {};
    const callId = start.call_sid ?? m.call_sid;
    if (typeof callId !== 'string' || !callId) return { type: 'invalid', reason: 'Exotel start without call_sid' };
    this.streamSid = String(start.stream_sid ?? m.stream_sid ?? '');
    const format = start.media_format ?? {};
    const rate = rateOf(format.sample_rate, this.urlRate ?? 8000);
    if (!rate) return { type: 'invalid', reason: `Exotel sample rate ${JSON.stringify(format.sample_rate)} is not 8000, 16000 or 24000` };
    const codec = exotelCodec(format.encoding);
    // mu-law is 8 kHz whatever the rate field says.
    const wire = exotelFormat(codec, codec === 'mulaw' ? 8000 : rate);
    return {
      type: 'start',
      call: {
        callId,
        streamId: this.streamSid || undefined,
        from: typeof start.from === 'string' ? start.from : undefined,
        to: typeof start.to === 'string' ? start.to : undefined,
        parameters: { ...this.urlParameters, ...stringsOf(start.custom_parameters) },
      },
      input: { ...wire, frameMs: 100 },
      output: wire,
    };
  }

  encodeAudio(payload: Uint8Array) {
    return json({ event: 'media', stream_sid: this.streamSid, media: { payload: b64(payload) } });
  }

  clear() {
    return json({ event: 'clear', stream_sid: this.streamSid });
  }

  mark(name: string) {
    return json({ event: 'mark', stream_sid: this.streamSid, mark: { name } });
  }
}

/** Checks the Basic credentials Exotel sends when they are written into the applet's URL. */
export function basicAuthMatches(header: string | string[] | undefined, secret: string): boolean {
  const value = Array.isArray(header) ? header[0] : header;
  const m = /^basic\s+(.+)$/i.exec(value ?? '');
  return !!m && safeEqual(Buffer.from(m[1]!, 'base64').toString(), secret);
}

export const exotel: TelephonyProvider = {
  name: 'exotel',
  secretEnv: 'EXOTEL_BASIC_AUTH',
  // Exotel signs nothing: the secret is the Basic credentials written into the applet's URL.
  webhookCheck: 'Basic credentials',
  open: (ctx) => new ExotelConnection(ctx.url),
  /** The applet's dynamic URL endpoint: the stream URL for this call, with a per-call token. */
  answer(_route: string, ctx: WebhookContext) {
    const callId = ctx.params.CallSid ?? ctx.params.call_sid ?? ctx.params.callSid ?? '';
    if (!callId) return { status: 400, contentType: 'application/json', body: JSON.stringify({ error: 'CallSid is required' }) };
    const parameters: Record<string, string> = {};
    for (const k of ['From', 'To', 'Direction', 'CustomField']) if (ctx.params[k]) parameters[k] = ctx.params[k]!;
    // Wideband is asked for on the endpoint URL (`/telephony/exotel?sample-rate=16000`) and carried to the stream.
    const rate = ctx.url.searchParams.get('sample-rate') ?? ctx.url.searchParams.get('sample_rate');
    const query = rate && /^\d{4,5}$/.test(rate) ? `?sample-rate=${rate}` : '';
    return { contentType: 'application/json', body: JSON.stringify({ url: ctx.streamUrl(callId, parameters) + query }) };
  },
  verifySignature: (ctx, secret) => basicAuthMatches(ctx.req.headers.authorization, secret),
};

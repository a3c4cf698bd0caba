import { createPublicKey, verify } from 'node:crypto';
import { b64, dtmfEvent, json, mediaEvent, parseJson, WEBHOOK_CLOCK_SKEW_S, WEBHOOK_MAX_AGE_S, twimlDial, xmlEscape, type Inbound, type MediaFormat, type TelephonyProvider } from './provider.ts';

/**
 * Telnyx media streaming, bidirectional in RTP mode: JSON text frames like Twilio's but in
 * snake_case, frame order not guaranteed (put back in order by `media.chunk`), `clear` to
 * interrupt, marks echoed when played. Webhook: a TeXML application pointed at
 * `POST /telephony/telnyx` gets `<Connect><Stream bidirectionalMode="rtp">` and, for when the
 * stream stops, `<Redirect>` to `/telephony/telnyx/after/<token>` (hang up or dial); a Call Control
 * application passes the same stream URL as `stream_url` with `stream_bidirectional_mode: "rtp"`.
 * Requests are checked against the portal's Ed25519 public key (`TELNYX_PUBLIC_KEY`).
 */
const CODECS: Record<string, MediaFormat['codec']> = { PCMU: 'mulaw', PCMA: 'alaw', L16: 'l16' };
/** The call parameter that says which kind of Telnyx application a call came from (`call-control` for Call Control). */
export const TELNYX_APPLICATION = 'telnyx_application';

export const telnyx: TelephonyProvider = {
  name: 'telnyx',
  secretEnv: 'TELNYX_PUBLIC_KEY',
  // A TeXML call runs the <Redirect> after its <Connect> when the stream ends; a Call Control call asks nothing.
  transfersAfterStream: (parameters) => parameters[TELNYX_APPLICATION] !== 'call-control',
  // A Call Control call is ended by its hangup command only: closing the stream leaves it parked.
  callOutlivesStream: (parameters) => parameters[TELNYX_APPLICATION] === 'call-control',

  open() {
    let streamId = '';
    return {
      marksEchoedOnClear: true,
      parse(msg): Inbound[] {
        const m = parseJson(msg);
        if (!m || typeof m.event !== 'string') return [{ type: 'invalid', reason: 'not a Telnyx JSON event' }];
        switch (m.event) {
          case 'connected':
            return [];
          case 'start': {
            const s = m.start ?? {};
            streamId = String(m.stream_id ?? s.stream_id ?? '');
            const mf = s.media_format ?? {};
            const codec = CODECS[String(mf.encoding ?? 'PCMU').toUpperCase()];
            if (!codec) return [{ type: 'invalid', reason: `unsupported encoding ${mf.encoding}` }];
            const sampleRate = Number(mf.sample_rate ?? 8000) || 8000;
            // RTP carries L16 in network byte order.
            const format: MediaFormat = { codec, sampleRate, frameMs: 20, ...(codec === 'l16' ? { endian: 'be' as const } : {}) };
            const params: Record<string, string> = {};
            if (typeof s.client_state === 'string') params.client_state = s.client_state;
            for (const [k, v] of Object.entries(s.custom_parameters ?? s.customParameters ?? {})) params[k] = String(v);
            return [{ type: 'start', call: { callId: String(s.call_control_id ?? s.call_sid ?? ''), streamId, from: s.from, to: s.to, parameters: params }, input: format }];
          }
          case 'media':
            return mediaEvent(m.media, 'chunk-or-timestamp');
          case 'dtmf':
            return dtmfEvent(m.dtmf?.digit);
          case 'mark':
            return typeof m.mark?.name === 'string' ? [{ type: 'mark', name: m.mark.name }] : [{ type: 'invalid', reason: 'mark without name' }];
          case 'stop':
            return [{ type: 'stop', reason: 'caller hung up' }];
          case 'error':
            return [{ type: 'invalid', reason: `platform error: ${JSON.stringify(m.payload ?? m.error ?? {})}` }];
          default:
            return [{ type: 'invalid', reason: `unknown event ${m.event}` }];
        }
      },
      encodeAudio: (payload) => json({ event: 'media', media: { payload: b64(payload) } }),
      clear: () => json({ event: 'clear' }),
      mark: (name) => json({ event: 'mark', mark: { name } }),
    };
  },

  answer(route, ctx) {
    const callId = ctx.params.CallSid ?? ctx.params['data.payload.call_control_id'] ?? ctx.params.call_control_id ?? '';
    if (route === 'after') {
      const next = ctx.afterStream(callId);
      return texml(next?.action === 'transfer' ? twimlDial(next.target, next.summary) : '<Hangup/>');
    }
    if (route !== 'answer') return { status: 404, contentType: 'text/plain', body: 'unknown route\n' };
    if (String(ctx.req.headers['content-type'] ?? '').includes('application/json')) {
      // A Call Control event: Telnyx expects the app to answer by API; hand back what to send.
      const numbers = pick({ From: ctx.params['data.payload.from'] ?? '', To: ctx.params['data.payload.to'] ?? '' }, ['From', 'To']);
      const streamUrl = ctx.streamUrl(callId, { ...numbers, [TELNYX_APPLICATION]: 'call-control' });
      return { contentType: 'application/json', body: JSON.stringify({ stream_url: streamUrl, stream_track: 'inbound_track', stream_bidirectional_mode: 'rtp', stream_bidirectional_codec: 'PCMU' }) };
    }
    const streamUrl = ctx.streamUrl(callId, pick(ctx.params, ['From', 'To']));
    // TeXML's <Connect> has no `action` (Twilio's has): when the stream stops, the next
    // instruction runs, and the <Redirect> asks this server what follows.
    return texml(
      `<Connect><Stream url="${xmlEscape(streamUrl)}" track="inbound_track" bidirectionalMode="rtp" bidirectionalCodec="PCMU"/></Connect><Redirect method="POST">${xmlEscape(ctx.routeUrl('after', callId))}</Redirect>`,
    );
  },

  verifySignature(ctx, publicKey) {
    const sig = ctx.req.headers['telnyx-signature-ed25519'];
    const ts = ctx.req.headers['telnyx-timestamp'];
    if (typeof sig !== 'string' || typeof ts !== 'string') return false;
    // A signature older than five minutes is a replay.
    const age = Date.now() / 1000 - Number(ts);
    if (!(age < WEBHOOK_MAX_AGE_S && age > -WEBHOOK_CLOCK_SKEW_S)) return false;
    try {
      return verify(null, Buffer.concat([Buffer.from(`${ts}|`), ctx.rawBody]), ed25519Key(publicKey), Buffer.from(sig, 'base64'));
    } catch {
      return false;
    }
  },
};

const pick = (o: Record<string, string>, keys: string[]) => Object.fromEntries(keys.filter((k) => o[k]).map((k) => [k, o[k]!]));

const texml = (body: string) => ({ contentType: 'text/xml', body: `<?xml version="1.0" encoding="UTF-8"?><Response>${body}</Response>` });

/** The portal gives the raw 32-byte key in base64; node wants it wrapped as SPKI DER. */
export function ed25519Key(base64Raw: string) {
  const raw = Buffer.from(base64Raw, 'base64');
  const der = raw.length === 32 ? Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]) : raw;
  return createPublicKey({ key: der, format: 'der', type: 'spki' });
}

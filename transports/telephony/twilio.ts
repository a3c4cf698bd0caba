import { safeEqual } from '../../src/server/tokens.ts';
import { twilioSignature } from '../../src/server/twilio-signature.ts';
import { readTwilioMedia } from './twilio-media.ts';
import { b64, dtmfEvent, json, mediaEvent, parseJson, twimlDial, xmlEscape, type Inbound, type TelephonyProvider, type WebhookContext } from './provider.ts';

/**
 * Twilio Media Streams, bidirectional (`<Connect><Stream>`): JSON text frames, mu-law 8 kHz in
 * both directions, `clear` to interrupt, marks echoed when played (and when cleared).
 * Webhook: `POST /telephony/twilio` answers TwiML; `<Connect action>` brings the call back to
 * `/telephony/twilio/after/<token>` when the stream ends, which dials the transfer target the
 * agent chose or hangs up: transfer without a REST call.
 */
// One 20 ms media message per pacing step. Twilio buffers what it is sent, so `media.sendEveryMs:
// 40` (two messages per step, one write) is allowed; it is not the default yet (docs/performance.md).
const FORMAT = { codec: 'mulaw', sampleRate: 8000, frameMs: 20 } as const;

export const twilio: TelephonyProvider = {
  name: 'twilio',
  secretEnv: 'TWILIO_AUTH_TOKEN',
  transfersAfterStream: true,

  open() {
    let streamSid = '';
    // The media message is built as text: 50 a second per call, always the same shape, and its
    // only variable parts are the stream id (quoted once per stream) and base64 (never escaped).
    let mediaHead = mediaPrefix(streamSid);
    return {
      marksEchoedOnClear: true,
      readTextBytes: readTwilioMedia,
      parse(msg): Inbound[] {
        const m = parseJson(msg);
        if (!m || typeof m.event !== 'string') return [{ type: 'invalid', reason: 'not a Twilio JSON event' }];
        switch (m.event) {
          case 'connected':
            return [];
          case 'start': {
            const s = m.start ?? {};
            streamSid = String(m.streamSid ?? s.streamSid ?? '');
            mediaHead = mediaPrefix(streamSid);
            const params: Record<string, string> = { ...(s.customParameters ?? {}) };
            const enc = String(s.mediaFormat?.encoding ?? 'audio/x-mulaw');
            if (enc !== 'audio/x-mulaw') return [{ type: 'invalid', reason: `unsupported encoding ${enc}` }];
            return [
              {
                type: 'start',
                call: { callId: String(s.callSid ?? ''), streamId: streamSid, from: params.From ?? params.from, to: params.To ?? params.to, parameters: params },
                input: FORMAT,
              },
            ];
          }
          case 'media':
            return mediaEvent(m.media);
          case 'dtmf':
            return dtmfEvent(m.dtmf?.digit);
          case 'mark':
            return typeof m.mark?.name === 'string' ? [{ type: 'mark', name: m.mark.name }] : [{ type: 'invalid', reason: 'mark without name' }];
          case 'stop':
            return [{ type: 'stop', reason: 'caller hung up' }];
          default:
            return [{ type: 'invalid', reason: `unknown event ${m.event}` }];
        }
      },
      encodeAudio: (payload) => ({ text: `${mediaHead}${b64(payload)}"}}` }),
      clear: () => json({ event: 'clear', streamSid }),
      mark: (name) => json({ event: 'mark', streamSid, mark: { name } }),
    };
  },

  answer(route, ctx) {
    const callId = ctx.params.CallSid ?? '';
    if (route === 'after') {
      const next = ctx.afterStream(callId);
      const body = next?.action === 'transfer' ? twimlDial(next.target, next.summary) : '<Hangup/>';
      return twiml(body);
    }
    if (route !== 'answer') return { status: 404, contentType: 'text/plain', body: 'unknown route\n' };
    const params: Record<string, string> = {};
    for (const k of ['From', 'To', 'Direction']) if (ctx.params[k]) params[k] = ctx.params[k]!;
    const parameters = Object.entries(params)
      .map(([k, v]) => `<Parameter name="${k}" value="${xmlEscape(v)}"/>`)
      .join('');
    return twiml(
      `<Connect action="${xmlEscape(ctx.routeUrl('after', callId))}"><Stream url="${xmlEscape(ctx.streamUrl(callId, params))}">${parameters}</Stream></Connect>`,
    );
  },

  verifySignature(ctx, authToken) {
    const given = ctx.req.headers['x-twilio-signature'];
    return typeof given === 'string' && safeEqual(given, twilioSignature(authToken, ctx.publicRequestUrl, formParams(ctx)));
  },
};

/** `{"event":"media","streamSid":…,"media":{"payload":"` — what JSON.stringify writes before the audio. */
const mediaPrefix = (streamSid: string) => `{"event":"media","streamSid":${JSON.stringify(streamSid)},"media":{"payload":"`;

const twiml = (body: string) => ({ contentType: 'text/xml', body: `<?xml version="1.0" encoding="UTF-8"?><Response>${body}</Response>` });

const formParams = (ctx: WebhookContext): Record<string, string> =>
  String(ctx.req.headers['content-type'] ?? '').includes('application/x-www-form-urlencoded') ? Object.fromEntries(new URLSearchParams(ctx.rawBody.toString())) : {};

export { twilioSignature };

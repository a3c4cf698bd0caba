import { createHmac } from 'node:crypto';
import { safeEqual } from '../../src/server/tokens.ts';
import { b64, dtmfEvent, json, mediaEvent, parseJson, xmlEscape, type Inbound, type MediaFormat, type TelephonyProvider, type WebhookContext } from './provider.ts';

/**
 * Plivo audio streams (`<Stream bidirectional="true">`): JSON text frames, mu-law 8 kHz or L16
 * 8/16 kHz per `contentType`; agent audio as `playAudio`, `clearAudio` to interrupt, and
 * `checkpoint` acknowledged with `playedStream` once played. The stream keeps the call alive, so
 * the answer's `<Redirect>` runs when the agent lets go: it dials the transfer target or hangs
 * up. Requests are checked with the X-Plivo-Signature-V3 scheme and the auth token.
 */
const CONTENT_TYPES: Record<string, MediaFormat['codec']> = { 'audio/x-mulaw': 'mulaw', 'audio/x-l16': 'l16' };

export const plivo: TelephonyProvider = {
  name: 'plivo',
  secretEnv: 'PLIVO_AUTH_TOKEN',
  transfersAfterStream: true,

  open() {
    let streamId = '';
    let format: MediaFormat = { codec: 'mulaw', sampleRate: 8000, frameMs: 20 };
    return {
      parse(msg): Inbound[] {
        const m = parseJson(msg);
        if (!m || typeof m.event !== 'string') return [{ type: 'invalid', reason: 'not a Plivo JSON event' }];
        switch (m.event) {
          case 'start': {
            const s = m.start ?? {};
            streamId = String(s.streamId ?? m.streamId ?? '');
            const mf = s.mediaFormat ?? {};
            const codec = CONTENT_TYPES[String(mf.encoding ?? 'audio/x-mulaw').toLowerCase()];
            const sampleRate = Number(mf.sampleRate ?? 8000);
            if (!codec || (sampleRate !== 8000 && sampleRate !== 16000)) return [{ type: 'invalid', reason: `unsupported format ${mf.encoding}/${mf.sampleRate}` }];
            format = { codec, sampleRate, frameMs: 20 };
            return [{ type: 'start', call: { callId: String(s.callId ?? ''), streamId, parameters: extraHeaders(m.extra_headers ?? s.extraHeaders) }, input: format }];
          }
          case 'media':
            return mediaEvent(m.media);
          case 'dtmf':
            return dtmfEvent(m.dtmf?.digit ?? m.digit);
          // `played` is the older name of the acknowledgement (Plivo's support article shows it).
          case 'playedStream':
          case 'played':
            return typeof m.name === 'string' ? [{ type: 'mark', name: m.name }] : [{ type: 'invalid', reason: `${m.event} without name` }];
          case 'clearedAudio':
            return [{ type: 'cleared' }];
          case 'stop':
            return [{ type: 'stop', reason: 'caller hung up' }];
          default:
            return [{ type: 'invalid', reason: `unknown event ${m.event}` }];
        }
      },
      encodeAudio: (payload) =>
        json({ event: 'playAudio', media: { contentType: format.codec === 'mulaw' ? 'audio/x-mulaw' : 'audio/x-l16', sampleRate: format.sampleRate, payload: b64(payload) } }),
      clear: () => json({ event: 'clearAudio', streamId }),
      mark: (name) => json({ event: 'checkpoint', streamId, name }),
    };
  },

  answer(route, ctx) {
    const callId = ctx.params.CallUUID ?? '';
    if (route === 'after') {
      const next = ctx.afterStream(callId);
      if (next?.action !== 'transfer') return plivoXml('<Hangup/>');
      const target = next.target;
      return plivoXml(`<Dial>${/^sips?:/.test(target) ? `<User>${xmlEscape(target)}</User>` : `<Number>${xmlEscape(target)}</Number>`}</Dial>`);
    }
    if (route !== 'answer') return { status: 404, contentType: 'text/plain', body: 'unknown route\n' };
    const headers = Object.entries({ From: ctx.params.From, To: ctx.params.To })
      .filter(([, v]) => v)
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    return plivoXml(
      `<Stream bidirectional="true" keepCallAlive="true" contentType="audio/x-mulaw;rate=8000" streamTimeout="86400"${headers ? ` extraHeaders="${xmlEscape(headers)}"` : ''}>${xmlEscape(ctx.streamUrl(callId))}</Stream>` +
        `<Redirect>${xmlEscape(ctx.routeUrl('after', callId))}</Redirect>`,
    );
  },

  async verifySignature(ctx, authToken) {
    const sig = ctx.req.headers['x-plivo-signature-v3'];
    const nonce = ctx.req.headers['x-plivo-signature-v3-nonce'];
    if (typeof sig !== 'string' || typeof nonce !== 'string' || !nonce) return false;
    const expected = plivoSignature(authToken, ctx.req.method ?? 'POST', ctx.publicRequestUrl, formParams(ctx), nonce);
    // Plivo sends one signature per active auth token, comma-separated.
    if (!sig.split(',').some((s) => safeEqual(s.trim(), expected))) return false;
    // The request carries no time, only a nonce: each signed nonce answers once (a day's worth remembered).
    return ctx.firstUse(`nonce:${nonce}:${expected}`, PLIVO_NONCE_MS);
  },
};

/** How long a Plivo nonce stays spent. */
const PLIVO_NONCE_MS = 24 * 3600_000;

const plivoXml = (body: string) => ({ contentType: 'application/xml', body: `<?xml version="1.0" encoding="UTF-8"?><Response>${body}</Response>` });

function extraHeaders(v: unknown): Record<string, string> {
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, String(x)]));
  if (typeof v !== 'string' || !v) return {};
  try {
    const parsed = JSON.parse(v);
    if (parsed && typeof parsed === 'object') return extraHeaders(parsed);
  } catch {
    // "k=v,k2=v2" as written in the XML; Plivo's own start example shows "k=v;k2=v2"
  }
  return Object.fromEntries(v.split(/[,;]/).map((kv) => kv.split('=')).filter((p) => p.length === 2).map(([k, x]) => [k!.trim(), x!.trim()]));
}

const formParams = (ctx: WebhookContext): Record<string, string> =>
  ctx.req.method === 'POST' && String(ctx.req.headers['content-type'] ?? '').includes('application/x-www-form-urlencoded') ? Object.fromEntries(new URLSearchParams(ctx.rawBody.toString())) : {};

/**
 * Plivo's V3 request signature: HMAC-SHA256 (base64) of the URL without its query, then the
 * sorted query (`k=v&…`) after `?`, then the sorted POST fields (`kv…`, after a `.` when there
 * was a query), then `.` and the nonce.
 */
export function plivoSignature(authToken: string, method: string, url: string, post: Record<string, string>, nonce: string): string {
  const u = new URL(url);
  const query: Record<string, string> = {};
  for (const [k, v] of u.searchParams) query[k] = v;
  const body = method.toUpperCase() === 'GET' ? {} : post;
  if (method.toUpperCase() === 'GET') Object.assign(query, post);
  const q = Object.keys(query).sort().map((k) => `${k}=${query[k]}`).join('&');
  const p = Object.keys(body).sort().map((k) => k + body[k]).join('');
  let base = `${u.protocol}//${u.host}${u.pathname}`;
  if (q || p) base += `?${q}`;
  if (q && p) base += '.';
  base += p;
  return createHmac('sha256', authToken).update(`${base}.${nonce}`).digest('base64');
}

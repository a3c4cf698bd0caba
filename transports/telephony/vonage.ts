import { createHash } from 'node:crypto';
import { safeEqual } from '../../src/server/tokens.ts';
import { dtmfDigit, json, parseJson, SUMMARY_HEADER, summaryHeaderValue, WEBHOOK_CLOCK_SKEW_S, WEBHOOK_MAX_AGE_S, type Inbound, type MediaFormat, type TelephonyProvider } from './provider.ts';

/**
 * Vonage Voice API WebSockets (an NCCO `connect` to a `websocket` endpoint): a JSON text frame
 * first (`websocket:connected` with the content type and the NCCO's headers), then binary L16
 * frames of exactly 20 ms in both directions; `{"action":"clear"}` to interrupt, and
 * `{"action":"notify"}` answered with `websocket:notify` once the audio before it has played.
 * The connect is synchronous, so its event webhook can return a transfer NCCO when the agent
 * lets go. Signed webhooks: a JWT (HS256, the account's signature secret) with the body's hash
 * (`payload_hash`, required on every request), its issue time (`iat`, at most five minutes old)
 * and its id (`jti`, accepted once: a JWT replayed within its age is refused).
 */
export const vonage: TelephonyProvider = {
  name: 'vonage',
  secretEnv: 'VONAGE_SIGNATURE_SECRET',
  transfersAfterStream: true,

  open(ctx) {
    const rate = Number(ctx.url.searchParams.get('rate')) || 16000;
    let started = false;
    return {
      parse(msg): Inbound[] {
        if ('binary' in msg) {
          // Audio before the connected frame still counts: the format is the one the NCCO asked for.
          // It names no call: the one its per-call token was minted for.
          const start: Inbound[] = started ? [] : [startItem(ctx.claims?.callId ? { callId: ctx.claims.callId } : {}, rate)];
          started = true;
          return [...start, { type: 'audio', payload: msg.binary }];
        }
        const m = parseJson(msg);
        if (!m) return [{ type: 'invalid', reason: 'not JSON' }];
        const event = String(m.event ?? '');
        if (event === 'websocket:connected' || (!event && m['content-type'])) {
          if (started) return [];
          started = true;
          const r = Number(/rate=(\d+)/.exec(String(m['content-type'] ?? ''))?.[1]) || rate;
          return [startItem(m, r)];
        }
        if (event === 'websocket:dtmf') {
          const digit = dtmfDigit(m.digit ?? m.dtmf?.digit);
          return digit ? [{ type: 'dtmf', digit, ...(Number(m.duration) ? { durationMs: Number(m.duration) } : {}) }] : [{ type: 'invalid', reason: 'bad dtmf digit' }];
        }
        if (event === 'websocket:notify') {
          const name = m.payload?.mark;
          return typeof name === 'string' ? [{ type: 'mark', name }] : [];
        }
        if (event === 'websocket:cleared') return [{ type: 'cleared' }];
        if (event === 'websocket:media:error' || event === 'websocket:error') return [{ type: 'invalid', reason: `platform error ${JSON.stringify(m)}` }];
        return [{ type: 'invalid', reason: `unknown event ${event || '(none)'}` }];
      },
      encodeAudio: (payload) => ({ binary: payload }),
      clear: () => json({ action: 'clear' }),
      mark: (name) => json({ action: 'notify', payload: { mark: name } }),
    };
  },

  answer(route, ctx) {
    const callId = ctx.params.uuid ?? ctx.params.call_uuid ?? '';
    if (route === 'event') {
      const next = ctx.afterStream(callId);
      const status = ctx.params.status ?? '';
      if (next?.action === 'transfer' && ['completed', 'disconnected'].includes(status)) {
        // A SIP endpoint carries the summary as a header; a phone number cannot.
        const sipHeaders = next.summary ? { headers: { [SUMMARY_HEADER]: summaryHeaderValue(next.summary) } } : {};
        const endpoint = /^sips?:/.test(next.target) ? { type: 'sip', uri: next.target, ...sipHeaders } : { type: 'phone', number: next.target.replace(/^\+/, '') };
        return { contentType: 'application/json', body: JSON.stringify([{ action: 'connect', endpoint: [endpoint] }]) };
      }
      return { status: 204, contentType: 'text/plain', body: '' };
    }
    if (route !== 'answer') return { status: 404, contentType: 'text/plain', body: 'unknown route\n' };
    const headers: Record<string, string> = { callId };
    if (ctx.params.from) headers.from = ctx.params.from;
    if (ctx.params.to) headers.to = ctx.params.to;
    const ncco = [
      {
        action: 'connect',
        eventType: 'synchronous',
        eventUrl: [ctx.routeUrl('event', callId)],
        endpoint: [{ type: 'websocket', uri: ctx.streamUrl(callId), 'content-type': 'audio/l16;rate=16000', headers }],
      },
    ];
    return { contentType: 'application/json', body: JSON.stringify(ncco) };
  },

  async verifySignature(ctx, secret) {
    const auth = String(ctx.req.headers.authorization ?? '');
    const token = /^Bearer (.+)$/i.exec(auth)?.[1];
    if (!token) return false;
    // jose (46 modules) loads with the first Vonage webhook, not with every server
    // (docs/testing.md, "Figures: start-up").
    const { jwtVerify } = await import('jose');
    let jti: string | undefined;
    try {
      // Issued within the last five minutes (a captured JWT is useless after), unexpired when it
      // says when it expires, and bound to this very body, empty for a GET: a JWT signed for one
      // request answers no other.
      const { payload } = await jwtVerify(token, new TextEncoder().encode(secret), {
        algorithms: ['HS256'],
        requiredClaims: ['iat', 'jti', 'payload_hash'],
        maxTokenAge: WEBHOOK_MAX_AGE_S,
        clockTolerance: WEBHOOK_CLOCK_SKEW_S,
      });
      if (typeof payload.payload_hash !== 'string' || !safeEqual(payload.payload_hash, createHash('sha256').update(ctx.rawBody).digest('hex'))) return false;
      jti = typeof payload.jti === 'string' && payload.jti ? payload.jti : undefined;
    } catch {
      return false;
    }
    // The same JWT again (same request replayed within its age) is refused: each id is spent
    // once, for as long as the JWT could pass the age check (through Redis in a cluster).
    return !!jti && ctx.firstUse(`jti:${jti}`, (WEBHOOK_MAX_AGE_S + WEBHOOK_CLOCK_SKEW_S) * 1000);
  },
};

function startItem(m: Record<string, any>, sampleRate: number): Inbound {
  const format: MediaFormat = { codec: 'l16', sampleRate, frameMs: 20 };
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(m)) if (k !== 'event' && k !== 'content-type' && typeof v !== 'object') params[k] = String(v);
  return { type: 'start', call: { callId: String(m.callId ?? m.uuid ?? ''), from: m.from, to: m.to, parameters: params }, input: format };
}

import { xmlEscape } from '../provider.ts';
import { basicAuth, platformRequest, readStatus, required } from './http.ts';
import type { OutboundPlatform, OutboundStatus } from './types.ts';

/** Plivo credentials and where its API is. */
export interface PlivoOutboundOptions {
  /** @default process.env.PLIVO_AUTH_ID */
  authId?: string;
  /** @default process.env.PLIVO_AUTH_TOKEN (also what the callbacks are signed with) */
  authToken?: string;
  /** @default process.env.HIWAR_PLIVO_API_URL ?? 'https://api.plivo.com' */
  baseUrl?: string;
}

// CallStatus as Plivo sends it to the ring, answer and hangup URLs.
const STATUS: Record<string, OutboundStatus> = {
  ringing: 'ringing',
  'in-progress': 'answered',
  completed: 'completed',
  busy: 'busy',
  failed: 'failed',
  timeout: 'no-answer',
  'no-answer': 'no-answer',
  cancel: 'canceled',
};

/** Plivo wants numbers as the country code and the number, without `+`. */
const plain = (n: string) => n.replace(/^\+/, '');

/**
 * Plivo's Call API: `POST /v1/Account/{auth_id}/Call/` (JSON, basic auth). Plivo fetches
 * `answer_url` once the call is answered, which answers `<Stream bidirectional>` to this server;
 * `ring_url` and `hangup_url` report the rest (CallStatus, Duration).
 */
export function plivoOutbound(o: PlivoOutboundOptions = {}): OutboundPlatform {
  return {
    name: 'plivo',
    async dial(req) {
      const authId = required('plivo', o.authId ?? process.env.PLIVO_AUTH_ID, 'auth id', 'PLIVO_AUTH_ID');
      const token = required('plivo', o.authToken ?? process.env.PLIVO_AUTH_TOKEN, 'auth token', 'PLIVO_AUTH_TOKEN');
      const base = o.baseUrl ?? process.env.HIWAR_PLIVO_API_URL ?? 'https://api.plivo.com';
      const body = await platformRequest(
        'plivo',
        `${base}/v1/Account/${encodeURIComponent(authId)}/Call/`,
        {
          headers: { authorization: basicAuth(authId, token), 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({
            from: plain(req.from),
            to: plain(req.to),
            answer_url: req.answerUrl,
            answer_method: 'POST',
            ring_url: req.statusUrl,
            ring_method: 'POST',
            hangup_url: req.statusUrl,
            hangup_method: 'POST',
            ring_timeout: req.ringTimeoutS,
          }),
        },
        [token],
      );
      return { platformCallId: String(body.request_uuid ?? '') };
    },
    status: (p) => readStatus(STATUS, p.CallStatus, p.Duration, p.CallUUID),
    answer: (streamUrl, afterUrl) => ({
      contentType: 'application/xml',
      body: `<?xml version="1.0" encoding="UTF-8"?><Response><Stream bidirectional="true" keepCallAlive="true" contentType="audio/x-mulaw;rate=8000" streamTimeout="86400">${xmlEscape(streamUrl)}</Stream><Redirect>${xmlEscape(afterUrl)}</Redirect></Response>`,
    }),
  };
}

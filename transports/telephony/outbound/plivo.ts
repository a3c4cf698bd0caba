import { xmlEscape } from '../provider.ts';
import { basicAuth, cancelRequest, platformRequest, readStatus, required } from './http.ts';
import { DialError, type OutboundPlatform, type OutboundStatus, type StatusUpdate } from './types.ts';

/** Plivo credentials and where its API is. */
export interface PlivoOutboundOptions {
  /** @default process.env.PLIVO_AUTH_ID */
  authId?: string;
  /** @default process.env.PLIVO_AUTH_TOKEN (also what the callbacks are signed with) */
  authToken?: string;
  /** @default process.env.HIWAR_PLIVO_API_URL ?? 'https://api.plivo.com' */
  baseUrl?: string;
}

// CallStatus as Plivo sends it to the ring, answer and hangup URLs, read as Plivo's call status
// article defines each (test/fixtures/platforms/plivo/status-callbacks.json names the pages):
// `timeout` is "a timeout while connecting your call" (a carrier or network fault, not the ring
// timeout, which is `no-answer`); `cancel` is "canceled by the callee without answering", a
// declined call, which Twilio and Telnyx report as busy too, unless an API request cancelled it.
const STATUS: Record<string, OutboundStatus> = {
  ringing: 'ringing',
  'in-progress': 'answered',
  completed: 'completed',
  busy: 'busy',
  failed: 'failed',
  timeout: 'failed',
  'no-answer': 'no-answer',
  cancel: 'busy',
};

/** A `cancel` that an API request made (hangup cause 1000 Canceled, source API Request), not the callee. */
const cancelledByApi = (p: Record<string, string>) => p.CallStatus === 'cancel' && (p.HangupSource === 'API Request' || /^cancel/i.test(p.HangupCause ?? ''));

/** An ended call's record (Retrieve a call) as an outcome, by its hangup cause's name. */
function ended(r: Record<string, any>): StatusUpdate {
  const cause = String(r.hangup_cause_name ?? '');
  const duration = Number(r.call_duration);
  const answered = !!r.answer_time || r.call_state === 'ANSWER';
  const status: OutboundStatus = /busy/i.test(cause) ? 'busy' : /no answer|timeout/i.test(cause) ? 'no-answer' : /cancel/i.test(cause) ? 'canceled' : answered ? 'completed' : 'failed';
  return { status, raw: cause || String(r.call_state ?? 'ended'), ...(status === 'completed' && Number.isFinite(duration) ? { durationS: duration } : {}) };
}

/** Plivo wants numbers as the country code and the number, without `+`. */
const plain = (n: string) => n.replace(/^\+/, '');

/**
 * Plivo's Call API: `POST /v1/Account/{auth_id}/Call/` (JSON, basic auth). Plivo fetches
 * `answer_url` once the call is answered, which answers `<Stream bidirectional>` to this server;
 * `ring_url` and `hangup_url` report the rest (CallStatus, Duration).
 */
export function plivoOutbound(o: PlivoOutboundOptions = {}): OutboundPlatform {
  const creds = () => ({
    authId: required('plivo', o.authId ?? process.env.PLIVO_AUTH_ID, 'auth id', 'PLIVO_AUTH_ID'),
    token: required('plivo', o.authToken ?? process.env.PLIVO_AUTH_TOKEN, 'auth token', 'PLIVO_AUTH_TOKEN'),
    base: o.baseUrl ?? process.env.HIWAR_PLIVO_API_URL ?? 'https://api.plivo.com',
  });
  /** GET one call resource; undefined when Plivo has no such call in that state (404). */
  const get = async (path: string): Promise<Record<string, any> | undefined> => {
    const { authId, token, base } = creds();
    try {
      return await platformRequest('plivo', `${base}/v1/Account/${encodeURIComponent(authId)}/Call/${path}`, { method: 'GET', headers: { authorization: basicAuth(authId, token), accept: 'application/json' } }, [token]);
    } catch (err) {
      if (err instanceof DialError && err.status === 404) return undefined;
      throw err;
    }
  };
  const hangup = async (uuid: string | undefined): Promise<boolean> => {
    if (!uuid) return false;
    const { authId, token, base } = creds();
    const url = `${base}/v1/Account/${encodeURIComponent(authId)}/Call/${encodeURIComponent(uuid)}/`;
    return cancelRequest(() => platformRequest('plivo', url, { method: 'DELETE', headers: { authorization: basicAuth(authId, token), accept: 'application/json' } }, [token]));
  };
  return {
    name: 'plivo',
    async dial(req) {
      const { authId, token, base } = creds();
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
    status: (p) => readStatus(cancelledByApi(p) ? { cancel: 'canceled' } : STATUS, p.CallStatus, p.Duration, p.CallUUID),
    // The answered leg's record once it ended (Retrieve a call), else whether it is live or still queued.
    async fetchStatus({ platformCallId, platformLegId }) {
      if (platformLegId) {
        const done = await get(`${encodeURIComponent(platformLegId)}/`);
        if (done) return { ...ended(done), platformCallId: platformLegId };
        if (await get(`${encodeURIComponent(platformLegId)}/?status=live`)) return { status: 'answered', raw: 'live' };
        return undefined;
      }
      return platformCallId && (await get(`${encodeURIComponent(platformCallId)}/?status=queued`)) ? { status: 'queued', raw: 'queued' } : undefined;
    },
    // Hang up a call (`DELETE …/Call/{call_uuid}/`, 204), which "can also be used to cancel a
    // queued outbound call": a call not answered yet is named by its request_uuid, as when it is
    // retrieved queued; an answered one by its call_uuid (the leg its callbacks name). 404: no such call any longer.
    cancel: ({ platformCallId }) => hangup(platformCallId),
    hangUp: ({ platformCallId, platformLegId }) => hangup(platformLegId ?? platformCallId),
    answer: (streamUrl, afterUrl) => ({
      contentType: 'application/xml',
      body: `<?xml version="1.0" encoding="UTF-8"?><Response><Stream bidirectional="true" keepCallAlive="true" contentType="audio/x-mulaw;rate=8000" streamTimeout="86400">${xmlEscape(streamUrl)}</Stream><Redirect>${xmlEscape(afterUrl)}</Redirect></Response>`,
    }),
  };
}

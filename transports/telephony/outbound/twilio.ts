import { xmlEscape } from '../provider.ts';
import { basicAuth, cancelRequest, platformRequest, readStatus, required } from './http.ts';
import type { OutboundPlatform, OutboundStatus } from './types.ts';

/** Twilio credentials and where its API is. */
export interface TwilioOutboundOptions {
  /** @default process.env.TWILIO_ACCOUNT_SID */
  accountSid?: string;
  /** @default process.env.TWILIO_AUTH_TOKEN (also what the callbacks are signed with) */
  authToken?: string;
  /** @default process.env.HIWAR_TWILIO_API_URL ?? 'https://api.twilio.com' */
  baseUrl?: string;
}

// Twilio's CallStatus values (Call resource) as outcomes.
const STATUS: Record<string, OutboundStatus> = {
  queued: 'queued',
  initiated: 'queued',
  ringing: 'ringing',
  'in-progress': 'answered',
  answered: 'answered',
  completed: 'completed',
  busy: 'busy',
  'no-answer': 'no-answer',
  failed: 'failed',
  canceled: 'canceled',
};

/**
 * Twilio's Calls API: `POST /2010-04-01/Accounts/{AccountSid}/Calls.json`, form-encoded, basic
 * auth, the TwiML inline (`<Connect><Stream>` to this server, the call's parameters as
 * `<Parameter>`), progress to `StatusCallback` for every `StatusCallbackEvent`.
 */
export function twilioOutbound(o: TwilioOutboundOptions = {}): OutboundPlatform {
  const creds = () => ({
    sid: required('twilio', o.accountSid ?? process.env.TWILIO_ACCOUNT_SID, 'account SID', 'TWILIO_ACCOUNT_SID'),
    token: required('twilio', o.authToken ?? process.env.TWILIO_AUTH_TOKEN, 'auth token', 'TWILIO_AUTH_TOKEN'),
    base: o.baseUrl ?? process.env.HIWAR_TWILIO_API_URL ?? 'https://api.twilio.com',
  });
  /** Updates the Call resource's status: true when the resource answered says the call now has it. */
  const update = async ({ platformCallId }: { platformCallId?: string }, to: 'canceled' | 'completed'): Promise<boolean> => {
    if (!platformCallId) return false;
    const { sid, token, base } = creds();
    let status: unknown;
    const taken = await cancelRequest(async () => {
      const body = await platformRequest(
        'twilio',
        `${base}/2010-04-01/Accounts/${encodeURIComponent(sid)}/Calls/${encodeURIComponent(platformCallId)}.json`,
        { headers: { authorization: basicAuth(sid, token), 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body: new URLSearchParams({ Status: to }).toString() },
        [token],
      );
      status = body.status;
    });
    return taken && status === to;
  };
  return {
    name: 'twilio',
    async dial(req) {
      const { sid, token, base } = creds();
      const parameters = Object.entries(req.parameters)
        .map(([k, v]) => `<Parameter name="${xmlEscape(k)}" value="${xmlEscape(v)}"/>`)
        .join('');
      const form = new URLSearchParams({
        To: req.to,
        From: req.from,
        Twiml: `<Response><Connect action="${xmlEscape(req.afterUrl)}"><Stream url="${xmlEscape(req.streamUrl)}">${parameters}</Stream></Connect></Response>`,
        StatusCallback: req.statusUrl,
        StatusCallbackMethod: 'POST',
        Timeout: String(req.ringTimeoutS),
      });
      for (const e of ['initiated', 'ringing', 'answered', 'completed']) form.append('StatusCallbackEvent', e);
      const body = await platformRequest(
        'twilio',
        `${base}/2010-04-01/Accounts/${encodeURIComponent(sid)}/Calls.json`,
        { headers: { authorization: basicAuth(sid, token), 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body: form.toString() },
        [token],
      );
      return { platformCallId: String(body.sid ?? '') };
    },
    status: (p) => readStatus(STATUS, p.CallStatus, p.CallDuration, p.CallSid),
    // Fetch a Call resource: `status` in the Call resource's words, `duration` in seconds once ended.
    async fetchStatus({ platformCallId }) {
      const { sid, token, base } = creds();
      if (!platformCallId) return undefined;
      const body = await platformRequest('twilio', `${base}/2010-04-01/Accounts/${encodeURIComponent(sid)}/Calls/${encodeURIComponent(platformCallId)}.json`, { method: 'GET', headers: { authorization: basicAuth(sid, token), accept: 'application/json' } }, [token]);
      return readStatus(STATUS, body.status, body.duration ?? undefined, body.sid);
    },
    // Update a Call resource with Status=canceled: hangs up a queued or ringing call, leaves an
    // answered one alone; the resource it answers says which happened.
    cancel: (call) => update(call, 'canceled'),
    // Status=completed hangs the call up "even if it's already in progress".
    hangUp: (call) => update(call, 'completed'),
  };
}

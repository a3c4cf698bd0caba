import { cancelRequest, platformRequest, required } from './http.ts';
import type { OutboundPlatform, OutboundStatus, StatusUpdate } from './types.ts';

/** Telnyx credentials and where its API is. */
export interface TelnyxOutboundOptions {
  /** @default process.env.TELNYX_API_KEY */
  apiKey?: string;
  /** The Call Control application that places the call. @default process.env.TELNYX_CONNECTION_ID */
  connectionId?: string;
  /** @default process.env.HIWAR_TELNYX_API_URL ?? 'https://api.telnyx.com' */
  baseUrl?: string;
}

// `call.hangup`'s hangup_cause as outcomes; a cause not listed is a failure.
const HANGUP: Record<string, OutboundStatus> = {
  normal_clearing: 'completed',
  user_busy: 'busy',
  call_rejected: 'busy',
  timeout: 'no-answer',
  no_answer: 'no-answer',
  originator_cancel: 'canceled',
  time_limit: 'completed',
};

/**
 * Telnyx Call Control's dial: `POST /v2/calls` (JSON, bearer API key) from a Call Control
 * application (`connection_id`), streaming the answered call to this server (`stream_url`,
 * bidirectional RTP in PCMU) and reporting its events to `webhook_url`.
 */
export function telnyxOutbound(o: TelnyxOutboundOptions = {}): OutboundPlatform {
  const key = () => required('telnyx', o.apiKey ?? process.env.TELNYX_API_KEY, 'API key', 'TELNYX_API_KEY');
  const baseOf = () => o.baseUrl ?? process.env.HIWAR_TELNYX_API_URL ?? 'https://api.telnyx.com';
  const hangup = async ({ platformCallId }: { platformCallId?: string }): Promise<boolean> => {
    if (!platformCallId) return false;
    const apiKey = key();
    const url = `${baseOf()}/v2/calls/${encodeURIComponent(platformCallId)}/actions/hangup`;
    return cancelRequest(() => platformRequest('telnyx', url, { headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'application/json' }, body: '{}' }, [apiKey]), [404, 422]);
  };
  return {
    name: 'telnyx',
    async dial(req) {
      const apiKey = key();
      const connectionId = required('telnyx', o.connectionId ?? process.env.TELNYX_CONNECTION_ID, 'Call Control connection id', 'TELNYX_CONNECTION_ID');
      const base = baseOf();
      const body = await platformRequest(
        'telnyx',
        `${base}/v2/calls`,
        {
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({
            connection_id: connectionId,
            to: req.to,
            from: req.from,
            timeout_secs: req.ringTimeoutS,
            webhook_url: req.statusUrl,
            webhook_url_method: 'POST',
            stream_url: req.streamUrl,
            stream_track: 'inbound_track',
            stream_bidirectional_mode: 'rtp',
            stream_bidirectional_codec: 'PCMU',
            // Echoed in every event of the call: hiwar's id, base64 as Telnyx requires.
            client_state: Buffer.from(req.id).toString('base64'),
          }),
        },
        [apiKey],
      );
      return { platformCallId: String(body.data?.call_control_id ?? '') };
    },
    status(p): StatusUpdate | undefined {
      const event = p['data.event_type'] ?? '';
      const id = p['data.payload.call_control_id'];
      const withId = (u: StatusUpdate): StatusUpdate => (id ? { ...u, platformCallId: id } : u);
      if (event === 'call.initiated') return withId({ status: 'queued', raw: event });
      if (event === 'call.answered') return withId({ status: 'answered', raw: event });
      if (event !== 'call.hangup') return undefined;
      const cause = p['data.payload.hangup_cause'] ?? '';
      return withId({ status: HANGUP[cause] ?? 'failed', raw: cause || event });
    },
    // Retrieve a call status: whether the call is alive; an ended call's resource does not say how it ended.
    async fetchStatus({ platformCallId }) {
      if (!platformCallId) return undefined;
      const apiKey = key();
      const body = await platformRequest('telnyx', `${baseOf()}/v2/calls/${encodeURIComponent(platformCallId)}`, { method: 'GET', headers: { authorization: `Bearer ${apiKey}`, accept: 'application/json' } }, [apiKey]);
      return body.data?.is_alive === true ? { status: 'queued', raw: 'is_alive' } : undefined;
    },
    // The hangup command (`POST /v2/calls/{call_control_id}/actions/hangup`) ends the call in any
    // state; a call already over is answered 422 ("call has already ended") or 404.
    cancel: hangup,
    hangUp: hangup,
  };
}

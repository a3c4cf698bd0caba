import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { cancelRequest, platformRequest, readStatus, required } from './http.ts';
import type { OutboundPlatform, OutboundStatus } from './types.ts';

/** Vonage application credentials and where its API is. */
export interface VonageOutboundOptions {
  /** @default process.env.VONAGE_APPLICATION_ID */
  applicationId?: string;
  /** The application's private key (PEM). @default process.env.VONAGE_PRIVATE_KEY, else the file VONAGE_PRIVATE_KEY_PATH */
  privateKey?: string;
  /** @default process.env.HIWAR_VONAGE_API_URL ?? 'https://api.nexmo.com' */
  baseUrl?: string;
}

// The call's `status` in Vonage's event webhooks as outcomes.
const STATUS: Record<string, OutboundStatus> = {
  started: 'queued',
  ringing: 'ringing',
  answered: 'answered',
  completed: 'completed',
  busy: 'busy',
  timeout: 'no-answer',
  unanswered: 'no-answer',
  cancelled: 'canceled',
  rejected: 'failed',
  failed: 'failed',
};

const plain = (n: string) => n.replace(/^\+/, '');

/**
 * Vonage's Voice API: `POST /v1/calls` (JSON) with a JWT (RS256) made from the application's
 * private key; the NCCO `connect`s the answered call to this server's websocket in L16 16 kHz,
 * and the call's events go to `event_url`.
 */
export function vonageOutbound(o: VonageOutboundOptions = {}): OutboundPlatform {
  async function hangup({ platformCallId }: { platformCallId?: string }): Promise<boolean> {
    if (!platformCallId) return false;
    const jwt = await token();
    const url = `${baseOf()}/v1/calls/${encodeURIComponent(platformCallId)}`;
    return cancelRequest(() => platformRequest('vonage', url, { method: 'PUT', headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ action: 'hangup' }) }, [jwt]));
  }
  return {
    name: 'vonage',
    async dial(req) {
      const base = baseOf();
      const jwt = await token();
      const body = await platformRequest(
        'vonage',
        `${base}/v1/calls`,
        {
          headers: { authorization: `Bearer ${jwt}`, 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({
            to: [{ type: 'phone', number: plain(req.to) }],
            from: { type: 'phone', number: plain(req.from) },
            ncco: [
              {
                action: 'connect',
                eventType: 'synchronous',
                eventUrl: [req.afterUrl],
                endpoint: [{ type: 'websocket', uri: req.streamUrl, 'content-type': 'audio/l16;rate=16000', headers: { callId: req.id } }],
              },
            ],
            event_url: [req.statusUrl],
            event_method: 'POST',
            ringing_timer: req.ringTimeoutS,
          }),
        },
        [jwt],
      );
      return { platformCallId: String(body.uuid ?? '') };
    },
    status: (p) => readStatus(STATUS, p.status, p.duration, p.uuid),
    // Get detail of a specific call: `status` in the event webhooks' words, `duration` once ended.
    async fetchStatus({ platformCallId }) {
      if (!platformCallId) return undefined;
      const jwt = await token();
      const body = await platformRequest('vonage', `${baseOf()}/v1/calls/${encodeURIComponent(platformCallId)}`, { method: 'GET', headers: { authorization: `Bearer ${jwt}`, accept: 'application/json' } }, [jwt]);
      return readStatus(STATUS, body.status, body.duration, body.uuid);
    },
    // Modify a call: `PUT /v1/calls/{uuid}` with `{"action": "hangup"}` (204), ringing or answered.
    cancel: hangup,
    hangUp: hangup,
  };

  function baseOf(): string {
    return o.baseUrl ?? process.env.HIWAR_VONAGE_API_URL ?? 'https://api.nexmo.com';
  }

  /** A JWT for one request (RS256, the application's key). */
  async function token(): Promise<string> {
    const appId = required('vonage', o.applicationId ?? process.env.VONAGE_APPLICATION_ID, 'application id', 'VONAGE_APPLICATION_ID');
    const pem = required('vonage', o.privateKey ?? process.env.VONAGE_PRIVATE_KEY ?? keyFile(), 'application private key', 'VONAGE_PRIVATE_KEY or VONAGE_PRIVATE_KEY_PATH');
    // jose loads with the first outbound Vonage call, not with every server that could make one.
    const { importPKCS8, SignJWT } = await import('jose');
    try {
      return await new SignJWT({ application_id: appId })
        .setProtectedHeader({ alg: 'RS256', typ: 'JWT' })
        .setIssuedAt()
        .setJti(randomUUID())
        .setExpirationTime('15m')
        .sign(await importPKCS8(pem, 'RS256'));
    } catch {
      throw new Error('vonage: the application private key is not a PKCS#8 PEM RSA key');
    }
  }
}

function keyFile(): string | undefined {
  const path = process.env.VONAGE_PRIVATE_KEY_PATH;
  if (!path) return undefined;
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`vonage: cannot read VONAGE_PRIVATE_KEY_PATH ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

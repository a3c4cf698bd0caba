import { createHmac, timingSafeEqual } from 'node:crypto';
import { parseRetryAfter } from '../service/errors.ts';
import { runTimeSignal } from '../service/run-time.ts';
import { AnalyticsError } from './failures.ts';

/** Where summaries go and how they are signed. */
export interface WebhookOptions {
  url: string;
  /** Shared secret of the HMAC-SHA256 signature; without one, the POST is unsigned. */
  secret?: string;
  /**
   * Time allowed for the receiver to answer (ms of the process's run time: an answer that came
   * while the process was starved of CPU is read, not retried as a duplicate delivery). @default 10000
   */
  timeoutMs?: number;
}

export const WEBHOOK_DEFAULTS = { timeoutMs: 10_000 } as const;

/** Header carrying the webhook body's HMAC-SHA256 signature. */
export const SIGNATURE_HEADER = 'x-hiwar-signature';
/** Header carrying the time the webhook was signed (Unix seconds), bound into the signature. */
export const TIMESTAMP_HEADER = 'x-hiwar-timestamp';
/** Header carrying the delivery's id: the same on every retry of one delivery. */
export const DELIVERY_HEADER = 'x-hiwar-delivery';

/**
 * The signature of one delivery: HMAC-SHA256 of `<timestamp>.<body>` with the shared secret, hex,
 * prefixed `sha256=`. The timestamp in the signed text lets a receiver refuse replays.
 */
export function signWebhook(body: string, secret: string, timestamp: number): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/**
 * For receivers: true when the body was signed with `secret` no more than `toleranceS` seconds
 * ago. Compares in constant time.
 */
export function verifyWebhook(
  body: string,
  headers: Record<string, string | string[] | undefined>,
  secret: string,
  toleranceS = 300,
  nowS = Math.floor(Date.now() / 1000),
): boolean {
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const sig = one(headers[SIGNATURE_HEADER]);
  const ts = Number(one(headers[TIMESTAMP_HEADER]));
  if (!sig || !Number.isInteger(ts) || Math.abs(nowS - ts) > toleranceS) return false;
  const want = Buffer.from(signWebhook(body, secret, ts));
  const got = Buffer.from(sig);
  return want.length === got.length && timingSafeEqual(want, got);
}

/**
 * POSTs one summary. A 2xx is delivered; 408, 429, 5xx or no answer are worth retrying; any other
 * answer is the receiver refusing it (a wrong secret, a wrong URL) and is not retried.
 */
export async function postWebhook(o: WebhookOptions, deliveryId: string, payload: unknown, fetchImpl: typeof fetch = fetch): Promise<void> {
  const body = JSON.stringify(payload);
  const timestamp = Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'hiwar-analytics',
    [DELIVERY_HEADER]: deliveryId,
    [TIMESTAMP_HEADER]: String(timestamp),
  };
  if (o.secret) headers[SIGNATURE_HEADER] = signWebhook(body, o.secret, timestamp);
  const where = safeUrl(o.url);
  let res: Response;
  // Run time: a delivery answered while this process stalled is delivered, not retried (and received twice).
  const timeout = runTimeSignal(o.timeoutMs ?? WEBHOOK_DEFAULTS.timeoutMs);
  try {
    res = await fetchImpl(o.url, { method: 'POST', headers, body, redirect: 'manual', signal: timeout.signal });
  } catch (err) {
    const cause = (err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message;
    throw new AnalyticsError(`webhook ${where}: no answer (${cause})`, true);
  } finally {
    timeout.clear();
  }
  await res.body?.cancel().catch(() => {});
  if (res.ok) return;
  const retryable = res.status === 408 || res.status === 429 || res.status >= 500;
  throw new AnalyticsError(`webhook ${where} answered ${res.status}`, retryable, parseRetryAfter(res.headers.get('retry-after')));
}

/** The URL without credentials or query (where a receiver might carry a token), for messages. */
function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

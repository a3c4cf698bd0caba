import { bodyWords } from '../../../src/service/errors.ts';
import { runTimeSignal } from '../../../src/service/run-time.ts';
import { DialError, type OutboundPlatformName, type OutboundStatus, type StatusUpdate } from './types.ts';

/** How long a dial request may take before it counts as failed (run time: a stall of this process is not counted). */
export const DIAL_TIMEOUT_MS = 15_000;

/**
 * Sends one REST request to a platform (a POST; the GET, PUT or DELETE of a call resource) and returns its JSON answer (empty for a 204). A refusal becomes a
 * `DialError` with the platform's own message; any credential that the answer might echo is
 * cut out of it, and the request's headers never appear in it.
 */
export async function platformRequest(
  platform: OutboundPlatformName,
  url: string,
  init: { headers: Record<string, string>; body?: string; method?: 'GET' | 'POST' | 'PUT' | 'DELETE'; /** @default DIAL_TIMEOUT_MS */ timeoutMs?: number },
  secrets: (string | undefined)[],
): Promise<Record<string, any>> {
  let res: Response;
  // Run time: a dial answered while this process stalled is read, not taken for one never placed (and placed again).
  const timeout = runTimeSignal(init.timeoutMs ?? DIAL_TIMEOUT_MS);
  let text: string;
  try {
    try {
      res = await fetch(url, { method: init.method ?? 'POST', headers: init.headers, body: init.body, signal: timeout.signal });
    } catch (err) {
      // A malformed API address (HIWAR_TWILIO_API_URL without its scheme) is out of reach too, said as such.
      const where = URL.canParse(url) ? new URL(url).origin : `"${url}" (not a URL: check the platform's API address)`;
      throw new DialError(platform, 0, scrub(`could not reach ${where}: ${reason(err)}`, secrets));
    }
    text = await res.text().catch(() => '');
  } finally {
    timeout.clear();
  }
  let body: Record<string, any> = {};
  try {
    const v = JSON.parse(text);
    if (v && typeof v === 'object') body = v;
  } catch {
    // not JSON: the message is the text's words (a gateway's HTML page: its title)
  }
  if (!res.ok) throw new DialError(platform, res.status, scrub(errorMessage(body) ?? (bodyWords(scrub(text, secrets)) || res.statusText), secrets));
  return body;
}

/**
 * A cancel request (`OutboundPlatform.cancel`): true once the platform took it; false when it
 * answered that it has no such call to cancel (`gone`: 404, and whatever else that platform
 * answers for a call already over).
 */
export async function cancelRequest(send: () => Promise<unknown>, gone: number[] = [404]): Promise<boolean> {
  try {
    await send();
    return true;
  } catch (err) {
    if (err instanceof DialError && gone.includes(err.status)) return false;
    throw err;
  }
}

/** Why a request got no answer: fetch's own message is "fetch failed", its cause says why (ENOTFOUND, ECONNREFUSED…). */
function reason(err: unknown): string {
  const e = err as Error & { cause?: { code?: string; message?: string } };
  const why = e.cause?.code ?? e.cause?.message;
  return why && !e.message.includes(why) ? `${e.message} (${why})` : e.message;
}

/** The message of the four platforms' error bodies. */
function errorMessage(b: Record<string, any>): string | undefined {
  const e = b.errors?.[0];
  const m = b.message ?? b.error_text ?? b.detail ?? b.title ?? (e && (e.detail ?? e.title)) ?? (typeof b.error === 'string' ? b.error : undefined);
  return typeof m === 'string' ? m : m === undefined ? undefined : JSON.stringify(m);
}

function scrub(text: string, secrets: (string | undefined)[]): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('[redacted]');
  return out;
}

/** A required setting, or an error naming the variable that provides it (never its value). */
export function required(platform: OutboundPlatformName, value: string | undefined, what: string, env: string): string {
  if (!value) throw new Error(`${platform}: no ${what} (set ${env}, or pass it in the platform's options)`);
  return value;
}

/** `Basic base64(user:password)`. */
export const basicAuth = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/**
 * One status callback read through a platform's table of statuses: undefined for a status the
 * table does not name; the duration and the platform's call id when the callback carries them.
 */
export function readStatus(table: Record<string, OutboundStatus>, raw: string | undefined, duration: string | undefined, platformCallId: string | undefined): StatusUpdate | undefined {
  const status = table[raw ?? ''];
  if (!status) return undefined;
  const d = Number(duration);
  return { status, raw: raw!, ...(duration && Number.isFinite(d) ? { durationS: d } : {}), ...(platformCallId ? { platformCallId } : {}) };
}

import type { AttemptOutcome, AttemptRecord, CallResult, ContactState } from './types.ts';
import { isOpen, nextOpening, type CallingWindow } from './window.ts';

/** Defaults of a campaign, in one place. */
export const CAMPAIGN_DEFAULTS = {
  /** Calls of one campaign at once, across every worker. */
  concurrency: 1,
  /** Attempts after the first, for the outcomes in `retryOn`. */
  retries: 2,
  /** Wait before a retry (then to the window's next opening, when it is closed). */
  retryAfterMs: 2 * 3600_000,
  /**
   * Outcomes worth another attempt. `failed-unknown` is not: the person may have been called.
   * `canceled-draining` is: the server hung up while it rang, the person never chose; so is
   * `no-media`: they answered and heard nothing.
   */
  retryOn: ['busy', 'no-answer', 'machine-unavailable', 'failed', 'canceled-draining', 'no-media'] as readonly AttemptOutcome[],
  /** How often a paused campaign's contacts look again, and a contact waiting for a free line (campaign-clock ms). */
  pollMs: 5_000,
  /** Contacts one campaign holds at most. */
  maxContacts: 100_000,
} as const;

/** What decides when a campaign's contacts are called. */
export interface CampaignSettings {
  /** Calling window; none = any time. */
  window?: CallingWindow;
  concurrency: number;
  retries: number;
  retryAfterMs: number;
  retryOn: readonly AttemptOutcome[];
}

/** Fills defaults and checks the numbers; throws with a clear message. */
export function campaignSettings(o: Partial<CampaignSettings> = {}): CampaignSettings {
  const s = { concurrency: o.concurrency ?? CAMPAIGN_DEFAULTS.concurrency, retries: o.retries ?? CAMPAIGN_DEFAULTS.retries, retryAfterMs: o.retryAfterMs ?? CAMPAIGN_DEFAULTS.retryAfterMs, retryOn: o.retryOn ?? CAMPAIGN_DEFAULTS.retryOn, ...(o.window ? { window: o.window } : {}) };
  if (!Number.isInteger(s.concurrency) || s.concurrency < 1 || s.concurrency > 1000) throw new Error(`concurrency must be a whole number from 1 to 1000, got ${s.concurrency}`);
  if (!Number.isInteger(s.retries) || s.retries < 0 || s.retries > 20) throw new Error(`retries must be a whole number from 0 to 20, got ${s.retries}`);
  if (!Number.isFinite(s.retryAfterMs) || s.retryAfterMs < 0) throw new Error(`retry-after must be a duration of 0 or more, got ${s.retryAfterMs}`);
  return s;
}

/** Reads a duration: `90s`, `15m`, `2h`, `1d`, or a number of ms. */
export function parseDuration(text: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/.exec(String(text).trim());
  if (!m) throw new Error(`a duration reads like 90s, 15m, 2h or 1d, got "${text}"`);
  return Math.round(Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3600_000, d: 86_400_000 }[(m[2] ?? 'ms') as 'ms']);
}

/** What to do with a contact now. */
export type Decision =
  | { kind: 'dial'; attempt: number }
  | { kind: 'wait'; until: number }
  /** An attempt was recorded as started and never ended (its worker died): ask the dialler how it went. */
  | { kind: 'recover'; attempt: number }
  | { kind: 'do-not-call' }
  | { kind: 'finished' };

/**
 * The scheduler's one decision, pure: from the contact's record, the settings, the time and
 * whether the number is on the do-not-call list (checked before every dial). A started attempt
 * with no outcome is never dialled again: it is resolved first.
 */
export function decide(c: ContactState, s: CampaignSettings, now: number, doNotCall: boolean): Decision {
  if (c.status === 'done' || c.status === 'do-not-call' || c.status === 'cancelled') return { kind: 'finished' };
  const last = c.attempts.at(-1);
  if (last && !last.outcome) return { kind: 'recover', attempt: last.attempt };
  if (doNotCall) return { kind: 'do-not-call' };
  if (last && !retryable(last, s)) return { kind: 'finished' };
  const at = openAt(Math.max(now, c.notBefore), c, s);
  if (at > now) return { kind: 'wait', until: at };
  return { kind: 'dial', attempt: (last?.attempt ?? 0) + 1 };
}

/** Whether another attempt follows this one. */
export function retryable(a: AttemptRecord, s: CampaignSettings): boolean {
  return !!a.outcome && s.retryOn.includes(a.outcome) && a.attempt <= s.retries;
}

/** The first moment at or after `t` the contact may be called (the window in the contact's zone). */
function openAt(t: number, c: ContactState, s: CampaignSettings): number {
  return s.window ? nextOpening(s.window, t, c.contact.timeZone ?? s.window.zone) : t;
}

/** Whether `t` is inside the window for this contact (no window: always). */
export function inWindow(t: number, c: ContactState, s: CampaignSettings): boolean {
  return !s.window || isOpen(s.window, t, c.contact.timeZone ?? s.window.zone);
}

/** The record after an attempt's outcome: done, or pending with the earliest time of the retry. */
export function afterOutcome(c: ContactState, result: CallResult, s: CampaignSettings, now: number): ContactState {
  const attempts = c.attempts.map((a, i) => (i === c.attempts.length - 1 ? { ...a, ...result, endedAt: now } : a));
  const last = attempts.at(-1)!;
  if (retryable(last, s)) return { ...c, attempts, status: 'pending', notBefore: now + s.retryAfterMs };
  return { ...c, attempts, status: 'done' };
}

/** The record once an attempt is started (written before the call is placed). */
export function started(c: ContactState, attempt: number, now: number): ContactState {
  return { ...c, status: 'dialling', attempts: [...c.attempts, { attempt, startedAt: now }] };
}

import { DRAIN_DEFAULTS } from './drain-wait.ts';
import type { PromiseOptions } from './types.ts';

/** One call promised a media connection (`CallHost.promise`). */
export interface PromisedCall {
  /** Let in during a drain until then (its token's expiry). */
  until: number;
  /** A drain waits for it until then. */
  waitUntil: number;
  /** Placed here and still ringing (not answered yet). */
  placed: boolean;
  cancel?: PromiseOptions['cancel'];
  noMedia?: PromiseOptions['noMedia'];
}

/**
 * The calls (`provider:callId`) promised a media connection, by a webhook answer or placed here:
 * until when each may still connect during a drain, and until when a drain waits for it. The
 * call manager's bookkeeping for `promise`, `answered`, `withdraw` and its drain.
 */
export class PromisedCalls {
  private readonly calls = new Map<string, PromisedCall>();

  promise(key: string, until: number, o: PromiseOptions, now: number): void {
    // Expiries come nearly in order (a token's lifetime, a placed call's a ring timeout longer):
    // the expired ones are at the front; one a little out of order goes on a later call.
    for (const [k, t] of this.calls) {
      if (t.until > now) break;
      this.calls.delete(k);
    }
    this.calls.delete(key);
    this.calls.set(key, { until, waitUntil: Math.min(until, now + (o.waitMs ?? DRAIN_DEFAULTS.promisedMediaWaitMs)), placed: !!o.placed, ...(o.cancel ? { cancel: o.cancel } : {}), ...(o.noMedia ? { noMedia: o.noMedia } : {}) });
  }

  /** A placed call was answered; false when there was none ringing under `key`. */
  answered(key: string, now: number): boolean {
    const t = this.calls.get(key);
    if (!t?.placed) return false;
    // Its media is as near as a webhook answer's: waited for that long from now, and never cancelled as ringing.
    this.calls.set(key, { until: t.until, waitUntil: Math.min(t.until, now + DRAIN_DEFAULTS.promisedMediaWaitMs), placed: false, ...(t.noMedia ? { noMedia: t.noMedia } : {}) });
    return true;
  }

  /** Drops the promise; false when there was none. */
  withdraw(key: string): boolean {
    return this.calls.delete(key);
  }

  /** The call connected: kept or refused, its promise is settled. True when it was promised and not expired at `now`. */
  settle(key: string, now: number): boolean {
    const until = this.calls.get(key)?.until;
    this.calls.delete(key);
    return until !== undefined && until > now;
  }

  has(key: string): boolean {
    return this.calls.has(key);
  }

  get(key: string): PromisedCall | undefined {
    return this.calls.get(key);
  }

  /** The promised calls a drain still waits for at `now`. */
  awaited(now: number): [string, PromisedCall][] {
    return [...this.calls].filter(([, t]) => t.waitUntil > now);
  }

  /** Until when a drain waits for promised media still to come; undefined when for none. */
  waitUntil(now: number): number | undefined {
    let last: number | undefined;
    for (const t of this.calls.values()) if (t.waitUntil > now) last = Math.max(last ?? 0, t.waitUntil);
    return last;
  }
}

/**
 * Who waits for a placed call's outcome (`OutboundCalls.outcome`), and for an answered call's
 * session summary: resolved once the record has what each waiter wants, or, for the summary,
 * after `sessionWaitMs` (the instance running the session may have died). A session running in
 * this process is waited for to its end; the wait for its summary starts then.
 */
import type { OutboundCall } from './outbound-call.ts';

/** How a call's outcome is awaited. */
interface Waiter {
  resolve(c: OutboundCall): void;
  /** Also wait (up to `sessionWaitMs`) for the answered call's session summary. */
  session: boolean;
}

export class OutcomeWaiters {
  private readonly waiting = new Map<string, Waiter[]>();
  /** Calls whose session runs in this process: their summary is written here when it ends. */
  private readonly sessionsHere = new Set<string>();
  /** The pending wait for each call's summary (one per call). */
  private readonly deadlines = new Map<string, NodeJS.Timeout>();

  /** `current`: the call's record as this process knows it; `sessionWaitMs`: how long a summary is waited for. */
  constructor(
    private readonly current: (id: string) => OutboundCall | undefined,
    private readonly sessionWaitMs: number,
  ) {}

  /** Someone waits for call `id`. */
  has(id: string): boolean {
    return this.waiting.has(id);
  }

  /** Waits for call `c`'s outcome (and, with `session`, its summary): `resolve` is called with the call. */
  add(c: OutboundCall, resolve: (c: OutboundCall) => void, session: boolean): void {
    this.waiting.set(c.id, [...(this.waiting.get(c.id) ?? []), { resolve, session }]);
    if (session && c.outcome) this.sessionDeadline(c.id);
  }

  /** The call's session runs here: its summary is not waited for until it ends. */
  sessionStarted(id: string): void {
    this.sessionsHere.add(id);
  }

  /** The call's session here ended. */
  sessionEnded(id: string): void {
    this.sessionsHere.delete(id);
    // Its summary follows; the wait for it starts now, unless the outcome is not known yet (the
    // platform's last callback then starts it): a waiter must never get a call with no outcome.
    if (this.waiting.has(id) && this.current(id)?.outcome) this.sessionDeadline(id);
  }

  /** The call's record has an outcome: each waiter it satisfies is resolved; the others wait for the summary. */
  settle(id: string, call: OutboundCall): void {
    const list = this.waiting.get(id);
    if (!list) return;
    const left = list.filter((w) => {
      if (w.session && !ready(call)) return true;
      w.resolve({ ...call });
      return false;
    });
    if (left.length) {
      this.waiting.set(id, left);
      this.sessionDeadline(id);
    } else {
      this.waiting.delete(id);
      clearTimeout(this.deadlines.get(id));
      this.deadlines.delete(id);
    }
  }

  /**
   * An answered call's session may have died with its instance: its outcome is given without the
   * summary after a while. Not while the session runs here: its end starts the wait.
   */
  private sessionDeadline(id: string): void {
    if (this.sessionsHere.has(id) || this.deadlines.has(id)) return;
    const timer = setTimeout(() => {
      this.deadlines.delete(id);
      const call = this.current(id);
      for (const w of this.waiting.get(id) ?? []) w.resolve({ ...call! });
      this.waiting.delete(id);
    }, this.sessionWaitMs).unref();
    this.deadlines.set(id, timer);
  }
}

/** Whether a final record has what its waiters want: an answered call's session summary (none comes for one hung up for want of media). */
export const ready = (c: OutboundCall) => !c.answeredAt || !!c.session || c.hangUpRequested === 'no-media';

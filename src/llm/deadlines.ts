import { cancelTimer } from '../transport/cancel-timer.ts';
import type { Llm, LlmEvent, LlmRequest } from './types.ts';

/** Minimal clock: `sleep` in this clock's milliseconds (a scaled clock runs faster). */
interface SleepClock {
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** A clock that also tells the time, for the per-request watchdog. */
interface WatchClock extends SleepClock {
  now(): number;
}

/** How long a model may keep a caller waiting. */
export interface ModelDeadlines {
  /** No first token (text or tool call) within this: the request is given up. 0 = none. @default 8000 */
  firstTokenMs: number;
  /** No new token for this long once the answer started: given up too. 0 = none. @default 8000 */
  idleMs: number;
  /** The filler line is spoken when the reply's first sentence (or a tool call) takes longer than this, first token or not. 0 = never. @default 2000 */
  fillerAfterMs: number;
  /**
   * No first sentence to voice (nor a tool call) this long after the first token: given up. A
   * model that writes a word and then one more every few seconds keeps `idleMs` from ever
   * expiring; this bounds the caller's silence. Counted from the first token, so that it never
   * cuts short a `firstTokenMs` raised for a slow-starting model. 0 = none. @default 6000
   */
  firstSentenceMs: number;
}

/** Default model deadlines: 8 s to the first token, 8 s between tokens, a filler line after 2 s, 6 s from the first token to the first sentence. */
export const DEFAULT_MODEL_DEADLINES: ModelDeadlines = { firstTokenMs: 8000, idleMs: 8000, fillerAfterMs: 2000, firstSentenceMs: 6000 };

/** The model missed a deadline; the request to it was aborted. */
export class ModelTimeoutError extends Error {
  override name = 'ModelTimeoutError';
  constructor(
    readonly phase: 'first-token' | 'idle' | 'first-sentence',
    readonly ms: number,
  ) {
    super(phase === 'first-token' ? `no first token within ${ms} ms` : phase === 'idle' ? `no token for ${ms} ms` : `no first sentence within ${ms} ms`);
  }
}

const TIMEOUT = Symbol('timeout');

/** A timer that resolves with TIMEOUT after `ms` (however it ends), and its cancel. */
function oneTimer(ms: number, clock: SleepClock): { timer: Promise<typeof TIMEOUT>; cancel: () => void } {
  const stop = new AbortController();
  const timeout = (): typeof TIMEOUT => TIMEOUT;
  return { timer: clock.sleep(ms, stop.signal).then(timeout, timeout), cancel: () => cancelTimer(stop) };
}

/**
 * One timer for a whole request instead of one per token: a token only notes the time its wait
 * began (a timer and an AbortController per token, aborted at the next token, were a visible
 * share of a streamed turn's CPU: event dispatch on every abort). When the timer fires it checks
 * the wait under way and sleeps again for what is left of it, so a deadline still counts only
 * the time spent waiting on the model.
 */
class Watchdog {
  private readonly stop = new AbortController();
  /** When the current wait began, and its limit (0: none); NaN while not waiting. */
  private since = NaN;
  private limit = 0;
  /** Resolves with TIMEOUT once a wait outlasts its limit. */
  readonly expired: Promise<typeof TIMEOUT>;

  constructor(
    private readonly clock: WatchClock,
    /** The shortest limit: the timer never sleeps longer, so a wait that begins while it sleeps is not missed. */
    shortest: number,
  ) {
    this.expired = this.watch(shortest);
    // Never awaited when the request ends first: its cancellation is not an error.
    this.expired.catch(() => {});
  }

  private async watch(shortest: number): Promise<typeof TIMEOUT> {
    let nap = shortest;
    for (;;) {
      await this.clock.sleep(nap, this.stop.signal);
      const waited = this.clock.now() - this.since;
      if (this.limit && waited >= this.limit) return TIMEOUT;
      // A wait under way: sleep for the rest of it; otherwise (no wait, no limit) a while.
      nap = this.limit && waited >= 0 ? Math.min(this.limit - waited, shortest) : shortest;
    }
  }

  /** A wait for the next token begins, limited to `ms` (0: none). */
  begin(ms: number): void {
    this.since = this.clock.now();
    this.limit = ms;
  }

  /** The wait ended (a token came). */
  end(): void {
    this.since = NaN;
  }

  close(): void {
    cancelTimer(this.stop);
  }
}

/**
 * An Llm whose every request must start answering within `firstTokenMs` and keep answering
 * with gaps under `idleMs`; otherwise the request is aborted and ModelTimeoutError thrown. Tool
 * execution happens between requests, so it never counts against the model; nor does the time
 * the reply's consumer takes between tokens.
 */
export function withDeadlines(llm: Llm, deadlines: Pick<ModelDeadlines, 'firstTokenMs' | 'idleMs'>, clock: WatchClock): Llm {
  const limits = [deadlines.firstTokenMs, deadlines.idleMs].filter((ms) => ms > 0);
  return {
    name: llm.name,
    async *stream(req: LlmRequest): AsyncGenerator<LlmEvent> {
      const ctrl = new AbortController();
      const onAbort = () => ctrl.abort(req.signal.reason);
      req.signal.addEventListener('abort', onAbort, { once: true });
      const it = llm.stream({ ...req, signal: ctrl.signal })[Symbol.asyncIterator]();
      // Made once the request is on its way (the first `next()` sends it): its timer and
      // AbortController are not on the path between the turn and the model.
      let dog: Watchdog | undefined;
      let started = false;
      try {
        for (;;) {
          const ms = started ? deadlines.idleMs : deadlines.firstTokenMs;
          let next: IteratorResult<LlmEvent> | typeof TIMEOUT;
          if (limits.length && ms) {
            const pending = it.next();
            dog ??= new Watchdog(clock, Math.min(...limits));
            dog.begin(ms);
            next = await Promise.race([pending, dog.expired]);
            dog.end();
          } else next = await it.next();
          if (next === TIMEOUT) {
            ctrl.abort(new ModelTimeoutError(started ? 'idle' : 'first-token', ms));
            void it.return?.()?.catch(() => {});
            throw new ModelTimeoutError(started ? 'idle' : 'first-token', ms);
          }
          if (next.done) return;
          started = true;
          yield next.value;
        }
      } finally {
        dog?.close();
        req.signal.removeEventListener('abort', onAbort);
      }
    },
  };
}

/**
 * Passes `source` through, and yields `{type:'slow'}` once if `ms` pass before the consumer has
 * started saying something: the moment to say a filler line while the model thinks. `started`
 * tells whether it has (read after each item the consumer took); by default the first item is
 * the start. A reply passes "a sentence went to the voice": a model that writes a word and then
 * crawls is as slow to the caller as one that writes nothing.
 */
export async function* noticeSlowStart<T>(source: AsyncIterable<T>, ms: number, clock: SleepClock, started?: () => boolean): AsyncGenerator<T | { type: 'slow' }> {
  const it = source[Symbol.asyncIterator]();
  let pending = it.next();
  if (ms > 0) {
    let items = 0;
    const hasStarted = started ?? (() => items > 0);
    // One timer from the request's start: items that do not start the reply do not re-arm it.
    const { timer, cancel } = oneTimer(ms, clock);
    try {
      while (!hasStarted()) {
        const n = await Promise.race([pending, timer]);
        if (n === TIMEOUT) {
          yield { type: 'slow' };
          break;
        }
        if (n.done) return;
        items++;
        yield n.value;
        pending = it.next();
      }
    } finally {
      cancel();
    }
  }
  for (;;) {
    const n = await pending;
    if (n.done) return;
    yield n.value;
    pending = it.next();
  }
}

/**
 * Passes `source` through, and fails with ModelTimeoutError('first-sentence') if `ms` pass from
 * its first item (the model's first token) before `started()` holds (read after each item the
 * consumer took): the deadline of a reply's first sentence, which a model writing a token every
 * few seconds never lets the idle deadline reach. The wait for the first item is the first-token
 * deadline's. `abort` stops the model's request; the read under way is left to settle unread.
 */
export async function* limitSlowStart<T>(source: AsyncIterable<T>, ms: number, clock: SleepClock, started: () => boolean, abort: (reason: Error) => void): AsyncGenerator<T> {
  const it = source[Symbol.asyncIterator]();
  if (ms > 0) {
    const first = await it.next();
    if (first.done) return;
    const { timer, cancel } = oneTimer(ms, clock);
    try {
      yield first.value;
      while (!started()) {
        const pending = it.next();
        const n = await Promise.race([pending, timer]);
        if (n === TIMEOUT) {
          const err = new ModelTimeoutError('first-sentence', ms);
          pending.catch(() => {});
          abort(err);
          void it.return?.()?.catch(() => {});
          throw err;
        }
        if (n.done) return;
        yield n.value;
      }
    } finally {
      cancel();
    }
  }
  for (;;) {
    const n = await it.next();
    if (n.done) return;
    yield n.value;
  }
}

import { cancelTimer } from './cancel-timer.ts';

export { TIMER_CANCELLED, cancelTimer } from './cancel-timer.ts';

/**
 * Time for the session, its stages and the transports. A scaled clock runs a simulated call
 * faster than real time (the sandbox accepts audio up to a minute ahead of real time), so
 * scenario tests take seconds; timings it reports are in call time. A virtual clock moves only
 * when a test advances it, so timing logic is tested without waiting.
 */
export interface Clock {
  /** Milliseconds, on this clock's timeline. */
  now(): number;
  /** Waits `ms` of this clock's time; rejects with the signal's reason when it aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Clock milliseconds per real millisecond (1 for real time). */
  readonly speed: number;
  /**
   * Optional: runs `fire` after `ms` of this clock's time and returns its cancel, with no promise
   * and no AbortSignal (see `armTimer`). A clock without it is driven through `sleep`.
   */
  after?(ms: number, fire: () => void): () => void;
}

/**
 * A one-shot timer on any clock, for code that re-arms one per audio frame (the telephony
 * output's pacing, 50 a second per call while it talks): on a clock with `after` it is one Node
 * timer and its cancel; otherwise (a virtual clock in tests) a `sleep` with an AbortController.
 * The sleep way cost an AbortController, its signal, an abort listener and two promises per arm.
 */
export function armTimer(clock: Clock, ms: number, fire: () => void): () => void {
  if (clock.after) return clock.after(ms, fire);
  const ctrl = new AbortController();
  // Cancelled after the sleep resolved but before this callback ran: it must not fire.
  clock.sleep(ms, ctrl.signal).then(() => ctrl.signal.aborted || fire(), () => {});
  return () => cancelTimer(ctrl);
}

/** `Clock.after` for clocks that wait in real time: `setTimeout` at `ms / speed`. */
export function realTimeAfter(ms: number, fire: () => void, speed = 1): () => void {
  const t = setTimeout(fire, Math.max(0, ms / speed));
  return () => clearTimeout(t);
}

/**
 * A real-time sleep that rejects with the signal's own reason, as `Clock.sleep` promises
 * (node:timers/promises would wrap it in a new AbortError, another error object per cancel).
 */
export function sleepFor(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export class ScaledClock implements Clock {
  private readonly origin = Date.now();
  constructor(readonly speed = 1) {}
  now(): number {
    return this.origin + (Date.now() - this.origin) * this.speed;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepFor(ms / this.speed, signal);
  }
  after(ms: number, fire: () => void): () => void {
    return realTimeAfter(ms, fire, this.speed);
  }
}

/** A clock at real time. */
export const realClock = (): Clock => new ScaledClock(1);

interface Timer {
  at: number;
  seq: number;
  resolve: () => void;
}

/**
 * Lets every pending promise callback run (microtasks and I/O callbacks already due), and the
 * `setImmediate` callbacks they queue: code a timer wakes may finish its work there (the telephony
 * output runs a woken pacing step after the loop's reads), so one turn of the loop is not enough.
 */
const settle = () => new Promise<void>((r) => setImmediate(() => setImmediate(r)));

/**
 * A clock that stands still until `advance()` moves it: timers due on the way fire in order, and
 * the code they wake runs before the next one fires. For unit tests of timing logic.
 */
export class VirtualClock implements Clock {
  readonly speed = 1;
  private t: number;
  private seq = 0;
  private timers: Timer[] = [];

  constructor(start = 0) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer: Timer = { at: this.t + Math.max(0, ms), seq: this.seq++, resolve };
      const onAbort = () => {
        this.timers = this.timers.filter((x) => x !== timer);
        reject(signal!.reason);
      };
      timer.resolve = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.timers.push(timer);
    });
  }

  /** Timers not yet fired. */
  get pending(): number {
    return this.timers.length;
  }

  /** Moves time forward by `ms`, firing the timers due on the way in order. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    for (;;) {
      await settle();
      const due = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((x) => x !== due);
      this.t = Math.max(this.t, due.at);
      due.resolve();
    }
    this.t = end;
    await settle();
  }
}

/**
 * One timer set to an absolute clock time, re-armed as the next deadline changes; nothing runs
 * while no deadline is set.
 */
export class Alarm {
  private armed: { at: number; cancel: () => void } | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly ring: () => void,
  ) {}

  /** Rings at `at` (clock ms); `undefined` disarms. Setting the same time again changes nothing. */
  set(at: number | undefined): void {
    if (this.armed?.at === at) return;
    this.armed?.cancel();
    this.armed = undefined;
    if (at === undefined) return;
    const armed = { at, cancel: () => {} };
    this.armed = armed;
    armed.cancel = armTimer(this.clock, Math.max(0, at - this.clock.now()), () => {
      if (this.armed === armed) this.armed = undefined;
      this.ring();
    });
  }

  /** Cancels the alarm if it is set. */
  cancel(): void {
    this.set(undefined);
  }
}

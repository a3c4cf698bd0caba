/**
 * Time this process could run: wall time less the stalls of its event loop.
 *
 * The client's watchdogs (a pong within 5 s on /listen, the TTS socket's first audio within 3 s,
 * audio that stops mid-sentence) judge the service by how long it takes to answer. A process
 * starved of CPU (a loaded machine, a paused container, one synchronous task that long) cannot
 * read an answer that has arrived, so counting the time it was off the CPU would blame a healthy
 * service and drop its socket. These watchdogs count run time instead: a look at the wall clock
 * every 10 ms, and a gap between two looks longer than a tick plus a grace is a stall, not
 * counted. A service that is really gone is still found: run time advances whenever the process
 * runs, only slower when it is starved.
 */

/** Timers as the watchdogs use them: injected, so their logic is tested on virtual time. */
export interface Timers {
  /** Calls `fn` after `ms`; returns a handle for `clear`. */
  set(fn: () => void, ms: number): unknown;
  /** Cancels a timer `set` returned (a handle already fired or cleared is ignored). */
  clear(handle: unknown): void;
}

/** Plain wall-clock timers. */
export const realTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** How often the meter looks at the wall clock while anyone watches (ms). */
export const STALL_TICK_MS = 10;
/** A gap between looks longer than a tick by more than this is a stall (ms). */
export const STALL_GRACE_MS = 15;

/**
 * Wall time less the gaps between looks longer than a tick plus a grace. Someone must look
 * every tick while it is in use (`RunTime` runs a ticker; `SteadyScaledClock` its own), or an
 * idle stretch would read as a stall.
 */
export class StallMeter {
  private last: number;
  private stalled = 0;

  constructor(private readonly wall: () => number = () => performance.now()) {
    this.last = wall();
  }

  /** Run milliseconds now (on the wall clock's origin, less the stalls); records a stall since the last look. */
  now(): number {
    const wall = this.wall();
    const gap = wall - this.last;
    if (gap > STALL_TICK_MS + STALL_GRACE_MS) this.stalled += gap - STALL_TICK_MS;
    this.last = wall;
    return wall - this.stalled;
  }

  /** Forgets the gap since the last look (nobody was watching it). */
  resume(): void {
    this.last = this.wall();
  }

  /** Total wall time not counted (ms), for diagnostics. */
  get stalledMs(): number {
    return this.stalled;
  }
}

/**
 * The process's run time, shared by every watchdog: one ticker while any of them is armed
 * (`hold`/`release`), none otherwise, so an idle process does not wake every 10 ms.
 */
export class RunTime {
  private holders = 0;
  private ticker: NodeJS.Timeout | undefined;

  constructor(readonly meter = new StallMeter()) {}

  /** Run milliseconds now. */
  now(): number {
    return this.meter.now();
  }

  /** Starts the ticker for one more watcher. */
  hold(): void {
    if (this.holders++ > 0) return;
    this.meter.resume();
    this.ticker = setInterval(() => this.meter.now(), STALL_TICK_MS);
    this.ticker.unref();
  }

  /** One watcher less; the last one stops the ticker. */
  release(): void {
    if (this.holders === 0 || --this.holders > 0) return;
    clearInterval(this.ticker);
    this.ticker = undefined;
  }
}

/** This process's run time (one ticker for all the client's watchdogs). */
export const processRunTime = new RunTime();

/**
 * Timers that count run time: when the wall timer fires and part of its wait was a stall, it
 * waits again for the rest. So a timer that comes due during a stall does not fire ahead of the
 * input that arrived meanwhile (Node runs due timers before it reads sockets).
 */
export class RunTimers implements Timers {
  constructor(
    private readonly clock: { now(): number; hold(): void; release(): void } = processRunTime,
    private readonly base: Timers = realTimers,
  ) {}

  set(fn: () => void, ms: number): unknown {
    const handle: { inner: unknown; done: boolean } = { inner: undefined, done: false };
    this.clock.hold();
    const until = this.clock.now() + ms;
    const check = () => {
      // Timers are no finer than a millisecond: within one, it is due.
      const left = until - this.clock.now();
      if (left >= 1) {
        handle.inner = this.base.set(check, left);
        return;
      }
      handle.done = true;
      this.clock.release();
      fn();
    };
    handle.inner = this.base.set(check, ms);
    return handle;
  }

  clear(handle: unknown): void {
    const h = handle as { inner: unknown; done: boolean } | undefined;
    if (!h || h.done) return;
    h.done = true;
    this.base.clear(h.inner);
    this.clock.release();
  }
}

/** Run-time timers on this process's shared meter. */
export const runTimers: Timers = new RunTimers();

/**
 * An AbortSignal that aborts (a `TimeoutError`, as `AbortSignal.timeout`'s) after `ms` of run
 * time: for a request whose answer a stall of this process must not throw away. `clear()` once
 * the answer is read, so its timer does not run on.
 */
export function runTimeSignal(ms: number, timers: Timers = runTimers): { signal: AbortSignal; clear(): void } {
  const ctrl = new AbortController();
  const timer = timers.set(() => ctrl.abort(new DOMException('timed out', 'TimeoutError')), ms);
  return { signal: ctrl.signal, clear: () => timers.clear(timer) };
}

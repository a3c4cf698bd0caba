import { sleepFor, type Clock } from '../transport/clock.ts';
import { STALL_TICK_MS, StallMeter } from '../service/run-time.ts';

/**
 * A scaled clock for whole simulated calls that stands still while this process does not run.
 *
 * A simulated call runs entirely in the test's process: the caller, the session, and the sandbox
 * that recognizes and voices. On a loaded machine that process is descheduled for tens or
 * hundreds of milliseconds at a time, and `ScaledClock` counts that time three times over at
 * speed 3: a 250 ms stall is 750 ms of call time in which nobody could act, a silence the
 * caller takes for the end of the agent's turn (so it speaks over the rest of the reply), or a
 * barge-in that lands after the reply it was timed into. Here the wall time between two looks at
 * the clock that is longer than a tick (a stall, or one synchronous task that long) does not
 * advance call time: every part of the call sees the same stall-free timeline, and what the
 * tests assert (turn order, barge-in timing, heard text) is measured on it as before.
 */
export class SteadyScaledClock implements Clock {
  private readonly start = Date.now();
  /** The stall rule the client's watchdogs use too (a gap longer than a tick plus a grace). */
  private readonly meter = new StallMeter();
  private readonly wallStart = this.meter.now();
  private readonly ticker: NodeJS.Timeout;

  constructor(readonly speed = 1) {
    // The ticker is what keeps the meter's last look fresh while the process idles on its
    // sockets, so that a long gap between looks can only be a stall.
    this.ticker = setInterval(() => this.meter.now(), STALL_TICK_MS);
    this.ticker.unref();
  }

  /** Total wall time not counted as call time (ms), for diagnostics. */
  get stalledMs(): number {
    return this.meter.stalledMs;
  }

  now(): number {
    return this.start + (this.meter.now() - this.wallStart) * this.speed;
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    const until = this.now() + Math.max(0, ms);
    let left = Math.max(0, ms);
    // A timer always, as ScaledClock's (a sleep of 0 yields to what is due); then, when a stall
    // while waiting moved the end of the wait later in wall time, again for the rest (more than a
    // wall millisecond of it: timers are no finer).
    do {
      await sleepFor(left / this.speed, signal);
      left = until - this.now();
    } while (left > this.speed);
  }

  /** Stops the ticker (the call is over). */
  stop(): void {
    clearInterval(this.ticker);
  }
}

import { performance } from 'node:perf_hooks';

/** One tick of the packet clock. */
export interface Tick {
  /** Count of ticks since the clock was made; a tick's RTP timestamp follows from it. */
  index: number;
  /** When this tick was due, in clock milliseconds. */
  due: number;
  /** How far behind its due time the tick ran, in milliseconds (0 when on time). */
  lateMs: number;
}

export type TickListener = (tick: Tick) => void;

export interface PacketClockOptions {
  /**
   * Packet duration; every output sends at most one packet per tick.
   * @default 20
   */
  frameMs?: number;
  /**
   * A tick that runs more than this late counts in `late` (a packet the far end may find late).
   * @default 20
   */
  lateAfterMs?: number;
  /** `manual`: no timer, a test calls `step()`. @default false */
  manual?: boolean;
}

export const PACKET_CLOCK_DEFAULTS: Required<PacketClockOptions> = { frameMs: 20, lateAfterMs: 20, manual: false };

/**
 * One 20 ms clock shared by every agent output in the process: a single timer instead of one per
 * call, scheduled on due times (not on the previous wake-up) so it never drifts. A wake-up that
 * comes late runs every tick it missed, in order, so timestamps stay on the grid and the far
 * end's jitter buffer absorbs the burst. The timer runs only while someone listens.
 *
 * A tick runs in two phases: every listener's `onTick` (send what is ready), then every
 * listener's `prepare` (get the next tick's packet ready: encoding). So no call's packet waits
 * behind the other calls' encoders: with one timer for all calls, the last of 40 calls would
 * otherwise leave 40 encodes after the first (bench/webrtc-density.ts, tick work).
 */
export class PacketClock {
  readonly frameMs: number;
  readonly lateAfterMs: number;
  private readonly manual: boolean;
  private readonly listeners = new Set<TickListener>();
  private readonly preparers = new Set<TickListener>();
  private nextIndex = 0;
  private nextDue = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Ticks run so far, and those that ran later than `lateAfterMs`. */
  readonly stats = { ticks: 0, late: 0, maxLateMs: 0 };

  constructor(opts: PacketClockOptions = {}) {
    const o = { ...PACKET_CLOCK_DEFAULTS, ...opts };
    this.frameMs = o.frameMs;
    this.lateAfterMs = o.lateAfterMs;
    this.manual = o.manual;
  }

  /** Index the next tick will carry. */
  get current(): number {
    return this.nextIndex;
  }

  /**
   * `onTick` runs on every tick; `prepare`, if given, runs on the same tick once every listener's
   * `onTick` has run.
   */
  subscribe(listener: TickListener, prepare?: TickListener): () => void {
    this.listeners.add(listener);
    if (prepare) this.preparers.add(prepare);
    if (!this.manual && !this.timer) {
      this.nextDue = performance.now() + this.frameMs;
      this.schedule();
    }
    return () => {
      this.listeners.delete(listener);
      if (prepare) this.preparers.delete(prepare);
      if (!this.listeners.size && this.timer) {
        clearTimeout(this.timer);
        this.timer = undefined;
      }
    };
  }

  /**
   * How far past its due time a tick is now, in milliseconds: what a packet sent at this moment
   * on that tick is late by. A manual clock has no wall time: its ticks are never late.
   */
  lateness(tick: Tick): number {
    return this.manual ? tick.lateMs : Math.max(0, performance.now() - tick.due);
  }

  /** Runs one tick now (manual clocks). */
  step(): void {
    this.fire(this.nextDue, 0);
    this.nextDue += this.frameMs;
  }

  private schedule(): void {
    this.timer = setTimeout(() => this.wake(), Math.max(0, this.nextDue - performance.now()));
  }

  private wake(): void {
    const now = performance.now();
    while (this.nextDue <= now + 1 && this.listeners.size) {
      this.fire(this.nextDue, Math.max(0, now - this.nextDue));
      this.nextDue += this.frameMs;
    }
    if (this.listeners.size) this.schedule();
    else this.timer = undefined;
  }

  private fire(due: number, lateMs: number): void {
    const tick = { index: this.nextIndex++, due, lateMs };
    this.stats.ticks++;
    if (lateMs > this.lateAfterMs) this.stats.late++;
    this.stats.maxLateMs = Math.max(this.stats.maxLateMs, lateMs);
    // Copies: a listener that joins during a tick starts on the next one.
    const listeners = [...this.listeners];
    const preparers = this.preparers.size ? [...this.preparers] : [];
    for (const l of listeners) run(l, tick);
    for (const p of preparers) run(p, tick);
  }
}

function run(l: TickListener, tick: Tick): void {
  try {
    l(tick);
  } catch {
    // One output's failure must not stop the clock for every other call; outputs report
    // their own errors.
  }
}

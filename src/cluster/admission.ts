import { filter, take } from '../rx.ts';
import type { Logger } from '../session/logger.ts';
import { armTimer, realClock, type Clock } from '../transport/clock.ts';
import type { Transport } from '../transport/types.ts';
import type { AdmissionHooks, AdmissionLease, AdmitOptions, CallAdmission } from '../server/call-admission.ts';
import { playAndHangUp, playLine, type RenderedLine } from './busy-line.ts';
import type { Lease, RedisSemaphore } from './semaphore.ts';
import { decideAdmission, WaitQueue } from './wait-queue.ts';

interface Waiter {
  transport: Transport;
  settle(lease: Lease | 'busy' | 'gone'): void;
}

export interface ClusterAdmissionOptions {
  semaphore: RedisSemaphore;
  /** Slots one call takes. */
  weight: number;
  queueSize: number;
  queueWaitMs: number;
  pollMs: number;
  /** Delay before a finished call's slots are given back (see `ClusterOptions.releaseDelayMs`). */
  releaseDelayMs?: number;
  /** The busy line, once rendered; until then turned-away callers are hung up without it. */
  busyLine: () => RenderedLine | undefined;
  /** The line a caller hears as a wait starts, once rendered (none: the wait is silent). */
  waitLine?: () => RenderedLine | undefined;
  /** The wait line starts again this often (ms from the start of the last, at least its length); 0: once. */
  waitLineEveryMs?: number;
  logger: Logger;
  now?: () => number;
  /** The clock the wait line is repeated on (a test's virtual clock); real time by default. */
  clock?: Clock;
}

/**
 * Gives each call its slots of the key before its session opens any socket: at once when free
 * and nobody waits, else after waiting in a bounded queue (first come, first served), else the
 * busy line. A waiting caller who hangs up leaves the queue. When Redis cannot be reached the
 * call is turned away: running it blind could take the key over its limit for everyone.
 */
export class ClusterAdmission implements CallAdmission {
  private readonly queue: WaitQueue<Waiter>;
  private timer: NodeJS.Timeout | undefined;
  private pumping = false;
  private again = false;
  private closed = false;
  private readonly now: () => number;
  private readonly clock: Clock;
  private readonly offRelease: () => void;

  constructor(private readonly o: ClusterAdmissionOptions) {
    this.queue = new WaitQueue(o.queueSize, o.queueWaitMs);
    this.now = o.now ?? Date.now;
    this.clock = o.clock ?? realClock();
    this.offRelease = o.semaphore.onRelease(() => void this.pump());
  }

  /** Callers waiting for a slot here now. */
  get waiting(): number {
    return this.queue.length;
  }

  async admit(transport: Transport, hooks?: AdmissionHooks, o: AdmitOptions = {}): Promise<AdmissionLease | undefined> {
    const log = this.o.logger.child({ call: transport.call.callId });
    if (this.closed && !o.promised) return this.turnAway(transport, 'draining');
    // Draining, a call promised before (answered, its media on its way): a free line now, or the busy line; no queue any more.
    if (this.closed) return this.promisedWhileClosed(transport, log);
    let lease: Lease | undefined;
    if (this.queue.length === 0) {
      try {
        lease = await this.o.semaphore.tryAcquire(this.o.weight);
      } catch (err) {
        log.error({ err: (err as Error).message }, 'Redis did not answer for a slot; turning the call away');
        return this.turnAway(transport, 'no slot');
      }
    }
    const decision = decideAdmission({ slotFree: lease !== undefined, waiting: this.queue.length, queueSize: this.o.queueSize });
    if (decision === 'admit') return this.delayed(lease!);
    if (decision === 'busy') {
      log.info({ waiting: this.queue.length }, 'all lines busy: playing the busy line');
      return this.turnAway(transport, 'busy');
    }
    const position = this.queue.length + 1;
    log.info({ position }, 'no free line: the caller waits');
    hooks?.waiting?.(position);
    // A caller who waits in silence takes the line for dead: told as the wait starts and again
    // while it lasts, cut off when a line frees.
    const waitLine = this.o.waitLine?.();
    const stopWaitLine = waitLine ? this.repeatWaitLine(transport, waitLine) : undefined;
    const outcome = await new Promise<Lease | 'busy' | 'gone'>((settle) => {
      const waiter: Waiter = { transport, settle };
      this.queue.join(waiter, this.now());
      const sub = transport.events$.pipe(filter((e) => e.type === 'hangup' || e.type === 'error'), take(1)).subscribe(() => {
        if (this.queue.leave(waiter)) settle('gone');
      });
      const settleOnce = waiter.settle;
      waiter.settle = (r) => {
        sub.unsubscribe();
        settleOnce(r);
      };
      this.schedule();
    });
    stopWaitLine?.();
    if (outcome === 'gone') {
      log.info('the caller hung up while waiting');
      await transport.output.close().catch(() => {});
      return undefined;
    }
    if (waitLine) await transport.output.interrupt().catch(() => 0);
    if (outcome === 'busy') {
      log.info('waited too long for a line: playing the busy line');
      return this.turnAway(transport, 'busy');
    }
    return this.delayed(outcome);
  }

  private async promisedWhileClosed(transport: Transport, log: Logger): Promise<AdmissionLease | undefined> {
    const lease = await this.o.semaphore.tryAcquire(this.o.weight).catch((err: Error) => void log.error({ err: err.message }, 'Redis did not answer for a slot; turning the call away'));
    if (lease) return this.delayed(lease);
    log.info('draining, and no free line for a call promised before the drain: playing the busy line');
    return this.turnAway(transport, 'busy');
  }

  /** Plays the wait line now and every `waitLineEveryMs` (never over itself) until the returned stop. */
  private repeatWaitLine(transport: Transport, line: RenderedLine): () => void {
    const every = this.o.waitLineEveryMs ?? 0;
    const lineMs = (line.samples.length / line.sampleRate) * 1000;
    let cancel: (() => void) | undefined;
    const play = () => {
      playLine(transport, line);
      if (every > 0) cancel = armTimer(this.clock, Math.max(every, lineMs), play);
    };
    play();
    return () => cancel?.();
  }

  /** The call's lease as the call manager sees it: given back a moment after the call ended. */
  private delayed(lease: Lease): AdmissionLease {
    const ms = this.o.releaseDelayMs ?? 0;
    if (ms === 0) return lease;
    return {
      release: async () => {
        setTimeout(() => void lease.release().catch((err: Error) => this.o.logger.warn({ err: err.message }, 'could not give back a call\'s slots; they expire with the lease')), ms).unref();
      },
    };
  }

  /** Stops taking calls: everyone waiting hears the busy line. */
  close(): void {
    this.closed = true;
    this.offRelease();
    clearTimeout(this.timer);
    for (const w of this.queue.clear()) w.settle('busy');
  }

  private async turnAway(transport: Transport, why: string): Promise<undefined> {
    const line = this.o.busyLine();
    if (line) await playAndHangUp(transport, line);
    else {
      await transport.hangup?.(why).catch(() => {});
      await transport.output.close().catch(() => {});
    }
    return undefined;
  }

  private schedule(): void {
    if (this.timer || this.queue.length === 0 || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.pump();
    }, this.o.pollMs);
  }

  /** Expires late waiters, then gives freed slots to the head of the queue, in order. */
  private async pump(): Promise<void> {
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.again = false;
        for (const w of this.queue.expire(this.now())) w.settle('busy');
        while (this.queue.head() && !this.closed) {
          let lease: Lease | undefined;
          try {
            lease = await this.o.semaphore.tryAcquire(this.o.weight);
          } catch (err) {
            this.o.logger.warn({ err: (err as Error).message }, 'Redis did not answer; waiting callers retry');
          }
          if (!lease) break;
          const head = this.queue.shift();
          if (head) head.settle(lease);
          else await lease.release();
        }
      } while (this.again);
    } finally {
      this.pumping = false;
      this.schedule();
    }
  }
}

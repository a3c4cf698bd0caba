/**
 * The callers waiting for a slot on one instance, in arrival order, each with a deadline. Pure:
 * time comes in as arguments, so the decisions are tested on a virtual clock.
 */
export type Admission = 'admit' | 'wait' | 'busy';

/**
 * What to do with a new call: run it when a slot is free and nobody waits before it (first come,
 * first served), else queue it while there is room, else the busy line.
 */
export function decideAdmission(s: { slotFree: boolean; waiting: number; queueSize: number }): Admission {
  if (s.slotFree && s.waiting === 0) return 'admit';
  return s.waiting < s.queueSize ? 'wait' : 'busy';
}

export class WaitQueue<T> {
  private readonly items: { item: T; deadline: number }[] = [];

  constructor(readonly size: number, readonly maxWaitMs: number) {}

  get length(): number {
    return this.items.length;
  }

  /** Queues `item` until `now + maxWaitMs`; 'full' when `size` callers already wait. */
  join(item: T, now: number): 'queued' | 'full' {
    if (this.items.length >= this.size) return 'full';
    this.items.push({ item, deadline: now + this.maxWaitMs });
    return 'queued';
  }

  /** Removes a caller who gave up (hung up while waiting). */
  leave(item: T): boolean {
    const i = this.items.findIndex((w) => w.item === item);
    if (i >= 0) this.items.splice(i, 1);
    return i >= 0;
  }

  /** The caller whose turn is next. */
  head(): T | undefined {
    return this.items[0]?.item;
  }

  shift(): T | undefined {
    return this.items.shift()?.item;
  }

  /** Removes and returns the callers whose wait is over at `now` (deadline reached). */
  expire(now: number): T[] {
    const gone: T[] = [];
    for (let i = this.items.length - 1; i >= 0; i--) {
      if (this.items[i]!.deadline <= now) gone.unshift(this.items.splice(i, 1)[0]!.item);
    }
    return gone;
  }

  /** Removes and returns everyone (the instance is draining). */
  clear(): T[] {
    return this.items.splice(0).map((w) => w.item);
  }
}

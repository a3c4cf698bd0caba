import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { LeaseSets } from './lease-set.ts';

// The cluster-wide budget of one service key: a lease set (./lease-set.ts), each member one
// session slot, so the slots of an instance that died come back after one lease time.

/** Slots held for one call (or the busy line's one synthesis); give them back with `release`. */
export interface Lease {
  readonly id: string;
  readonly weight: number;
  release(): Promise<void>;
}

export interface SemaphoreOptions {
  redis: Redis;
  /** The sorted set's key (one per service key; see `slotsKey`). */
  key: string;
  limit: number;
  leaseMs: number;
  /** Names this instance in lease ids, so `hiwar status` can tell whose they are. */
  holder: string;
  /**
   * Told once when a lease was found gone at renewal (the instance stalled past the lease time);
   * the lease is then no longer renewed.
   */
  onLost?: (lease: Lease) => void;
}

export class RedisSemaphore {
  private readonly held = new Map<string, Lease>();
  private readonly released = new Set<() => void>();

  private readonly sets: LeaseSets;

  constructor(private readonly o: SemaphoreOptions) {
    this.sets = new LeaseSets(o.redis, { leaseMs: o.leaseMs });
  }

  get limit(): number {
    return this.o.limit;
  }

  /** Leases this instance holds now. */
  get leases(): number {
    return this.held.size;
  }

  /** Takes `weight` slots if they are free now; undefined when the budget is spent. */
  async tryAcquire(weight: number): Promise<Lease | undefined> {
    const id = `${this.o.holder}:${randomUUID()}`;
    if ((await this.sets.take(this.o.key, this.o.limit, members(id, weight))) !== 'taken') return undefined;
    const lease: Lease = {
      id,
      weight,
      release: async () => {
        if (!this.held.delete(id)) return;
        try {
          await this.sets.free(this.o.key, members(id, weight));
        } finally {
          for (const r of this.released) r();
        }
      },
    };
    this.held.set(id, lease);
    return lease;
  }

  /** Called whenever a lease of this instance is given back (waiting callers retry at once). */
  onRelease(listener: () => void): () => void {
    this.released.add(listener);
    return () => this.released.delete(listener);
  }

  /** Pushes every held lease's expiry one lease time ahead (the heartbeat). */
  async renew(): Promise<void> {
    const all = [...this.held.values()];
    if (all.length === 0) return;
    for (const lease of all) {
      const kept = await this.sets.keep(this.o.key, members(lease.id, lease.weight));
      // Reported once: the call goes on (cutting it would be worse), outside the budget.
      if (kept < lease.weight && this.held.delete(lease.id)) this.o.onLost?.(lease);
    }
  }

  /** Slots taken across the cluster now (expired leases not counted). */
  async used(): Promise<number> {
    return this.sets.used(this.o.key);
  }

  /** Gives back every lease this instance still holds (draining, shutting down). */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.held.values()].map((l) => l.release().catch(() => {})));
  }
}

const members = (id: string, weight: number) => Array.from({ length: weight }, (_, i) => `${id}#${i + 1}`);

/** The set holding one service key's slots: named by a hash of the key, never the key itself. */
export function slotsKey(prefix: string, keyHash: string): string {
  return `${prefix}:slots:${keyHash}`;
}

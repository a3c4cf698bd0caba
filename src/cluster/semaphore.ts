import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

/**
 * The cluster-wide budget of one service key: a sorted set of leases in Redis, each member one
 * session slot, scored by its expiry on Redis's own clock (instances' clocks may differ). Taking
 * slots drops expired leases first, so the slots of an instance that died come back after one
 * lease time. A Lua script makes "count, then add" atomic; hand-written because the semaphore
 * libraries on npm take one slot at a time and keep their own client-side clocks.
 */
const ACQUIRE = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local limit, weight, lease = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local used = redis.call('ZCARD', KEYS[1])
if used + weight > limit then return {0, used} end
for i = 1, weight do redis.call('ZADD', KEYS[1], now + lease, ARGV[4] .. '#' .. i) end
redis.call('PEXPIRE', KEYS[1], lease * 2)
return {1, used + weight}
`;

/** Pushes the expiry of the members still held; returns how many were still there. */
const RENEW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local lease = tonumber(ARGV[1])
local kept = 0
for i = 2, #ARGV do kept = kept + redis.call('ZADD', KEYS[1], 'XX', 'CH', now + lease, ARGV[i]) end
if kept > 0 then redis.call('PEXPIRE', KEYS[1], lease * 2) end
return kept
`;

const USED = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
return redis.call('ZCARD', KEYS[1])
`;

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

  constructor(private readonly o: SemaphoreOptions) {}

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
    const [ok] = (await this.o.redis.eval(ACQUIRE, 1, this.o.key, this.o.limit, weight, this.o.leaseMs, id)) as [number, number];
    if (!ok) return undefined;
    const lease: Lease = {
      id,
      weight,
      release: async () => {
        if (!this.held.delete(id)) return;
        try {
          await this.o.redis.zrem(this.o.key, ...members(id, weight));
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
      const kept = (await this.o.redis.eval(RENEW, 1, this.o.key, this.o.leaseMs, ...members(lease.id, lease.weight))) as number;
      // Reported once: the call goes on (cutting it would be worse), outside the budget.
      if (kept < lease.weight && this.held.delete(lease.id)) this.o.onLost?.(lease);
    }
  }

  /** Slots taken across the cluster now (expired leases not counted). */
  async used(): Promise<number> {
    return (await this.o.redis.eval(USED, 1, this.o.key)) as number;
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

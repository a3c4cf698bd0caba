/**
 * A budget of slots in Redis shared by instances: a sorted set whose members are the slots taken,
 * each scored by its lease's expiry. Every script first drops the expired leases, so the slots of
 * an instance that died come back after one lease time. The clock is Redis's own (instances'
 * clocks may differ) unless the caller passes one (tests on virtual time). Lua makes "count, then
 * add" atomic; hand-written because the semaphore libraries on npm take one slot at a time and
 * keep their own client-side clocks. Used by the service key's session budget
 * (`RedisSemaphore`) and a campaign's calls (`CallSlots`).
 */

// `now`: ARGV[1] when the caller runs a clock of its own, else (a negative ARGV[1]) Redis's.
// The set's own expiry is only ever pushed later: a holder with a shorter lease never cuts another's.
const NOW = `
local now = tonumber(ARGV[1])
if now < 0 then local t = redis.call('TIME'); now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local function outlive(lease) if redis.call('PTTL', KEYS[1]) < lease * 2 then redis.call('PEXPIRE', KEYS[1], lease * 2) end end
`;

/** Takes all the members at once: 1 taken; 2 the first member holds a slot already (leases pushed); 0 not enough free. */
const TAKE = `${NOW}
local lease, limit = tonumber(ARGV[2]), tonumber(ARGV[3])
if redis.call('ZSCORE', KEYS[1], ARGV[4]) then
  for i = 4, #ARGV do redis.call('ZADD', KEYS[1], now + lease, ARGV[i]) end
  return 2
end
if redis.call('ZCARD', KEYS[1]) + #ARGV - 3 > limit then return 0 end
for i = 4, #ARGV do redis.call('ZADD', KEYS[1], now + lease, ARGV[i]) end
outlive(lease)
return 1
`;

/** Pushes the leases of the members still held; a freed (or expired) one is never brought back. */
const KEEP = `${NOW}
local lease = tonumber(ARGV[2])
local kept = 0
for i = 3, #ARGV do kept = kept + redis.call('ZADD', KEYS[1], 'XX', 'CH', now + lease, ARGV[i]) end
if kept > 0 then outlive(lease) end
return kept
`;

/** Takes the members whatever the limit (what they stand for is live, so it counts); returns the slots in use. */
const RECLAIM = `${NOW}
local lease = tonumber(ARGV[2])
for i = 3, #ARGV do redis.call('ZADD', KEYS[1], now + lease, ARGV[i]) end
outlive(lease)
return redis.call('ZCARD', KEYS[1])
`;

const USED = `${NOW}
return redis.call('ZCARD', KEYS[1])
`;

/** The Redis commands a lease set uses (an ioredis client fits); structural, so no entry needs ioredis's types. */
export interface LeaseRedis {
  /** EVAL script numkeys key… arg…. */
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  /** ZREM key member…. */
  zrem(key: string, ...members: string[]): Promise<unknown>;
}

/** How a take went: new slots, the slots these members already held, or none (the budget is spent). */
export type LeaseTake = 'taken' | 'held' | 'full';

/** The lease scripts over any set of one Redis: each call names the set's key. */
export class LeaseSets {
  constructor(
    private readonly redis: LeaseRedis,
    private readonly o: { leaseMs: number; /** A clock of the caller's (tests): default Redis's own. */ now?: () => number },
  ) {}

  /** The lease time. */
  get leaseMs(): number {
    return this.o.leaseMs;
  }

  private now = () => (this.o.now ? Math.round(this.o.now()) : -1);

  /** Takes one slot per member if that many are free under `limit` (or pushes them if the first is held already). */
  async take(key: string, limit: number, members: string[]): Promise<LeaseTake> {
    const r = (await this.redis.eval(TAKE, 1, key, this.now(), this.o.leaseMs, limit, ...members)) as number;
    return r === 1 ? 'taken' : r === 2 ? 'held' : 'full';
  }

  /** Pushes the leases of the members still held; returns how many were. */
  async keep(key: string, members: string[]): Promise<number> {
    return (await this.redis.eval(KEEP, 1, key, this.now(), this.o.leaseMs, ...members)) as number;
  }

  /** Takes the members' slots whatever the limit; returns the slots in use. */
  async reclaim(key: string, members: string[]): Promise<number> {
    return (await this.redis.eval(RECLAIM, 1, key, this.now(), this.o.leaseMs, ...members)) as number;
  }

  /** Frees the members' slots. */
  async free(key: string, members: string[]): Promise<void> {
    await this.redis.zrem(key, ...members);
  }

  /** Slots taken now (expired leases not counted). */
  async used(key: string): Promise<number> {
    return (await this.redis.eval(USED, 1, key, this.now())) as number;
  }
}

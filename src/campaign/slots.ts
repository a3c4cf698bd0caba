/**
 * A campaign's concurrency on a cluster: one slot per live call, named by the call's dial id
 * (`<campaign>:<contact>:<attempt>`), not by the process that placed it. A sorted set per campaign
 * in Redis (`<prefix>:campaign:<id>:slots`), each member a dial id scored by its lease's expiry.
 * Whoever knows the call is live keeps its lease: the worker that placed it, the instance taking
 * its callbacks or running its session, the worker recovering it. Whoever learns its final
 * outcome frees it. The lease's expiry is only the safety net for a call nobody knows of.
 */

/** Defaults of the campaign slots, in one place. */
export const CALL_SLOTS_DEFAULTS = {
  /** Prefix of the keys in Redis (the cluster's). */
  prefix: 'hiwar',
  /**
   * A slot's lease. Longer than a dead worker's job takes to come back to another worker
   * (`CAMPAIGN_QUEUE_DEFAULTS.lockDurationMs + stalledIntervalMs`), so the worker that recovers
   * a call nobody else heard of finds its slot still held.
   */
  leaseMs: 75_000,
  /** A call kept live here with no outcome heard of after this long is let go (its lease then runs out). */
  maxKeepMs: 4 * 3600_000,
} as const;

// `now`: ARGV[1] when the caller runs a clock of its own (tests), else Redis's own clock (instances' clocks may differ).
// The set's own expiry is only ever pushed later: a holder with a shorter lease never cuts another's.
const NOW = `
local now = tonumber(ARGV[1])
if now < 0 then local t = redis.call('TIME'); now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
`;

/** 1: taken; 2: this dial holds a slot already (lease pushed); 0: the campaign is at its limit. */
const TAKE = `${NOW}
local lease, limit = tonumber(ARGV[2]), tonumber(ARGV[3])
if redis.call('ZSCORE', KEYS[1], ARGV[4]) then
  redis.call('ZADD', KEYS[1], now + lease, ARGV[4])
  return 2
end
if redis.call('ZCARD', KEYS[1]) >= limit then return 0 end
redis.call('ZADD', KEYS[1], now + lease, ARGV[4])
if redis.call('PTTL', KEYS[1]) < lease * 2 then redis.call('PEXPIRE', KEYS[1], lease * 2) end
return 1
`;

/** Pushes the leases of the dials still holding a slot; a freed (or expired) one is never brought back. */
const KEEP = `${NOW}
local lease = tonumber(ARGV[2])
local kept = 0
for i = 3, #ARGV do kept = kept + redis.call('ZADD', KEYS[1], 'XX', 'CH', now + lease, ARGV[i]) end
if kept > 0 and redis.call('PTTL', KEYS[1]) < lease * 2 then redis.call('PEXPIRE', KEYS[1], lease * 2) end
return kept
`;

/** The slot of a call found live (a recovered dial), taken back whatever the limit: the call is live, so it counts. */
const RECLAIM = `${NOW}
local lease = tonumber(ARGV[2])
redis.call('ZADD', KEYS[1], now + lease, ARGV[3])
if redis.call('PTTL', KEYS[1]) < lease * 2 then redis.call('PEXPIRE', KEYS[1], lease * 2) end
return redis.call('ZCARD', KEYS[1])
`;

const USED = `${NOW}
return redis.call('ZCARD', KEYS[1])
`;

/** The campaign a dial id belongs to (campaign ids have no `:`). */
export const campaignOfDial = (dialId: string) => dialId.split(':')[0]!;

/** Whether `reference` (an outbound call's) is a campaign's dial id. */
export const isDialId = (reference: string) => /^[\w-]{1,64}:\d+:\d+$/.test(reference);

/** How `take` went: a new slot, the slot this dial already held, or none (the campaign is at its limit). */
export type SlotTake = 'taken' | 'held' | 'full';

/** The Redis commands the slots use (an ioredis client fits); structural, so the telephony entry needs no ioredis types. */
export interface SlotsRedis {
  /** EVAL script numkeys key… arg…. */
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  /** ZREM key member. */
  zrem(key: string, member: string): Promise<unknown>;
}

/** The campaigns' slots in Redis, one per live call, by dial id. */
export class CallSlots {
  private readonly o: { prefix: string; leaseMs: number; now?: () => number };

  constructor(
    private readonly redis: SlotsRedis,
    o: { prefix?: string; leaseMs?: number; /** A clock of the caller's (tests): default Redis's own. */ now?: () => number } = {},
  ) {
    this.o = { prefix: o.prefix ?? CALL_SLOTS_DEFAULTS.prefix, leaseMs: o.leaseMs ?? CALL_SLOTS_DEFAULTS.leaseMs, ...(o.now ? { now: o.now } : {}) };
  }

  /** The lease time of these slots. */
  get leaseMs(): number {
    return this.o.leaseMs;
  }

  /** The set holding campaign `id`'s slots. */
  key(campaignId: string): string {
    return `${this.o.prefix}:campaign:${campaignId}:slots`;
  }

  private now = () => (this.o.now ? Math.round(this.o.now()) : -1);

  /** Takes a slot for the dial when fewer than `limit` of the campaign's calls hold one. */
  async take(dialId: string, limit: number): Promise<SlotTake> {
    const r = (await this.redis.eval(TAKE, 1, this.key(campaignOfDial(dialId)), this.now(), this.o.leaseMs, limit, dialId)) as number;
    return r === 1 ? 'taken' : r === 2 ? 'held' : 'full';
  }

  /** Pushes the leases of these dials' slots (any campaigns); returns how many were still held. */
  async keep(dialIds: Iterable<string>): Promise<number> {
    const byCampaign = new Map<string, string[]>();
    for (const d of dialIds) {
      const id = campaignOfDial(d);
      const dials = byCampaign.get(id);
      if (dials) dials.push(d);
      else byCampaign.set(id, [d]);
    }
    let kept = 0;
    for (const [id, dials] of byCampaign) kept += (await this.redis.eval(KEEP, 1, this.key(id), this.now(), this.o.leaseMs, ...dials)) as number;
    return kept;
  }

  /** Takes the dial's slot back whatever the limit (its call is live: a recovered dial); returns the campaign's slots in use. */
  async reclaim(dialId: string): Promise<number> {
    return (await this.redis.eval(RECLAIM, 1, this.key(campaignOfDial(dialId)), this.now(), this.o.leaseMs, dialId)) as number;
  }

  /** Frees the dial's slot: its call's final outcome is known. */
  async free(dialId: string): Promise<void> {
    await this.redis.zrem(this.key(campaignOfDial(dialId)), dialId);
  }

  /** The campaign's calls holding a slot now (expired leases not counted). */
  async used(campaignId: string): Promise<number> {
    return (await this.redis.eval(USED, 1, this.key(campaignId), this.now())) as number;
  }
}

/**
 * The live calls one process knows of, whose slots it keeps: each dial is kept while any reason
 * holds (placed here, its callbacks came here, its session runs here, recovered here), and its
 * lease is pushed every third of a lease time. `free` frees the slot for every process (the
 * outcome is known); `letGo` only stops keeping it here.
 */
export class SlotKeeper {
  private readonly live = new Map<string, { reasons: Set<string>; since: number }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly slots: CallSlots,
    private readonly o: { now?: () => number; maxKeepMs?: number; onError?(err: Error): void } = {},
  ) {}

  /** Dials kept here now. */
  get kept(): string[] {
    return [...this.live.keys()];
  }

  /** Keeps the dial's slot for `reason` (its lease is pushed from now on). */
  keep(dialId: string, reason: string): void {
    const l = this.live.get(dialId);
    if (l) l.reasons.add(reason);
    else this.live.set(dialId, { reasons: new Set([reason]), since: this.clock() });
    this.start();
  }

  /** Stops keeping the dial for `reason`; when no reason is left, this process no longer pushes its lease. */
  letGo(dialId: string, reason: string): void {
    const l = this.live.get(dialId);
    if (!l) return;
    l.reasons.delete(reason);
    if (l.reasons.size === 0) this.live.delete(dialId);
  }

  /** The dial's call has ended (its outcome is known): its slot is freed for the whole campaign. */
  async free(dialId: string): Promise<void> {
    this.live.delete(dialId);
    await this.slots.free(dialId);
  }

  /** Pushes the leases of the dials kept here (the heartbeat); lets go those kept past `maxKeepMs`. */
  async renew(): Promise<void> {
    const now = this.clock();
    for (const [d, l] of this.live) if (now - l.since > (this.o.maxKeepMs ?? CALL_SLOTS_DEFAULTS.maxKeepMs)) this.live.delete(d);
    if (this.live.size) await this.slots.keep(this.live.keys());
  }

  /** Stops the heartbeat (the slots kept here then run out after their lease, unless freed). */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private clock = () => this.o.now?.() ?? Date.now();

  private start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.renew().catch((err: Error) => this.o.onError?.(err)), Math.max(100, Math.floor(this.slots.leaseMs / 3)));
    this.timer.unref();
  }
}

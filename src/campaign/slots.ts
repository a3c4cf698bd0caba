/**
 * A campaign's concurrency on a cluster: one slot per live call, named by the call's dial id
 * (`<campaign>:<contact>:<attempt>`), not by the process that placed it. A sorted set per campaign
 * in Redis (`<prefix>:campaign:<id>:slots`), each member a dial id scored by its lease's expiry.
 * Whoever knows the call is live keeps its lease: the worker that placed it, the instance taking
 * its callbacks or running its session, the worker recovering it. Whoever learns its final
 * outcome frees it. The lease's expiry is only the safety net for a call nobody knows of.
 */
import { LeaseSets, type LeaseRedis, type LeaseTake } from '../cluster/lease-set.ts';

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

/** The campaign a dial id belongs to (campaign ids have no `:`). */
export const campaignOfDial = (dialId: string) => dialId.split(':')[0]!;

/** Whether `reference` (an outbound call's) is a campaign's dial id. */
export const isDialId = (reference: string) => /^[\w-]{1,64}:\d+:\d+$/.test(reference);

/** How `take` went: a new slot, the slot this dial already held, or none (the campaign is at its limit). */
export type SlotTake = LeaseTake;

/** The Redis commands the slots use (an ioredis client fits); structural, so the telephony entry needs no ioredis types. */
export type SlotsRedis = LeaseRedis;

/** The campaigns' slots in Redis, one per live call, by dial id. */
export class CallSlots {
  private readonly prefix: string;
  private readonly sets: LeaseSets;

  constructor(redis: SlotsRedis, o: { prefix?: string; leaseMs?: number; /** A clock of the caller's (tests): default Redis's own. */ now?: () => number } = {}) {
    this.prefix = o.prefix ?? CALL_SLOTS_DEFAULTS.prefix;
    this.sets = new LeaseSets(redis, { leaseMs: o.leaseMs ?? CALL_SLOTS_DEFAULTS.leaseMs, ...(o.now ? { now: o.now } : {}) });
  }

  /** The lease time of these slots. */
  get leaseMs(): number {
    return this.sets.leaseMs;
  }

  /** The set holding campaign `id`'s slots. */
  key(campaignId: string): string {
    return `${this.prefix}:campaign:${campaignId}:slots`;
  }

  /** Takes a slot for the dial when fewer than `limit` of the campaign's calls hold one. */
  take(dialId: string, limit: number): Promise<SlotTake> {
    return this.sets.take(this.key(campaignOfDial(dialId)), limit, [dialId]);
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
    for (const [id, dials] of byCampaign) kept += await this.sets.keep(this.key(id), dials);
    return kept;
  }

  /** Takes the dial's slot back whatever the limit (its call is live: a recovered dial); returns the campaign's slots in use. */
  reclaim(dialId: string): Promise<number> {
    return this.sets.reclaim(this.key(campaignOfDial(dialId)), [dialId]);
  }

  /** Frees the dial's slot: its call's final outcome is known. */
  free(dialId: string): Promise<void> {
    return this.sets.free(this.key(campaignOfDial(dialId)), [dialId]);
  }

  /** The campaign's calls holding a slot now (expired leases not counted). */
  used(campaignId: string): Promise<number> {
    return this.sets.used(this.key(campaignId));
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

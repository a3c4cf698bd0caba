import type { Redis } from 'ioredis';
import { InstanceRegistry } from '../cluster/registry.ts';
import type { LiveCall, LiveCalls } from './live-calls.ts';

/** How instances of a cluster share their live calls through Redis. */
export const LIVE_CLUSTER_DEFAULTS = {
  /** How often an instance looks for changes to publish (and republishes, so its record stays alive). */
  publishEveryMs: 1000,
  /** A record not republished within this expires: a killed instance's calls drop out of the view. */
  ttlMs: 5000,
} as const;

/**
 * The live calls of every instance of a cluster: each publishes its own list under
 * `<prefix>:live:<instance>` (expiring), and the view reads those of the instances the cluster's
 * registry lists.
 */
export class ClusterLiveCalls {
  private timer: NodeJS.Timeout | undefined;
  private published = -1;
  private lastAt = 0;

  constructor(
    private readonly redis: Redis,
    private readonly o: { prefix: string; instance: string; local: LiveCalls; publishEveryMs?: number; ttlMs?: number },
  ) {}

  private key(id: string): string {
    return `${this.o.prefix}:live:${id}`;
  }

  /** Publishes this instance's calls now, then whenever they change (and before the record expires). */
  start(): void {
    void this.publish();
    this.timer = setInterval(() => void this.publish(), this.o.publishEveryMs ?? LIVE_CLUSTER_DEFAULTS.publishEveryMs);
    this.timer.unref();
  }

  /** Writes this instance's list when it changed, or when its record is half-way to expiring. */
  async publish(): Promise<void> {
    const ttl = this.o.ttlMs ?? LIVE_CLUSTER_DEFAULTS.ttlMs;
    const changes = this.o.local.changes;
    if (changes === this.published && Date.now() - this.lastAt < ttl / 2) return;
    const calls = this.o.local.list().map((c) => ({ ...c, instance: this.o.instance }));
    try {
      await this.redis.set(this.key(this.o.instance), JSON.stringify(calls), 'PX', ttl);
      this.published = changes;
      this.lastAt = Date.now();
    } catch {
      // Redis away: the cluster's own lines say so; the next tick tries again.
    }
  }

  /** Every instance's calls, by instance then start time. */
  async list(): Promise<LiveCall[]> {
    const ids = (await new InstanceRegistry(this.redis, this.o.prefix).list()).map((r) => r.id);
    if (!ids.includes(this.o.instance)) ids.push(this.o.instance);
    const raw = await this.redis.mget(ids.map((id) => this.key(id)));
    return raw.flatMap((r) => (r ? (JSON.parse(r) as LiveCall[]) : []));
  }

  /** Stops publishing and removes this instance's record. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.redis.del(this.key(this.o.instance)).catch(() => {});
  }
}

import type { Redis } from 'ioredis';

/** What each instance publishes about itself every heartbeat. */
export interface InstanceRecord {
  id: string;
  /** Where the instance is reached (its public URL): rooms are redirected here. */
  address: string;
  calls: number;
  maxCalls: number;
  waiting: number;
  loopDelayMs: number;
  draining: boolean;
  /** The key's slots: which budget (a hash of the key), how many the cluster uses, the limit. */
  slots: { key: string; used: number; limit: number; held: number };
  startedAt: string;
  updatedAt: string;
}

/**
 * The instances alive in the cluster: one record per instance that expires unless republished
 * (so a killed instance drops out within the TTL), plus a set of ids to list them without a
 * SCAN over the keyspace.
 */
export class InstanceRegistry {
  constructor(private readonly redis: Redis, private readonly prefix: string) {}

  private recordKey(id: string): string {
    return `${this.prefix}:instance:${id}`;
  }

  private get setKey(): string {
    return `${this.prefix}:instances`;
  }

  async publish(record: InstanceRecord, ttlMs: number): Promise<void> {
    await this.redis.multi().set(this.recordKey(record.id), JSON.stringify(record), 'PX', ttlMs).sadd(this.setKey, record.id).exec();
  }

  async remove(id: string): Promise<void> {
    await this.redis.multi().del(this.recordKey(id)).srem(this.setKey, id).exec();
  }

  /** The instances whose records are alive, by id; ids whose record expired are forgotten. */
  async list(): Promise<InstanceRecord[]> {
    const ids = (await this.redis.smembers(this.setKey)).sort();
    if (ids.length === 0) return [];
    const raw = await this.redis.mget(ids.map((id) => this.recordKey(id)));
    const gone = ids.filter((_, i) => raw[i] === null);
    if (gone.length) await this.redis.srem(this.setKey, ...gone);
    return raw.flatMap((r) => (r === null ? [] : [JSON.parse(r) as InstanceRecord]));
  }
}

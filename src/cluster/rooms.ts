import type { Redis } from 'ioredis';

/** Deletes a room record only if this instance still owns it. */
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/**
 * Which instance hosts each WebRTC room, so a join that reaches another instance (a supervisor
 * behind the load balancer) is sent to the one where the agent and caller are. Records expire
 * unless the host renews them: rooms of a dead instance do not redirect for ever.
 */
export class RoomDirectory {
  private readonly mine = new Set<string>();

  constructor(
    private readonly redis: Redis,
    private readonly o: { prefix: string; instance: string; address: string; ttlMs: number },
  ) {}

  private key(room: string): string {
    return `${this.o.prefix}:room:${room}`;
  }

  private get value(): string {
    return JSON.stringify({ instance: this.o.instance, address: this.o.address });
  }

  /**
   * The address of the instance hosting `room` when it is another one; undefined when the room is
   * here or new (it is then recorded as this instance's).
   */
  async elsewhere(room: string): Promise<string | undefined> {
    if (this.mine.has(room)) return undefined;
    const claimed = await this.redis.set(this.key(room), this.value, 'PX', this.o.ttlMs, 'NX');
    if (claimed === 'OK') {
      this.mine.add(room);
      return undefined;
    }
    const raw = await this.redis.get(this.key(room));
    if (raw === null) return this.elsewhere(room);
    const host = JSON.parse(raw) as { instance: string; address: string };
    if (host.instance === this.o.instance) {
      this.mine.add(room);
      return undefined;
    }
    return host.address;
  }

  /** The room closed here. */
  async release(room: string): Promise<void> {
    if (!this.mine.delete(room)) return;
    await this.redis.eval(RELEASE, 1, this.key(room), this.value);
  }

  /** Heartbeat: keeps this instance's rooms recorded. */
  async renew(): Promise<void> {
    for (const room of this.mine) await this.redis.set(this.key(room), this.value, 'PX', this.o.ttlMs);
  }

  async releaseAll(): Promise<void> {
    for (const room of [...this.mine]) await this.release(room).catch(() => {});
  }
}

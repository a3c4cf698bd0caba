/**
 * What a slow or greedy client may hold of the server before any call exists: time to send its
 * request head and body, time an upgrade socket may sit untaken, and how often one address may
 * ask for a token. Connections past a limit are cut, so a few hundred slow clients cannot hold
 * file descriptors and memory for minutes (Node's own defaults are 60 s and 300 s).
 */

/** Limits of the agent server's own port; `AgentServerOptions.limits` overrides any of them. */
export const SERVER_LIMITS = {
  /** A request head (request line and headers, upgrades included) must be complete within this. */
  headersTimeoutMs: 10_000,
  /** A whole request, body included, must have arrived within this (webhook bodies are small). */
  requestTimeoutMs: 15_000,
  /**
   * An upgrade socket that no WebSocket took (refused, or its peer never closes after the
   * refusal) is destroyed after this much silence.
   */
  upgradeIdleMs: 5_000,
  /** How often the limits above are checked (Node checks every 30 s by default). */
  checkEveryMs: 1_000,
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: 5_000,
};

/** Limits of the agent server's port (see `SERVER_LIMITS`). */
export type ServerLimits = typeof SERVER_LIMITS;

/** Options of a per-address rate limit. */
export interface RateLimitOptions {
  /** Requests one address may make at once before it must wait. */
  burst: number;
  /** Requests per minute one address may make in the long run. */
  perMinute: number;
  /** Addresses remembered at most (the least recently seen are forgotten first). @default 10000 */
  maxAddresses?: number;
}

/** A token bucket per client address: bounded memory, no timers. */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly maxAddresses: number;

  constructor(private readonly o: RateLimitOptions) {
    if (!(o.burst >= 1) || !(o.perMinute > 0)) throw new RangeError('a rate limit needs burst >= 1 and perMinute > 0');
    this.maxAddresses = o.maxAddresses ?? 10_000;
  }

  /** 0 when `address` may go on now (one request counted); otherwise the seconds to wait. */
  take(address: string | undefined, now = Date.now()): number {
    const key = address ?? 'unknown';
    const perMs = this.o.perMinute / 60_000;
    const b = this.buckets.get(key) ?? { tokens: this.o.burst, at: now };
    b.tokens = Math.min(this.o.burst, b.tokens + (now - b.at) * perMs);
    b.at = now;
    // Most recently seen last: the Map keeps insertion order, so the front is the oldest.
    this.buckets.delete(key);
    this.buckets.set(key, b);
    while (this.buckets.size > this.maxAddresses) this.buckets.delete(this.buckets.keys().next().value!);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - b.tokens) / perMs / 1000);
  }
}

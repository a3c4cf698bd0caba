/**
 * Where spent one-use grants are remembered: a media token's call, a webhook's nonce. `spend`
 * answers true the first time a key is spent and false ever after (until `ttlMs` has passed), so
 * a replayed token or request is refused. In memory for one process; `RedisTokenLedger`
 * (src/cluster/token-ledger.ts) for a cluster, where a token minted by one instance may be shown
 * to another.
 */
export interface TokenLedger {
  /** True when `key` was not spent before (and is now); false for a replay. Rejects when the store is unreachable. */
  spend(key: string, ttlMs: number): Promise<boolean>;
  /**
   * Whether `key` is spent now (without spending it). An answered outbound call's media token is
   * spent by whichever instance its media reached: the instance that placed the call asks this
   * before it hangs the call up as one whose media never came. A ledger without it: that
   * instance cannot tell, and hangs nothing up.
   */
  spent?(key: string): Promise<boolean>;
  /** Frees what the ledger holds (a Redis connection). */
  close?(): Promise<void>;
}

/**
 * The ledger key a call's media connection spends (one call per token): `key` is the call's
 * `provider:callId`. Spent, the call's media has connected to some instance.
 */
export const callMediaKey = (key: string) => `call:${key}`;

/** Options of the in-memory ledger. */
export const MEMORY_LEDGER_DEFAULTS = {
  /**
   * Keys remembered at most: beyond it the oldest are forgotten (about 100 bytes each, so the
   * default holds a day of a busy server in ~10 MB).
   */
  maxKeys: 100_000,
};

/** The ledger of one process: a Map in insertion order, expired keys dropped as new ones come. */
export class MemoryTokenLedger implements TokenLedger {
  private readonly until = new Map<string, number>();
  private readonly maxKeys: number;

  constructor(opts: Partial<typeof MEMORY_LEDGER_DEFAULTS> = {}) {
    this.maxKeys = opts.maxKeys ?? MEMORY_LEDGER_DEFAULTS.maxKeys;
  }

  async spend(key: string, ttlMs: number, now = Date.now()): Promise<boolean> {
    const seen = this.until.get(key);
    if (seen !== undefined && seen > now) return false;
    this.until.delete(key);
    this.until.set(key, now + ttlMs);
    // Oldest first: drop the expired ones at the front, and beyond the cap the oldest live ones.
    for (const [k, t] of this.until) {
      if (t > now && this.until.size <= this.maxKeys) break;
      this.until.delete(k);
    }
    return true;
  }

  async spent(key: string, now = Date.now()): Promise<boolean> {
    return (this.until.get(key) ?? 0) > now;
  }

  get size(): number {
    return this.until.size;
  }
}

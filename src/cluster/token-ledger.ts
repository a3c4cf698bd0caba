import type { Redis } from 'ioredis';
import type { TokenLedger } from '../server/token-ledger.ts';
import { connectOrExplain, connectRedis, redisAddress } from './redis.ts';

/**
 * The spent-token ledger of a cluster: one `SET key 1 NX PX ttl` per spend, so a token or
 * webhook nonce is spendable once across every instance sharing the Redis. While Redis is
 * unreachable `spend` rejects and the caller refuses the connection (closed, not open, on doubt).
 */
export class RedisTokenLedger implements TokenLedger {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = 'hiwar:spent:',
  ) {}

  async spend(key: string, ttlMs: number): Promise<boolean> {
    const r = await this.redis.set(this.prefix + key, '1', 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX');
    return r === 'OK';
  }

  async spent(key: string): Promise<boolean> {
    return (await this.redis.exists(this.prefix + key)) === 1;
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/** A ledger on its own connection to `url`; throws (with what to do) when Redis cannot be reached. */
export async function connectTokenLedger(url: string, onError: (err: Error) => void): Promise<RedisTokenLedger> {
  const redis = connectRedis(url);
  try {
    await connectOrExplain(redis);
  } catch (err) {
    redis.disconnect();
    throw new Error(`cannot reach Redis at ${redisAddress(url)} (REDIS_URL): ${(err as Error).message}`);
  }
  redis.on('error', onError);
  return new RedisTokenLedger(redis);
}

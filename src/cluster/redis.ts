import type { Redis } from 'ioredis';
import { requireOptional } from '../optional.ts';

/**
 * One connection to the cluster's Redis. Commands made while the connection is down fail after a
 * few retries instead of queueing for ever, so a call waiting for a slot hears the busy line
 * rather than silence when Redis is gone.
 */
export function connectRedis(url: string): Redis {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('REDIS_URL is not a URL (expected redis://host:6379 or rediss://…)');
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') throw new Error(`REDIS_URL must start with redis:// or rediss://, got ${parsed.protocol}//`);
  const { Redis: Client } = requireOptional<typeof import('ioredis')>('ioredis');
  return new Client(url, { maxRetriesPerRequest: 3, lazyConnect: true, connectionName: 'hiwar' });
}

/** Where a Redis URL points, without its password (for logs). */
export function redisAddress(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
}

/** What to do when Redis cannot be reached, for the one-line errors of the commands. */
export const REDIS_HINT = 'is a Redis server running there? (scripts/setup.sh installs redis-server; start one with `redis-server --daemonize yes`)';

/**
 * Connects, or throws the reason the connection failed and what to do. ioredis rejects
 * `connect()` with only "Connection is closed." when nothing listens; the cause (ECONNREFUSED,
 * a DNS failure, a refused password) arrives as an `error` event, so it is taken from there.
 */
export async function connectOrExplain(redis: Redis): Promise<void> {
  let cause: Error | undefined;
  const onError = (err: Error) => (cause ??= err);
  redis.on('error', onError);
  try {
    await redis.connect();
  } catch (err) {
    throw new Error(`${(cause ?? (err as Error)).message}; ${REDIS_HINT}`);
  } finally {
    redis.off('error', onError);
  }
}

/**
 * One attempt to reach Redis (then disconnects), for a command that would otherwise wait for it
 * without end: BullMQ's worker retries a refused connection for ever, logging each attempt.
 */
export async function probeRedis(url: string): Promise<void> {
  const redis = connectRedis(url);
  redis.on('error', () => {});
  try {
    await connectOrExplain(redis);
  } finally {
    redis.disconnect();
  }
}

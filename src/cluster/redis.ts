import { Redis } from 'ioredis';

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
  return new Redis(url, { maxRetriesPerRequest: 3, lazyConnect: true, connectionName: 'hiwar' });
}

/** Where a Redis URL points, without its password (for logs). */
export function redisAddress(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname === '/' ? '' : u.pathname}`;
}

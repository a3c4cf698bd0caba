import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import type { Logger } from '../session/logger.ts';
import { ClusterAdmission } from './admission.ts';
import type { RenderedLine } from './busy-line.ts';
import { resolveClusterOptions, type ClusterOptions, type ResolvedClusterOptions } from './options.ts';
import { readiness, type InstanceLoad } from './readiness.ts';
import { connectOrExplain, connectRedis, redisAddress } from './redis.ts';
import { InstanceRegistry, type InstanceRecord } from './registry.ts';
import { RoomDirectory } from './rooms.ts';
import { RedisSemaphore, slotsKey, type Lease } from './semaphore.ts';

export interface ClusterMember {
  readonly id: string;
  readonly options: ResolvedClusterOptions;
  readonly admission: ClusterAdmission;
  readonly rooms: RoomDirectory;
  readonly semaphore: RedisSemaphore;
  /** For the server's `/readyz`. */
  health(): { ready: boolean; body: Record<string, unknown> };
  /**
   * Start-up work is over: the event-loop delay counts from now. What start-up does (the busy
   * line, the fixed lines, first-time module loading) delays the loop but says nothing of how
   * the instance will carry calls, and would keep a fresh instance "not ready" for a heartbeat.
   */
  startupFinished(): void;
  /** Renders the busy line and the wait line (holding one slot while it does), kept for every turned-away or waiting call. */
  prepareBusyLine(synthesize: (text: string) => Promise<RenderedLine>): Promise<void>;
  /** SIGTERM: stop taking calls (waiting callers hear the busy line), publish "draining". */
  stopTaking(): Promise<void>;
  /** After the calls drained: give back any slot and room still held, leave the registry, disconnect. */
  leave(): Promise<void>;
}

export interface JoinOptions {
  options: ClusterOptions;
  /** The service key whose budget is shared (only a hash of it reaches Redis). */
  apiKey: string;
  /** This instance's address for rooms and `hiwar status` (its public URL). */
  address: string;
  /** The instance's own call counts, read at each heartbeat and `/readyz`. */
  load: () => { calls: number; maxCalls: number; draining: boolean };
  logger: Logger;
}

/** A short, stable name for a key's budget that says nothing about the key. */
export function keyHash(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex').slice(0, 16);
}

/**
 * Joins the cluster: connects to Redis, starts the heartbeat (renews leases and rooms, republishes
 * the instance's record) and returns what `hiwar serve` plugs into its server.
 */
export async function joinCluster(j: JoinOptions): Promise<ClusterMember> {
  const o = resolveClusterOptions(j.options);
  const redis: Redis = connectRedis(o.redisUrl);
  const id = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const log = j.logger.child({ instance: id });
  // ioredis reconnects by itself; say so once per outage, not once per retry.
  let down = false;
  redis.on('error', (err: Error) => {
    if (!down) log.error({ err: err.message, redis: redisAddress(o.redisUrl) }, 'Redis unreachable: new calls are turned away until it is back');
    down = true;
  });
  redis.on('ready', () => {
    if (down) log.info('Redis is back');
    down = false;
  });
  try {
    await connectOrExplain(redis);
  } catch (err) {
    redis.disconnect();
    throw new Error(`cannot reach Redis at ${redisAddress(o.redisUrl)} (REDIS_URL): ${(err as Error).message}`);
  }
  const key = keyHash(j.apiKey);
  const semaphore = new RedisSemaphore({
    redis,
    key: slotsKey(o.prefix, key),
    limit: o.keySessions,
    leaseMs: o.leaseMs,
    holder: id,
    onLost: (l: Lease) => log.error({ lease: l.id }, 'a call\'s slots expired before their renewal (the instance stalled longer than the lease); the key may go over its limit'),
  });
  let busyLine: RenderedLine | undefined;
  let waitLine: RenderedLine | undefined;
  const admission = new ClusterAdmission({
    semaphore,
    weight: o.sessionsPerCall,
    queueSize: o.queueSize,
    queueWaitMs: o.queueWaitMs,
    pollMs: o.pollMs,
    releaseDelayMs: o.releaseDelayMs,
    busyLine: () => busyLine,
    waitLine: () => waitLine,
    waitLineEveryMs: o.waitLineEveryMs,
    logger: log,
  });
  const rooms = new RoomDirectory(redis, { prefix: o.prefix, instance: id, address: j.address, ttlMs: o.leaseMs });
  const registry = new InstanceRegistry(redis, o.prefix);
  const loop = monitorEventLoopDelay({ resolution: 20 });
  loop.enable();
  let loopDelayMs = 0;
  let started = false;
  let stopped = false;
  const startedAt = new Date().toISOString();

  // ioredis says 'ready' only while connected (it is 'reconnecting' or 'connecting' while Redis is gone).
  const load = (): InstanceLoad => ({ ...j.load(), draining: j.load().draining || stopped, waiting: admission.waiting, loopDelayMs, redisDown: down || redis.status !== 'ready' });
  const record = async (): Promise<InstanceRecord> => {
    const l = load();
    return {
      id,
      address: j.address,
      ...l,
      slots: { key, used: await semaphore.used(), limit: o.keySessions, held: semaphore.leases * o.sessionsPerCall },
      startedAt,
      updatedAt: new Date().toISOString(),
    };
  };
  const beat = async () => {
    if (started) loopDelayMs = Math.round(loop.percentile(99) / 1e6);
    loop.reset();
    await semaphore.renew();
    await rooms.renew();
    await registry.publish(await record(), o.leaseMs);
  };
  await beat();
  /** The heartbeat in progress: `leave()` waits for it, or its publish would put the instance back. */
  let beating: Promise<void> | undefined;
  const heartbeat = setInterval(() => {
    if (beating) return;
    beating = beat()
      .catch((err: Error) => log.warn({ err: err.message }, 'cluster heartbeat failed; retrying at the next one'))
      .finally(() => (beating = undefined));
  }, o.heartbeatMs);
  heartbeat.unref();

  return {
    id,
    options: o,
    admission,
    rooms,
    semaphore,
    health() {
      const l = load();
      const r = readiness(l, o.maxLoopDelayMs);
      return { ready: r.ready, body: { status: r.ready ? 'ok' : r.reason, instance: id, activeCalls: l.calls, maxCalls: l.maxCalls, waiting: l.waiting, loopDelayMs: l.loopDelayMs } };
    },
    startupFinished() {
      started = true;
      loop.reset();
    },
    async prepareBusyLine(synthesize) {
      // The synthesis is one more session of the key: it takes a slot like a call would, so a
      // restarting instance never pushes a full cluster over the limit.
      let slot: Lease | undefined;
      while (!(slot = await semaphore.tryAcquire(1))) await new Promise((r) => setTimeout(r, o.pollMs));
      try {
        busyLine = await synthesize(o.busyLine);
        // Without it a wait is silent, as before: no reason to refuse to start.
        if (o.waitLine) waitLine = await synthesize(o.waitLine).catch((err: Error) => (log.warn({ err: err.message }, 'the wait line could not be rendered; waiting callers hear silence'), undefined));
      } finally {
        await slot.release();
      }
    },
    async stopTaking() {
      stopped = true;
      admission.close();
      await registry.publish(await record(), o.leaseMs).catch(() => {});
    },
    async leave() {
      stopped = true;
      admission.close();
      clearInterval(heartbeat);
      // A beat that started before the interval was cleared republishes the record when it ends
      // (a starved worker's drain left it in the registry for a lease): let it end first.
      await beating;
      loop.disable();
      await semaphore.releaseAll().catch(() => {});
      await rooms.releaseAll().catch(() => {});
      await registry.remove(id).catch(() => {});
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

import { ClusterLiveCalls } from '../observability/live-cluster.ts';
import { LiveCalls, type LiveCall } from '../observability/live-calls.ts';
import { liveCallsRoutes } from '../observability/live-routes.ts';
import type { ServerPlugin } from '../server/types.ts';
import type { Logger } from '../session/logger.ts';

/** The live calls view as `hiwar serve` mounts it: this process's calls, or the cluster's once it has joined. */
export interface ServeLive {
  readonly calls: LiveCalls;
  /** `/calls/live` (mount it before the `/calls/:id` routes of outbound calls). */
  readonly plugin: ServerPlugin;
  /** The cluster joined: publish this instance's calls and show every instance's. */
  joined(redisUrl: string, prefix: string, instance: string): Promise<void>;
  /** Stops publishing (after the drain). */
  close(): Promise<void>;
}

/**
 * Builds the live calls view of `hiwar serve` (the secret is HIWAR_CALLS_SECRET, as for `/calls`).
 * `machine` (a worker of `--workers N`) gives every worker's calls when there is no cluster.
 */
export function serveLive(logger: Logger, machine?: (local: () => LiveCall[]) => () => Promise<LiveCall[]>): ServeLive {
  const calls = new LiveCalls();
  const ofMachine = machine?.(() => calls.list());
  let cluster: { live: ClusterLiveCalls; quit(): Promise<void> } | undefined;
  const plugin = liveCallsRoutes({
    calls: () => (cluster ? cluster.live.list() : ofMachine ? ofMachine() : calls.list()),
    scope: () => (cluster ? 'cluster' : 'instance'),
    logger,
  });
  return {
    calls,
    plugin,
    async joined(redisUrl, prefix, instance) {
      const { connectRedis } = await import('../cluster/redis.ts');
      const redis = connectRedis(redisUrl);
      redis.on('error', () => {}); // the cluster's own connection says when Redis is away
      const live = new ClusterLiveCalls(redis, { prefix, instance, local: calls });
      live.start();
      cluster = { live, quit: async () => void (await redis.quit().catch(() => redis.disconnect())) };
    },
    async close() {
      await cluster?.live.close();
      await cluster?.quit();
    },
  };
}

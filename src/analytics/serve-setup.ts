import type { SessionFactory } from '../server/calls.ts';
import type { ServiceClient } from '../service/client.ts';
import type { Logger } from '../session/logger.ts';
import { CallAnalytics, type JobSink } from './call-analytics.ts';
import { ANALYTICS_DEFAULTS, analyticsEnv } from './options.ts';
import { LocalFolderStore, type RecordingStore } from './store.ts';

/** Post-call analytics as `hiwar serve` mounts it. */
export interface ServeAnalytics {
  sessions(inner: SessionFactory): SessionFactory;
  onCallEnded: CallAnalytics['onCallEnded'];
  /** One line for the startup banner. */
  describe: string;
  /** Where recordings, call records and results are kept (the review pages read them). */
  store: RecordingStore;
  /** After the drain: hands over the last calls, then waits for in-process jobs. */
  close(): Promise<void>;
}

/**
 * With REDIS_URL, ended calls become BullMQ jobs for `hiwar worker`s; without it they are
 * analyzed in this process after the call. Mounted only when asked for (`--analytics`, or a
 * webhook URL in HIWAR_ANALYTICS_WEBHOOK_URL): recording calls is the operator's decision, made
 * by `hiwar serve`'s argument check, which also chose `recordingsDir` and found it writable.
 */
export async function serveAnalytics(o: {
  client: ServiceClient;
  logger: Logger;
  /** The recordings folder as the argument check chose it (`checkServeArgs`'s `recordingsDir`). */
  recordingsDir: string;
  env?: NodeJS.ProcessEnv;
}): Promise<ServeAnalytics> {
  const env = analyticsEnv(o.env);
  const store = new LocalFolderStore(o.recordingsDir);
  let sink: JobSink & { close(): Promise<void> };
  let describe: string;
  if (env.redisUrl) {
    const { AnalyticsQueue } = await import('./queue.ts');
    const queue = new AnalyticsQueue(env.redisUrl);
    sink = queue;
    describe = `analytics: recordings in ${store.root}, jobs on the Redis queue "${ANALYTICS_DEFAULTS.queueName}" for hiwar worker`;
  } else {
    const { InProcessAnalytics } = await import('./in-process.ts');
    const webhook = env.webhookUrl ? { url: env.webhookUrl, secret: env.webhookSecret } : undefined;
    sink = new InProcessAnalytics({ client: o.client, store, webhook, logger: o.logger });
    describe = `analytics: in this process (no REDIS_URL), recordings and results in ${store.root}${webhook ? `, summaries POSTed to ${new URL(webhook.url).origin}` : ''}`;
  }
  const analytics = new CallAnalytics({ store, sink, logger: o.logger });
  return {
    sessions: (inner) => analytics.sessions(inner),
    onCallEnded: analytics.onCallEnded,
    describe,
    store,
    close: async () => {
      await analytics.flush();
      await sink.close();
    },
  };
}

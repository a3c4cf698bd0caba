import { ANALYTICS_DEFAULTS, analyticsEnv, recordingsFolder } from '../analytics/options.ts';
import { CliError, ensureWritableFolder, numberOption, parseCommand, UsageError } from './args.ts';
import { onStop } from './stop.ts';

export const WORKER_USAGE = `Usage: hiwar worker [--redis URL] [--recordings DIR] [--webhook URL] [--concurrency 2]
                    [--lock-ms 30000] [--stalled-ms 30000] [--retry-parked]

Run post-call analytics jobs queued by hiwar serve --analytics: transcription with speakers,
sentiment, minutes and keywords through the service, then a signed summary POSTed to the
webhook. Any number of workers on any machines share the queue. See docs/analytics.md.

Options:
  --redis URL          the Redis the servers queue jobs on (default REDIS_URL)
  --recordings DIR     the recording store the servers write to, shared by every worker
                       (default recordings, or HIWAR_RECORDINGS_DIR)
  --webhook URL        where summaries go (default HIWAR_ANALYTICS_WEBHOOK_URL; signed with
                       HIWAR_ANALYTICS_SECRET); without one, summaries stay in the store
  --concurrency N      jobs at once in this worker (default 2)
  --lock-ms N          a job's lock; a dead worker's job is taken over after it (default 30000)
  --stalled-ms N       how often to look for jobs of dead workers (default 30000)
  --retry-parked       first put jobs parked on an empty wallet (402) back in line
  -h, --help           this text
`;

/** The Redis address without its password, for messages. */
function redisLabel(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.hostname}${u.port ? `:${u.port}` : ''}`;
  } catch {
    throw new UsageError(`--redis must be a redis:// URL`, WORKER_USAGE);
  }
}

/** `hiwar worker`: takes analytics jobs from the queue until SIGTERM/SIGINT. */
export async function workerCommand(args: string[]): Promise<number> {
  const values = parseCommand(
    args,
    {
      redis: { type: 'string' },
      recordings: { type: 'string' },
      webhook: { type: 'string' },
      concurrency: { type: 'string', default: String(ANALYTICS_DEFAULTS.concurrency) },
      'lock-ms': { type: 'string', default: String(ANALYTICS_DEFAULTS.lockDurationMs) },
      'stalled-ms': { type: 'string', default: String(ANALYTICS_DEFAULTS.stalledIntervalMs) },
      'retry-parked': { type: 'boolean', default: false },
    },
    WORKER_USAGE,
  );
  if (!values) return 0;
  const env = analyticsEnv();
  const redisUrl = values.redis ?? env.redisUrl;
  if (!redisUrl) throw new UsageError('no Redis: set REDIS_URL or pass --redis (without Redis, hiwar serve --analytics runs the analytics itself)', WORKER_USAGE);
  const where = redisLabel(redisUrl);
  const concurrency = numberOption('concurrency', values.concurrency!, 1, 1000, WORKER_USAGE, true);
  const lockDurationMs = numberOption('lock-ms', values['lock-ms']!, 1000, 3_600_000, WORKER_USAGE, true);
  const stalledIntervalMs = numberOption('stalled-ms', values['stalled-ms']!, 500, 3_600_000, WORKER_USAGE, true);
  const webhookUrl = values.webhook ?? env.webhookUrl;
  if (webhookUrl && !/^https?:\/\//.test(webhookUrl)) throw new UsageError(`--webhook must be an http(s) URL`, WORKER_USAGE);
  // The results are written there: said now, not at the first job.
  const recordings = recordingsFolder(values.recordings);
  await ensureWritableFolder(recordings.dir, recordings.named);
  const say = (m: string) => process.stdout.write(`${m}\n`);
  // The worker's modules only once the command line is known good: --help and a wrong option
  // answer without loading the service client, the sandbox and the store.
  const [{ LocalFolderStore }, { cliLogger }, { connectService }] = await Promise.all([
    import('../analytics/store.ts'),
    import('./log.ts'),
    import('./connect.ts'),
  ]);
  const logger = cliLogger('info');
  // A missing package is no "cannot reach Redis": both are named at once, before Redis is tried.
  const missing = (await import('../optional.ts')).missingPackages('Call analytics jobs (hiwar worker)', ['ioredis', 'bullmq'], 'docs/analytics.md');
  if (missing) throw new CliError(missing);
  // Before anything waits on Redis: BullMQ's worker would retry a refused connection for ever.
  const { probeRedis } = await import('../cluster/redis.ts');
  await probeRedis(redisUrl).catch((err: Error) => {
    throw new CliError(`cannot reach Redis at ${where}: ${err.message}`);
  });
  const service = await connectService((m) => say(`(${m})`));
  if (service.sandbox) say('(the embedded sandbox recognizes only what it voiced itself: point HIWAR_API_KEY/HIWAR_BASE_URL at the service the servers use)');
  const store = new LocalFolderStore(recordings.dir);
  const { AnalyticsWorker } = await import('../analytics/worker.ts');
  const opts = { concurrency, lockDurationMs, stalledIntervalMs };
  if (values['retry-parked']) {
    const { AnalyticsQueue } = await import('../analytics/queue.ts');
    const queue = new AnalyticsQueue(redisUrl, opts);
    const failed = await queue.queue.getFailed();
    const parked = failed.filter((j) => j.failedReason?.startsWith('parked:'));
    for (const j of parked) await j.retry('failed');
    await queue.close();
    say(`put ${parked.length} parked job(s) back in line`);
  }
  const worker = new AnalyticsWorker(
    redisUrl,
    { client: service.client, store, webhook: webhookUrl ? { url: webhookUrl, secret: env.webhookSecret } : undefined, logger },
    opts,
  );
  try {
    await worker.ready();
  } catch (err) {
    await worker.close(true).catch(() => {});
    throw new CliError(`cannot reach Redis at ${where}: ${(err as Error).message}`);
  }
  say(`hiwar worker: taking jobs from "${ANALYTICS_DEFAULTS.queueName}" at ${where} (concurrency ${concurrency}), recordings in ${store.root}`);
  say(webhookUrl ? `  summaries to ${new URL(webhookUrl).origin}${env.webhookSecret ? ', signed' : ' (unsigned: set HIWAR_ANALYTICS_SECRET)'}` : '  no webhook: summaries stay in the store');
  await new Promise<void>((resolveStop) => {
    const stop = (signal: string) => {
      say(`${signal}: finishing the jobs in hand`);
      void worker.close().then(async () => {
        await service.close();
        resolveStop();
      });
    };
    // SIGTERM, SIGINT, or the npm process that started it going away (stop.ts).
    onStop('worker', stop);
  });
  say('stopped; bye');
  return 0;
}

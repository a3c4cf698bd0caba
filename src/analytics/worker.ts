import type { Job, Worker } from 'bullmq';
import { requireOptional } from '../optional.ts';
import type { Redis } from 'ioredis';
import { backoffDelay } from '../service/retry.ts';
import { verdictOf } from './failures.ts';
import { parseJob } from './job.ts';
import { ANALYTICS_DEFAULTS, type AnalyticsOptions } from './options.ts';
import { BACKOFF_TYPE, redisConnection } from './queue.ts';
import { runAnalyticsJob, type RunnerDeps } from './runner.ts';

/** What a finished job returns (kept by BullMQ with the job). */
export interface JobResult {
  turns: number;
  summaryKey: string;
}

/** An error the backoff strategy reads a Retry-After from. */
type WithRetryAfter = Error & { retryAfterMs?: number };

/**
 * `hiwar worker`'s engine: takes analytics jobs from the queue and runs them. A 429/5xx is thrown
 * back to BullMQ, which retries after the project's backoff; a 402 or a bad job becomes an
 * UnrecoverableError, so the job lands among the failed ones with its reason instead of
 * retrying. A worker that dies mid-job stops renewing its lock: after `lockDurationMs` another
 * worker's stalled check puts the job back in line, and the stored step results keep it from
 * paying twice.
 */
export class AnalyticsWorker {
  readonly worker: Worker;
  private readonly connection: Redis;

  constructor(redisUrl: string, deps: Omit<RunnerDeps, 'signal'>, opts: AnalyticsOptions = {}) {
    const o = { ...ANALYTICS_DEFAULTS, ...opts };
    const { UnrecoverableError, Worker: BullWorker } = requireOptional<typeof import('bullmq')>('bullmq');
    this.connection = redisConnection(redisUrl);
    this.connection.on('error', () => {});
    const log = deps.logger;
    this.worker = new BullWorker(
      o.queueName,
      async (job: Job): Promise<JobResult> => {
        let data;
        try {
          data = parseJob(job.data);
        } catch (err) {
          throw new UnrecoverableError((err as Error).message);
        }
        try {
          const summary = await runAnalyticsJob(data, deps);
          return { turns: summary.turns.length, summaryKey: `results/${data.jobId}/summary.json` };
        } catch (err) {
          const v = verdictOf(err);
          log?.warn({ job: job.id, attempt: job.attemptsMade + 1, action: v.action, reason: v.reason }, 'analytics job failed');
          if (v.action !== 'retry') throw new UnrecoverableError(v.reason);
          const e: WithRetryAfter = new Error(v.reason);
          e.retryAfterMs = v.retryAfterMs;
          throw e;
        }
      },
      {
        connection: this.connection,
        concurrency: o.concurrency,
        lockDuration: o.lockDurationMs,
        stalledInterval: o.stalledIntervalMs,
        // A job whose worker died goes back in line twice; a third death fails it (a job that kills workers).
        maxStalledCount: 2,
        settings: {
          backoffStrategy: (attemptsMade: number, type?: string, err?: Error) =>
            type === BACKOFF_TYPE ? backoffDelay(Math.max(0, attemptsMade - 1), o.backoff, (err as WithRetryAfter | undefined)?.retryAfterMs) : 1000,
        },
      },
    );
    this.worker.on('error', (err) => log?.error({ err: err.message }, 'analytics worker error'));
  }

  /** Resolves once the worker is connected and taking jobs. */
  async ready(): Promise<void> {
    await this.worker.waitUntilReady();
  }

  /** Finishes the jobs in hand (or leaves them to others when `force`), then disconnects. */
  async close(force = false): Promise<void> {
    await this.worker.close(force);
    this.connection.disconnect();
  }
}

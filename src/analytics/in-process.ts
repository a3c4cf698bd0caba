import { backoffDelay, sleep } from '../service/retry.ts';
import { verdictOf } from './failures.ts';
import type { AnalyticsJob } from './job.ts';
import { ANALYTICS_DEFAULTS, type AnalyticsOptions } from './options.ts';
import { resultKey, runAnalyticsJob, type RunnerDeps } from './runner.ts';

/**
 * Analytics without Redis: the same job, run in the serving process after the call, with the
 * same retries, idempotence and parking as a worker. Jobs run one after another in the
 * background, so they never slow a call; `close()` waits for them (or stops them).
 */
export class InProcessAnalytics {
  private chain: Promise<void> = Promise.resolve();
  private readonly stop = new AbortController();
  private readonly o: Required<AnalyticsOptions>;

  constructor(
    private readonly deps: Omit<RunnerDeps, 'signal'>,
    opts: AnalyticsOptions = {},
  ) {
    this.o = { ...ANALYTICS_DEFAULTS, ...opts };
  }

  /** Queues the job; resolves at once. */
  async enqueue(job: AnalyticsJob): Promise<void> {
    this.chain = this.chain.then(async () => void (await this.run(job)));
  }

  /** Runs one job to its end: done, parked, or failed. Never throws. */
  async run(job: AnalyticsJob): Promise<'done' | 'parked' | 'failed'> {
    const log = this.deps.logger?.child({ job: job.jobId });
    for (let attempt = 0; ; attempt++) {
      try {
        await runAnalyticsJob(job, { ...this.deps, signal: this.stop.signal });
        return 'done';
      } catch (err) {
        const v = verdictOf(err);
        if (v.action === 'retry' && attempt + 1 < this.o.attempts && !this.stop.signal.aborted) {
          log?.warn({ attempt: attempt + 1, reason: v.reason }, 'analytics job will be retried');
          const wait = backoffDelay(attempt, this.o.backoff, v.retryAfterMs);
          if (await sleep(wait, this.stop.signal).then(() => false, () => true)) return 'failed';
          continue;
        }
        const state = v.action === 'park' ? 'parked' : 'failed';
        log?.error({ reason: v.reason }, `analytics job ${state}`);
        // Without a queue to hold the failed job, its reason is kept beside its results.
        await this.deps.store.put(resultKey(job.jobId, state), JSON.stringify({ reason: v.reason, at: new Date().toISOString() })).catch(() => {});
        return state;
      }
    }
  }

  /** Waits for queued jobs; with `abort`, stops retries and calls in flight first. */
  async close(abort = false): Promise<void> {
    if (abort) this.stop.abort(new Error('shutting down'));
    await this.chain;
  }
}

import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { requireOptional } from '../optional.ts';
import type { AnalyticsJob } from './job.ts';
import { ANALYTICS_DEFAULTS, type AnalyticsOptions } from './options.ts';

/** The backoff type name jobs carry; workers map it to the project's backoff policy. */
export const BACKOFF_TYPE = 'hiwar';

/**
 * Redis connections for BullMQ. A worker's blocking commands must wait as long as they need
 * (`maxRetriesPerRequest: null`); a producer's `add` gives up after some reconnects instead, so
 * a server whose Redis is gone logs the job it could not queue rather than holding it forever.
 */
export function redisConnection(url: string, role: 'worker' | 'producer' = 'worker'): Redis {
  const { Redis: Client } = requireOptional<typeof import('ioredis')>('ioredis');
  return new Client(url, { maxRetriesPerRequest: role === 'worker' ? null : 20 });
}

/**
 * The producer side, in `hiwar serve`: one BullMQ job per ended call. The job id is the call's,
 * so enqueuing the same call twice keeps one job.
 */
export class AnalyticsQueue {
  readonly queue: Queue;
  private readonly connection: Redis;
  private readonly o: Required<AnalyticsOptions>;

  constructor(redisUrl: string, opts: AnalyticsOptions = {}) {
    this.o = { ...ANALYTICS_DEFAULTS, ...opts };
    this.connection = redisConnection(redisUrl, 'producer');
    // ioredis reconnects by itself; an error event without a listener would end the process.
    this.connection.on('error', () => {});
    const { Queue: BullQueue } = requireOptional<typeof import('bullmq')>('bullmq');
    this.queue = new BullQueue(this.o.queueName, { connection: this.connection });
    this.queue.on('error', () => {});
  }

  /** Adds a job under its own id, so a call queued twice runs once. */
  async enqueue(job: AnalyticsJob): Promise<void> {
    await this.queue.add('call', job, {
      jobId: job.jobId,
      attempts: this.o.attempts,
      backoff: { type: BACKOFF_TYPE },
      // Finished jobs fall away after a week; failed (parked) ones stay until a person acts.
      removeOnComplete: { age: 7 * 24 * 3600 },
      removeOnFail: false,
    });
  }

  /** Closes the queue and its Redis connection. */
  async close(): Promise<void> {
    await this.queue.close();
    this.connection.disconnect();
  }
}

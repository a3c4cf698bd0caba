import type { Job, Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { redisConnection } from '../analytics/queue.ts';
import type { RedisSemaphore } from '../cluster/semaphore.ts';
import { requireOptional } from '../optional.ts';
import type { Logger } from '../session/logger.ts';
import { newMeta, type CampaignSpec } from './in-process.ts';
import { RedisCampaignStore } from './redis-store.ts';
import type { ResultSink } from './results.ts';
import { CALL_SLOTS_DEFAULTS, CallSlots, SlotKeeper } from './slots.ts';
import { runStep, type CampaignGate } from './step.ts';
import type { CampaignMeta } from './store.ts';
import type { Dialer } from './types.ts';

/** Options of the campaign queue, shared by the producer (`hiwar campaign start`) and the workers. */
export const CAMPAIGN_QUEUE_DEFAULTS = {
  queueName: 'hiwar-campaigns',
  /** Prefix of the campaign keys in Redis (the cluster's). */
  prefix: 'hiwar',
  /** Jobs one worker holds at once (the campaign's own concurrency bounds the calls). */
  workerConcurrency: 20,
  /** A worker's hold on a job; a dead worker's job goes back in line after it. */
  lockDurationMs: 30_000,
  stalledIntervalMs: 30_000,
  /**
   * A campaign slot's lease (`CALL_SLOTS_DEFAULTS.leaseMs`): the slot of a call nobody keeps
   * (nobody knows it is live) comes back after it. Keep it longer than `lockDurationMs +
   * stalledIntervalMs`, so the worker recovering a dead worker's call finds its slot held.
   */
  leaseMs: CALL_SLOTS_DEFAULTS.leaseMs,
  /** Real ms at least between two looks of a job waiting for a free slot or a resumed campaign. */
  slotPollMs: 1_000,
} as const;

/** The options of both sides. */
export type CampaignQueueOptions = Partial<{ -readonly [K in keyof typeof CAMPAIGN_QUEUE_DEFAULTS]: (typeof CAMPAIGN_QUEUE_DEFAULTS)[K] extends string ? string : number }>;

interface JobData {
  campaignId: string;
  index: number;
}

/** A job's id: one per contact, so enqueuing a campaign twice adds nothing. */
export const jobIdOf = (campaignId: string, index: number) => `${campaignId}-${index}`;

/** The producer: stores a campaign in Redis and enqueues one job per contact. */
export class CampaignQueue {
  readonly queue: Queue;
  readonly store: RedisCampaignStore;
  private readonly connection: Redis;

  constructor(redisUrl: string, o: CampaignQueueOptions = {}) {
    const opts = { ...CAMPAIGN_QUEUE_DEFAULTS, ...o };
    this.connection = redisConnection(redisUrl, 'producer');
    this.connection.on('error', () => {});
    this.store = new RedisCampaignStore(this.connection, opts.prefix);
    const { Queue: BullQueue } = requireOptional<typeof import('bullmq')>('bullmq');
    this.queue = new BullQueue(opts.queueName, { connection: this.connection });
    this.queue.on('error', () => {});
  }

  /** Stores the campaign and enqueues its contacts; resolves with its meta. */
  async start(spec: CampaignSpec, now = Date.now()): Promise<CampaignMeta> {
    const meta = newMeta(spec, new Date(now).toISOString());
    await this.store.create(meta, spec.contacts, spec.doNotCall);
    const jobs = spec.contacts.map((_, index) => ({ name: 'contact', data: { campaignId: meta.id, index } satisfies JobData, opts: { jobId: jobIdOf(meta.id, index), removeOnComplete: { age: 7 * 24 * 3600 }, removeOnFail: false } }));
    for (let i = 0; i < jobs.length; i += 500) await this.queue.addBulk(jobs.slice(i, i + 500));
    return meta;
  }

  /** Runs the campaign's delayed jobs now (after resume or cancel, so they act at once). */
  async wake(id: string): Promise<void> {
    const m = await this.store.meta(id);
    for (let index = 0; m && index < m.total; index++) {
      const job = await this.queue.getJob(jobIdOf(id, index));
      if (job && (await job.isDelayed())) await job.promote().catch(() => {});
    }
  }

  /** Closes the queue's connection (jobs stay in Redis). */
  async close(): Promise<void> {
    await this.queue.close();
    this.connection.disconnect();
  }
}

/**
 * The campaign's concurrency across every worker: a slot per call, named by its dial id
 * (`CallSlots`). This worker keeps the slot of each call it places, or recovers, until the call's
 * outcome is known; the instances taking the call's callbacks and media keep it too, so a worker
 * that dies does not free the slot of a call still live.
 */
export function slotGate(keeper: SlotKeeper): CampaignGate {
  return {
    async tryAcquire(_id, concurrency, dialId) {
      const took = await keeper.slots.take(dialId, concurrency);
      if (took === 'full') return undefined;
      keeper.keep(dialId, 'placed');
      // Held already: by a worker that died between taking it and claiming the dial, or by the dial's live call (the claim then fails): not ours to free.
      return async () => (took === 'taken' ? keeper.free(dialId) : keeper.letGo(dialId, 'placed'));
    },
    async hold(dialId) {
      await keeper.slots.reclaim(dialId);
      keeper.keep(dialId, 'recovered');
      return () => keeper.free(dialId);
    },
  };
}

/**
 * The service key's budget: a call is placed only while the cluster's semaphore has room for one
 * more call. The call's own session takes its slots when its media arrives (admission), so the
 * campaign checks and does not hold them.
 */
export function budgetGate(semaphore: RedisSemaphore, sessionsPerCall: number): CampaignGate {
  return { tryAcquire: async () => ((await semaphore.used()) + sessionsPerCall <= semaphore.limit ? async () => {} : undefined) };
}

/** What a worker runs on. */
export interface CampaignWorkerDeps {
  dialer: Dialer;
  /** The campaigns' clock: ms on it, and how many of them pass per real ms. @default real time */
  clock?: {
    /** The campaign clock's time, in ms. */
    now(): number;
    readonly speed: number;
  };
  sinks?: ResultSink[];
  /** Further gates (the service key's budget: `budgetGate`). */
  gates?: CampaignGate[];
  logger?: Logger;
  /** Names this worker in its logs. */
  holder?: string;
}

/**
 * A BullMQ worker for campaigns, on any instance: takes a contact's job, runs its step, and puts
 * the job back as a delayed job until its next step is due (a retry, the window's next opening,
 * a free slot, a resumed campaign). A worker that dies mid-call loses its job's lock: another
 * worker picks it up, finds the attempt claimed without an outcome and resolves it, never dialling it again.
 */
export class CampaignWorker {
  readonly worker: Worker;
  readonly store: RedisCampaignStore;
  private readonly connection: Redis;
  private readonly keeper: SlotKeeper;

  constructor(redisUrl: string, deps: CampaignWorkerDeps, o: CampaignQueueOptions = {}) {
    const opts = { ...CAMPAIGN_QUEUE_DEFAULTS, ...o };
    const { DelayedError, Worker: BullWorker } = requireOptional<typeof import('bullmq')>('bullmq');
    this.connection = redisConnection(redisUrl);
    this.connection.on('error', () => {});
    this.store = new RedisCampaignStore(this.connection, opts.prefix);
    const clock = deps.clock ?? { now: () => Date.now(), speed: 1 };
    this.keeper = new SlotKeeper(new CallSlots(this.connection, { prefix: opts.prefix, leaseMs: opts.leaseMs }), { onError: (err) => deps.logger?.warn({ worker: deps.holder ?? `worker-${process.pid}`, err: err.message }, 'campaign: slot leases not renewed') });
    const gate = slotGate(this.keeper);
    if (opts.leaseMs <= opts.lockDurationMs + opts.stalledIntervalMs) deps.logger?.warn({ leaseMs: opts.leaseMs, lockDurationMs: opts.lockDurationMs, stalledIntervalMs: opts.stalledIntervalMs }, 'campaign: a slot lease shorter than a dead worker\'s job takes to come back lets a dead worker\'s call lose its slot before it is recovered');
    const step = { store: this.store, dialer: deps.dialer, now: () => clock.now(), gates: [gate, ...(deps.gates ?? [])], sinks: deps.sinks, logger: deps.logger };
    this.worker = new BullWorker(
      opts.queueName,
      async (job: Job<JobData>, token?: string) => {
        const { campaignId, index } = job.data;
        const r = await runStep(step, campaignId, index);
        if (r.next === 'done') {
          await this.store.finished(campaignId, index);
          return;
        }
        // Campaign-clock delay to a real time for Redis's delayed set; a job polling for a slot
        // never looks again sooner than slotPollMs, however fast the clock runs.
        const real = Math.max(0, (r.at - clock.now()) / clock.speed);
        await job.moveToDelayed(Date.now() + (r.why === 'poll' ? Math.max(real, opts.slotPollMs) : real), token);
        throw new DelayedError();
      },
      { connection: this.connection, concurrency: opts.workerConcurrency, lockDuration: opts.lockDurationMs, stalledInterval: opts.stalledIntervalMs, maxStalledCount: 10 },
    );
    this.worker.on('error', (err) => deps.logger?.error({ err: err.message }, 'campaign worker error'));
  }

  /** Resolves once the worker is connected and taking jobs. */
  async ready(): Promise<void> {
    await this.worker.waitUntilReady();
  }

  /** Finishes the calls in hand (or leaves them when `force`), then disconnects. */
  async close(force = false): Promise<void> {
    this.keeper.stop();
    await this.worker.close(force);
    this.connection.disconnect();
  }
}

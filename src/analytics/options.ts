import type { BackoffPolicy } from '../service/retry.ts';

/** Options of post-call analytics, on the serve side and in `hiwar worker`. */
export interface AnalyticsOptions {
  /** BullMQ queue name shared by `hiwar serve` and its workers. @default 'hiwar-analytics' */
  queueName?: string;
  /** Runs of a job before it is failed for good (429/5xx/network only). @default 8 */
  attempts?: number;
  /** Delay between runs: full-jitter exponential, never under a Retry-After. @default { baseMs: 2000, capMs: 300000 } */
  backoff?: BackoffPolicy;
  /** Jobs one worker runs at once. @default 2 */
  concurrency?: number;
  /**
   * How long a worker's hold on a job lasts without renewal; a worker that dies loses the job to
   * another after this (and the stalled check). @default 30000
   */
  lockDurationMs?: number;
  /** How often workers look for jobs whose worker died. @default 30000 */
  stalledIntervalMs?: number;
  /** Folder of the local recording store. @default 'recordings' */
  recordingsDir?: string;
}

/** Defaults of the analytics options (queue, attempts and backoff, worker concurrency and locks, recordings folder), in one place. */
export const ANALYTICS_DEFAULTS: Required<AnalyticsOptions> = {
  queueName: 'hiwar-analytics',
  attempts: 8,
  backoff: { baseMs: 2000, capMs: 300_000 },
  concurrency: 2,
  lockDurationMs: 30_000,
  stalledIntervalMs: 30_000,
  recordingsDir: 'recordings',
};

/** Environment variables both `hiwar serve` and `hiwar worker` read. */
export function analyticsEnv(env: NodeJS.ProcessEnv = process.env) {
  return {
    redisUrl: env.REDIS_URL || undefined,
    webhookUrl: env.HIWAR_ANALYTICS_WEBHOOK_URL || undefined,
    webhookSecret: env.HIWAR_ANALYTICS_SECRET || undefined,
    recordingsDir: env.HIWAR_RECORDINGS_DIR || undefined,
  };
}

/**
 * The recordings folder and what chose it, as its errors name it: `--recordings`, else
 * HIWAR_RECORDINGS_DIR, else the default.
 */
export function recordingsFolder(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): { dir: string; named: string } {
  if (flag !== undefined) return { dir: flag, named: `--recordings ${flag}` };
  const fromEnv = analyticsEnv(env).recordingsDir;
  if (fromEnv) return { dir: fromEnv, named: `HIWAR_RECORDINGS_DIR ${fromEnv}` };
  const dir = ANALYTICS_DEFAULTS.recordingsDir;
  return { dir, named: `the recordings folder ${dir} (the default; choose another with --recordings DIR)` };
}

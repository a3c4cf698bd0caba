import { availableParallelism } from 'node:os';
import type { ms } from './mediasoup.ts';
import { requireMediasoup } from './mediasoup.ts';

export interface WorkerPoolOptions {
  /** Worker processes; each is one single-threaded media engine. @default one per core */
  workers?: number;
  /** UDP/TCP port range for ICE. @default 40000..49999 */
  rtcMinPort?: number;
  rtcMaxPort?: number;
  /** mediasoup's own log level. @default 'warn' */
  logLevel?: 'debug' | 'warn' | 'error' | 'none';
}

export const WORKER_POOL_DEFAULTS = { rtcMinPort: 40_000, rtcMaxPort: 49_999, logLevel: 'warn' } as const;

/**
 * The mediasoup workers of this process. A room's router goes to the worker carrying the fewest
 * routers. A worker that dies takes its rooms with it (they are told, through `onDied`), is
 * replaced, and the other workers' calls go on.
 */
export class WorkerPool {
  private readonly workers: ms.Worker[] = [];
  private readonly load = new Map<ms.Worker, number>();
  /** Routers not yet closed, whoever holds them. */
  readonly routers = new Set<ms.Router>();
  private closed = false;

  private constructor(
    private readonly settings: ms.WorkerSettings,
    private readonly onDied: (worker: ms.Worker, error: Error) => void,
  ) {}

  static async create(opts: WorkerPoolOptions = {}, onDied: (worker: ms.Worker, error: Error) => void = () => {}): Promise<WorkerPool> {
    const pool = new WorkerPool(
      {
        logLevel: opts.logLevel ?? WORKER_POOL_DEFAULTS.logLevel,
        rtcMinPort: opts.rtcMinPort ?? WORKER_POOL_DEFAULTS.rtcMinPort,
        rtcMaxPort: opts.rtcMaxPort ?? WORKER_POOL_DEFAULTS.rtcMaxPort,
      },
      onDied,
    );
    const n = Math.max(1, opts.workers ?? availableParallelism());
    try {
      for (let i = 0; i < n; i++) await pool.spawn();
    } catch (err) {
      pool.close();
      throw err;
    }
    return pool;
  }

  private async spawn(): Promise<ms.Worker> {
    const mediasoup = await requireMediasoup();
    const worker = await mediasoup.createWorker(this.settings);
    this.workers.push(worker);
    this.load.set(worker, 0);
    worker.on('died', (error) => {
      this.workers.splice(this.workers.indexOf(worker), 1);
      this.load.delete(worker);
      this.onDied(worker, error);
      if (!this.closed) void this.spawn().catch(() => {});
    });
    return worker;
  }

  get size(): number {
    return this.workers.length;
  }

  /** All live workers (for dumps and resource checks). */
  get all(): readonly ms.Worker[] {
    return this.workers;
  }

  /** A router on the least-loaded worker; its closing gives the slot back. */
  async createRouter(mediaCodecs: ms.RouterRtpCodecCapability[]): Promise<ms.Router> {
    const worker = [...this.workers].sort((a, b) => this.load.get(a)! - this.load.get(b)!)[0];
    if (!worker) throw new Error('no mediasoup worker is running');
    const router = await worker.createRouter({ mediaCodecs });
    this.load.set(worker, (this.load.get(worker) ?? 0) + 1);
    this.routers.add(router);
    router.observer.once('close', () => {
      this.routers.delete(router);
      if (this.load.has(worker)) this.load.set(worker, this.load.get(worker)! - 1);
    });
    return router;
  }

  close(): void {
    this.closed = true;
    for (const w of this.workers) w.close();
    this.workers.length = 0;
    this.load.clear();
  }
}

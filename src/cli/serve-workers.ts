/**
 * `hiwar serve --workers N|auto`: N processes behind the one port, each a full server. The
 * primary (this module's `serveWorkers`) forks them with node:cluster, which shares every
 * listening socket (HTTP with its WebSocket upgrades, the AudioSocket TCP port) and hands each
 * new connection to one worker in turn. The primary holds the machine's call count
 * (serve-machine.ts), restarts a worker that crashes (its calls end, no other's), and on SIGTERM
 * or SIGINT has every worker drain before it exits. Workers run `serveCommand` as usual, with the
 * pieces `workerSide()` gives them.
 */
import cluster, { type Worker } from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type { CallAdmission } from '../server/call-admission.ts';
import type { Logger } from '../session/logger.ts';
import { MemoryTokenLedger, type TokenLedger } from '../server/token-ledger.ts';
import { numberOption, UsageError } from './args.ts';
import { AggregatorRegistry, type Registry } from 'prom-client';
import type { LiveCall } from '../observability/live-calls.ts';
import { PARENT_GONE, watchParent } from './serve-preflight.ts';
import { isMachineMessage, MachineAdmission, MachineCalls, MachineDrain, MachineLedger, MachineLive, MachineMetrics, MachineRequests, workerLive, type MachineChannel, type MachineMessage } from './serve-machine.ts';
import { describeAwaited, type DrainCounts } from '../server/drain-wait.ts';
import type { CallRecords } from '../../transports/telephony/outbound/records.ts';
import { MachineCallRecords, PrimaryCallRecords } from './serve-machine-records.ts';
import { gcMode, gcThreads, loneWorkerNeeded, workerExecArgv } from './serve-gc.ts';

/** `hiwar serve`'s `--workers` flag (parsed with the rest of serve's options). */
export const WORKERS_FLAG = { workers: { type: 'string' } } as const;

/** The flag's line in `hiwar serve --help`. */
export const WORKERS_HELP = `  --workers N|auto       processes behind the one port, each a full server (auto: one per core);
                         --max-calls is then the machine's limit (default 1; docs/scaling.md)`;

/** How long a restarted worker waits at most after crashing again and again (a crash loop). */
const WORKER_DEFAULTS = {
  /** A worker that ran less than this before exiting counts as crashing at once. */
  quickExitMs: 10_000,
  /** First wait before restarting a worker that crashed quickly; doubled each time, up to `maxRestartDelayMs`. */
  restartDelayMs: 250,
  maxRestartDelayMs: 10_000,
  /** How long the primary's drain line waits for the workers to say what they wait for (a worker still starting says nothing). */
  drainReportMs: 2_000,
};

/** The number of worker processes `--workers` asks for (1 when absent). */
export function workerCount(raw: string | undefined, usage: string): number {
  if (raw === undefined) return 1;
  if (raw === 'auto') return availableParallelism();
  if (!/^\d+$/.test(raw.trim())) throw new UsageError(`--workers must be a whole number from 1 to 256 or "auto", got "${raw}"`, usage);
  return numberOption('workers', raw, 1, 256, usage, true);
}

/**
 * Runs the primary of a multi-worker `hiwar serve` when `--workers` asks for more than one
 * process (or `--gc single` for one process started without V8's flag: serve-gc.ts) and this is
 * not a worker already: resolves with the exit code once every worker has drained. Undefined:
 * this process serves by itself (one worker, or a worker of the primary).
 */
export async function serveWorkers(raw: string | undefined, usage: string, say: (m: string) => void, gcRaw?: string): Promise<number | undefined> {
  const n = workerCount(raw, usage);
  const gc = gcMode(gcRaw, usage);
  if (!cluster.isPrimary || (n <= 1 && !loneWorkerNeeded(gc, process.execArgv))) return undefined;
  // The collector's threads are a V8 flag, taken only at a process's start: the workers' command line.
  const threads = gcThreads(gc, n, availableParallelism());
  cluster.setupPrimary({ execArgv: workerExecArgv(process.execArgv, threads) });
  const calls = new MachineCalls();
  const ledger = new MemoryTokenLedger();
  // Without Redis, the outbound calls' records: a platform's callback may reach any worker.
  const records = new PrimaryCallRecords();
  // Sums the workers' registries when a worker's /metrics asks for the machine's figures.
  const metrics = new AggregatorRegistry();
  const liveCalls = new MachineLive();
  const drains = new MachineDrain();
  // The drain's line, said once the workers reported: the last line ('drained; bye') waits for it.
  let drainSaid = Promise.resolve();
  // A token one worker signs (a webhook's answer) is checked by whichever worker the media
  // connection reaches: every worker signs with the same key, random per start unless given.
  const shared = (v: string | undefined) => v || randomBytes(32).toString('base64url');
  const secrets = { HIWAR_MEDIA_SECRET: shared(process.env.HIWAR_MEDIA_SECRET), HIWAR_WEBRTC_TOKEN_KEY: shared(process.env.HIWAR_WEBRTC_TOKEN_KEY) };
  const indexOf = new Map<number, number>();
  const startedAt = new Map<number, number>();
  const failures = new Map<number, number>();
  const everReady = new Set<number>();
  let stopping = false;
  let failed = false;
  let unwatch = () => {};
  const live = () => Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w);
  const send = (w: Worker, m: MachineMessage) => {
    if (w.isConnected()) w.send(m, undefined, () => {});
  };
  const broadcast = () => {
    for (const w of live()) send(w, { hiwar: 'calls', calls: calls.calls });
  };
  const stopAll = (signal: NodeJS.Signals) => {
    stopping = true;
    for (const w of live()) w.process.kill(signal);
  };

  const fork = (index: number, restarted: boolean) => {
    const w = cluster.fork({ ...secrets, HIWAR_SERVE_WORKER: String(index), HIWAR_SERVE_WORKER_RESTARTED: restarted ? '1' : '' });
    indexOf.set(w.id, index);
    startedAt.set(w.id, Date.now());
    w.on('message', (m: unknown) => {
      if (!isMachineMessage(m)) return;
      if (m.hiwar === 'acquire') {
        const ok = calls.acquire(w.id, m.id, m.max);
        send(w, { hiwar: 'acquired', id: m.id, ok, calls: calls.calls });
        if (ok) broadcast();
      } else if (m.hiwar === 'spend') {
        void ledger.spend(m.key, m.ttlMs).then((ok) => send(w, { hiwar: 'spent', id: m.id, ok }));
      } else if (m.hiwar === 'check-spent') {
        void ledger.spent(m.key).then((spent) => send(w, { hiwar: 'was-spent', id: m.id, spent }));
      } else if (m.hiwar === 'records') {
        void records.answer(m, index).then(({ answer, changed }) => {
          send(w, answer);
          if (changed) for (const x of live()) if (x !== w) send(x, { hiwar: 'records-changed', callId: changed });
        });
      } else if (m.hiwar === 'release') {
        calls.release(w.id, m.id);
        broadcast();
      } else if (m.hiwar === 'metrics') {
        metrics.clusterMetrics().then(
          (text) => send(w, { hiwar: 'metrics-text', id: m.id, text }),
          (err: Error) => send(w, { hiwar: 'metrics-text', id: m.id, error: err.message }),
        );
      } else if (m.hiwar === 'live') {
        const askable = live().map((x) => ({ send: (q: MachineMessage) => x.isConnected() && x.send(q, undefined, () => {}) }));
        liveCalls.ask(m.id, askable, (list) => send(w, { hiwar: 'live-all', id: m.id, calls: list }));
      } else if (m.hiwar === 'live-calls') {
        liveCalls.answered(m.id, m.calls);
      } else if (m.hiwar === 'draining') {
        drains.report(w.id, m);
      } else if (m.hiwar === 'ready') {
        if (restarted) say(`  worker ${index} restarted (pid ${w.process.pid})`);
        everReady.add(index);
        if (!restarted && everReady.size === n) say(`  workers: ${n} process${n === 1 ? '' : 'es'} behind ${m.url} (${live().map((x) => `worker ${indexOf.get(x.id)} pid ${x.process.pid}`).sort().join(', ')}); --max-calls counts the machine's calls; ${threads === 'single' ? 'single-threaded' : 'parallel'} garbage collection`);
      }
    });
  };

  return new Promise<number>((resolve) => {
    cluster.on('exit', (w, code, signal) => {
      const index = indexOf.get(w.id) ?? 0;
      const freed = calls.releaseWorker(w.id);
      drains.done(w.id);
      broadcast();
      if (!stopping && !everReady.has(index)) {
        // A worker that never came up (a wrong option, a refused key) would fail again: stop, as one process would.
        failed = true;
        stopAll('SIGTERM');
      } else if (!stopping) {
        const quick = Date.now() - (startedAt.get(w.id) ?? 0) < WORKER_DEFAULTS.quickExitMs;
        const k = quick ? (failures.get(index) ?? 0) + 1 : 0;
        failures.set(index, k);
        const delay = quick ? Math.min(WORKER_DEFAULTS.maxRestartDelayMs, WORKER_DEFAULTS.restartDelayMs * 2 ** (k - 1)) : 0;
        say(`  worker ${index} (pid ${w.process.pid}) exited (${signal ?? `code ${code}`}) with ${freed} call${freed === 1 ? '' : 's'}; restarting it${delay ? ` in ${delay} ms` : ''}`);
        setTimeout(() => !stopping && fork(index, true), delay);
      }
      if (live().length === 0 && (stopping || failed)) {
        unwatch();
        void drainSaid.then(() => {
          if (!failed) say('drained; bye');
          resolve(failed ? 1 : 0);
        });
      }
    });
    const onSignal = (signal: string) => {
      if (stopping) return;
      const workers = live();
      const running = calls.calls;
      // Each worker says what it waits for besides its calls (placed calls ringing, answered calls' media).
      const reported = drains.expect(workers.map((w) => w.id), WORKER_DEFAULTS.drainReportMs);
      stopAll('SIGTERM');
      drainSaid = reported.then((c) => say(`${signal}: draining ${workers.length} workers (${running} calls running${describeAwaited(c, Date.now())}, no new calls)`));
    };
    process.on('SIGTERM', () => onSignal('SIGTERM'));
    // Ctrl-C reaches the workers as well (one process group); a second one ends everything at once.
    process.once('SIGINT', () => onSignal('SIGINT'));
    // Started by npm, whose killing leaves this process orphaned without a signal: the workers
    // follow this process (their channel closes), so this process follows npm.
    unwatch = watchParent(() => onSignal(PARENT_GONE));
    for (let i = 1; i <= n; i++) fork(i, false);
  });
}

/** Whether this process is a worker forked by `hiwar serve --workers N` (its primary checked the ports). */
export function isServeWorker(env: NodeJS.ProcessEnv = process.env): boolean {
  return cluster.isWorker && !!env.HIWAR_SERVE_WORKER;
}

/** What a worker of `--workers N` changes in `hiwar serve`. */
export interface WorkerSide {
  /** 1…N. */
  readonly index: number;
  /** Prints start-up lines in the first worker only (the primary speaks for the others). */
  say(m: string): void;
  /** The machine's limit before `inner` (the cluster's key budget with REDIS_URL). */
  admission(maxCalls: number, inner: CallAdmission | undefined, logger?: Pick<Logger, 'warn'>): CallAdmission;
  /** `/readyz`: not ready when the machine is full, with the worker and the machine's calls in the body. */
  health(inner: (() => { ready: boolean; body: Record<string, unknown> }) | undefined, activeCalls: () => number): () => { ready: boolean; body: Record<string, unknown> };
  /** The machine's ledger of spent tokens (held by the primary). */
  ledger(): TokenLedger & { where: string };
  /** The machine's outbound call records (held by the primary), for a machine without Redis. */
  callRecords(): CallRecords;
  /** `/metrics` with the machine's figures: this worker's `registry` summed with the others'. */
  metrics(registry: Registry): () => Promise<string>;
  /** `/calls/live` without Redis: the calls of every worker of the machine, each marked with its worker. */
  liveCalls(local: () => LiveCall[]): () => Promise<LiveCall[]>;
  /** Start-up is over (the banner printed): tells the primary; later lines are the primary's. */
  ready(url: string): void;
  /** Told to drain: tells the primary what this worker waits for besides its calls, for the machine's drain line. */
  draining(w: { calls: number } & DrainCounts): void;
  /** Drained: lets go of the primary (a worker's IPC channel would keep it running). */
  done(): void;
}

/** This process's role as a worker of `hiwar serve --workers N`; undefined when it is not one. */
export function workerSide(env: NodeJS.ProcessEnv = process.env): WorkerSide | undefined {
  if (!isServeWorker(env)) return undefined;
  const index = Number(env.HIWAR_SERVE_WORKER);
  // process.send without a callback turns a closed channel into an 'error' event on process (a
  // crash): a closed channel throws here instead, which the admission and the ledger handle.
  const channel: MachineChannel = {
    send: (m) => {
      if (!process.connected || !process.send) throw new Error('the primary process is gone');
      process.send(m, undefined, {}, () => {});
    },
    on: (event, listener) => process.on(event, listener),
  };
  const requests = new MachineRequests(channel);
  let speaking = index === 1 && !env.HIWAR_SERVE_WORKER_RESTARTED;
  let machine: MachineAdmission | undefined;
  // The primary gone (killed): this worker no longer gets connections; it drains and stops.
  process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'));
  return {
    index,
    say: (m) => {
      if (speaking) process.stdout.write(`${m}\n`);
    },
    admission: (maxCalls, inner, logger) => (machine = new MachineAdmission(channel, requests, maxCalls, inner, logger)),
    ledger: () => Object.assign(new MachineLedger(requests), { where: 'this machine (the primary process)' }),
    callRecords: () => new MachineCallRecords(requests, channel),
    health: (inner, activeCalls) => () => {
      const base = inner?.() ?? { ready: true, body: { status: 'ok', activeCalls: activeCalls() } };
      const full = machine?.full ?? false;
      const body = { ...base.body, worker: index, machineCalls: machine?.machineCalls ?? 0 };
      if (base.ready && full) return { ready: false, body: { ...body, status: 'full' } };
      return { ready: base.ready, body };
    },
    metrics: (registry) => {
      // prom-client answers the primary's requests with the registries set here (its listener
      // is added by the first AggregatorRegistry made in this process).
      AggregatorRegistry.setRegistries([registry]);
      new AggregatorRegistry();
      const machine = new MachineMetrics(requests, () => registry.metrics());
      return () => machine.text();
    },
    liveCalls: (local) => workerLive(channel, requests, index, local),
    ready: (url) => {
      speaking = false;
      channel.send({ hiwar: 'ready', url });
    },
    draining: (w) => {
      try {
        channel.send({ hiwar: 'draining', ...w });
      } catch {
        // The primary is gone: nobody says the line.
      }
    },
    done: () => cluster.worker?.disconnect(),
  };
}

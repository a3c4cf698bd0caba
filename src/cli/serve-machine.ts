/**
 * What the workers of `hiwar serve --workers N` share through the primary, over the cluster's IPC
 * channel (`MachineRequests` matches each question to its answer): the machine's call limit (the
 * primary holds the count, `MachineCalls`; a worker asks for a place before a call's session opens
 * anything, `MachineAdmission`; a worker that dies gives its places back at once), the ledger of
 * spent tokens, the outbound calls' records without Redis (serve-machine-records.ts), and the
 * machine-wide `/metrics` and `/calls/live`.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../session/logger.ts';
import type { AdmissionHooks, AdmissionLease, AdmitOptions, CallAdmission } from '../server/call-admission.ts';
import type { TokenLedger } from '../server/token-ledger.ts';
import type { Transport } from '../transport/types.ts';
import type { LiveCall } from '../observability/live-calls.ts';
import { sumCounts, type DrainCounts } from '../server/drain-wait.ts';
import type { RecordsOp } from './serve-machine-records.ts';

/** Messages between a worker and the primary (all carry `hiwar` so other IPC traffic is left alone). */
export type MachineMessage =
  | { hiwar: 'acquire'; id: string; max: number }
  | { hiwar: 'acquired'; id: string; ok: boolean; calls: number }
  | { hiwar: 'release'; id: string }
  | { hiwar: 'calls'; calls: number }
  | { hiwar: 'spend'; id: string; key: string; ttlMs: number }
  | { hiwar: 'spent'; id: string; ok: boolean }
  | { hiwar: 'check-spent'; id: string; key: string }
  | { hiwar: 'was-spent'; id: string; spent: boolean }
  | { hiwar: 'ready'; url: string }
  | { hiwar: 'metrics'; id: string }
  | { hiwar: 'live'; id: string }
  | { hiwar: 'live-ask'; id: string }
  | { hiwar: 'live-calls'; id: string; calls: LiveCall[] }
  | { hiwar: 'live-all'; id: string; calls: LiveCall[] }
  | { hiwar: 'metrics-text'; id: string; text?: string; error?: string }
  | ({ hiwar: 'draining'; calls: number } & DrainCounts)
  /** The machine's outbound call records (serve-machine-records.ts): a question, its answer, a change told to the other workers. */
  | ({ hiwar: 'records'; id: string } & RecordsOp)
  | { hiwar: 'records-done'; id: string; result?: unknown; error?: string }
  | { hiwar: 'records-changed'; callId: string };

/** Whether an IPC message is one of serve's own. */
export const isMachineMessage = (m: unknown): m is MachineMessage => typeof m === 'object' && m !== null && typeof (m as { hiwar?: unknown }).hiwar === 'string';

/** A worker's question to the primary, and the primary's answer, which carries the question's id. */
type Question = Extract<MachineMessage, { hiwar: 'acquire' | 'spend' | 'check-spent' | 'metrics' | 'live' | 'records' }>;
type Answer = Extract<MachineMessage, { hiwar: 'acquired' | 'spent' | 'was-spent' | 'metrics-text' | 'live-all' | 'records-done' }>;
const ANSWERS = new Set<string>(['acquired', 'spent', 'was-spent', 'metrics-text', 'live-all', 'records-done']);
type Without<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

/** A worker's questions to the primary over the IPC channel, each matched to its answer by id. */
export class MachineRequests {
  private readonly waiting = new Map<string, (m: Answer | undefined) => void>();

  constructor(private readonly channel: MachineChannel) {
    channel.on('message', (m) => {
      if (!isMachineMessage(m) || !ANSWERS.has(m.hiwar)) return;
      const a = m as Answer;
      this.waiting.get(a.id)?.(a);
      this.waiting.delete(a.id);
    });
  }

  /**
   * Asks `q` (given a new id) and resolves with the answer; undefined when `timeoutMs` passes
   * first. Throws when the channel is closed (the primary is gone).
   */
  async ask(q: Without<Question, 'id'>, timeoutMs?: number): Promise<Answer | undefined> {
    const id = randomUUID();
    let timer: NodeJS.Timeout | undefined;
    try {
      return await new Promise<Answer | undefined>((resolve, reject) => {
        this.waiting.set(id, resolve);
        if (timeoutMs !== undefined) timer = setTimeout(() => resolve(undefined), timeoutMs);
        try {
          this.channel.send({ ...q, id } as Question);
        } catch (err) {
          reject(err as Error);
        }
      });
    } finally {
      clearTimeout(timer);
      this.waiting.delete(id);
    }
  }
}

/** The primary's count of the machine's calls, by worker. Pure: the IPC is the caller's. */
export class MachineCalls {
  private readonly byWorker = new Map<number, Set<string>>();
  private total = 0;

  /** Calls running (or admitted and starting) on the machine now. */
  get calls(): number {
    return this.total;
  }

  /** Takes a place for call `id` of `worker` if fewer than `max` are taken; false otherwise. */
  acquire(worker: number, id: string, max: number): boolean {
    if (this.total >= max) return false;
    const held = this.byWorker.get(worker) ?? new Set<string>();
    this.byWorker.set(worker, held);
    if (!held.has(id)) {
      held.add(id);
      this.total++;
    }
    return true;
  }

  /** Gives call `id`'s place back (a second release of the same call is ignored). */
  release(worker: number, id: string): void {
    if (this.byWorker.get(worker)?.delete(id)) this.total--;
  }

  /** Gives back every place a worker held (it exited or crashed); returns how many. */
  releaseWorker(worker: number): number {
    const held = this.byWorker.get(worker);
    this.byWorker.delete(worker);
    this.total -= held?.size ?? 0;
    return held?.size ?? 0;
  }
}

/**
 * The machine's ledger of spent one-call tokens, in the primary: a media token minted by the
 * worker that answered a webhook is spent once on the machine, whichever worker its media
 * connection reaches (without REDIS_URL; with it, the ledger is Redis's).
 */
export class MachineLedger implements TokenLedger {
  constructor(private readonly requests: MachineRequests) {}

  async spend(key: string, ttlMs: number): Promise<boolean> {
    const a = await this.requests.ask({ hiwar: 'spend', key, ttlMs });
    return a?.hiwar === 'spent' && a.ok;
  }

  async spent(key: string): Promise<boolean> {
    const a = await this.requests.ask({ hiwar: 'check-spent', key });
    if (a?.hiwar !== 'was-spent') throw new Error('the primary process did not say whether the token was spent');
    return a.spent;
  }
}

/** What a worker needs of its IPC channel (`process` in a cluster worker). */
export interface MachineChannel {
  send(m: MachineMessage): void;
  on(event: 'message', listener: (m: unknown) => void): unknown;
}

/**
 * A worker's admission under the machine's limit: a place from the primary first (refused: the
 * caller is hung up at once, as a full server refuses), then the `inner` admission if any (the
 * cluster's key budget with REDIS_URL). The place is given back when the call ends.
 */
export class MachineAdmission implements CallAdmission {
  /** The machine's calls as the primary last said (for `/readyz`). */
  machineCalls = 0;

  constructor(
    private readonly channel: MachineChannel,
    private readonly requests: MachineRequests,
    private readonly maxCalls: number,
    private readonly inner?: CallAdmission,
    private readonly logger?: Pick<Logger, 'warn'>,
  ) {
    channel.on('message', (m) => {
      if (isMachineMessage(m) && (m.hiwar === 'calls' || m.hiwar === 'acquired')) this.machineCalls = m.calls;
    });
  }

  /** The machine has no free place for a new call. */
  get full(): boolean {
    return this.machineCalls >= this.maxCalls;
  }

  async admit(transport: Transport, hooks?: AdmissionHooks, o?: AdmitOptions): Promise<AdmissionLease | undefined> {
    // The primary gone (the worker is about to stop): no place can be given.
    const answer = await this.requests.ask({ hiwar: 'acquire', max: this.maxCalls }).catch(() => undefined);
    if (answer?.hiwar !== 'acquired' || !answer.ok) {
      // Said as one process says its own refusal (connection.ts): the operator's only trace of it but a counter.
      const { provider, callId } = transport.call;
      if (answer?.hiwar === 'acquired') this.logger?.warn({ provider, call: callId, reason: 'full', machineCalls: answer.calls, maxCalls: this.maxCalls }, 'call refused: the machine holds --max-calls calls');
      else this.logger?.warn({ provider, call: callId, reason: 'no primary' }, 'call refused: the primary process did not answer');
      await transport.hangup?.('full').catch(() => {});
      await transport.output.close().catch(() => {});
      return undefined;
    }
    const release = () => {
      try {
        this.channel.send({ hiwar: 'release', id: answer.id });
      } catch {
        // The primary is gone: it gave every place of this worker back when it noticed.
      }
    };
    let lease: AdmissionLease | undefined;
    try {
      lease = this.inner ? await this.inner.admit(transport, hooks, o) : { release: async () => {} };
    } catch (err) {
      release();
      throw err;
    }
    if (!lease) {
      release();
      return undefined;
    }
    const own = lease;
    return {
      release: async () => {
        try {
          await own.release();
        } finally {
          release();
        }
      },
    };
  }
}

/**
 * `/metrics` of a worker: the machine's figures, summed over every worker by the primary
 * (prom-client's cluster aggregation), so a scrape that reaches any worker sees the whole machine.
 * Falls back to this worker's own figures when the primary does not answer in time.
 */
export class MachineMetrics {
  constructor(
    private readonly requests: MachineRequests,
    private readonly own: () => Promise<string>,
    private readonly timeoutMs = 5_000,
  ) {}

  /** The machine's metrics in Prometheus' text format. */
  async text(): Promise<string> {
    let why = 'the primary did not answer in time';
    const answer = await this.requests.ask({ hiwar: 'metrics' }, this.timeoutMs).catch((err: Error) => void (why = err.message));
    if (answer?.hiwar === 'metrics-text') {
      if (answer.text !== undefined) return answer.text;
      why = answer.error ?? 'no answer';
    }
    return `# this worker's figures only: ${why}\n${await this.own()}`;
  }
}

/**
 * The primary's side of the live calls view: a worker's `/calls/live` asks for the machine's
 * calls; every worker is asked for its own and the lists go back together to the one that asked
 * (after `timeoutMs`, with the lists that came).
 */
export class MachineLive {
  private readonly asks = new Map<string, { reply: (calls: LiveCall[]) => void; calls: LiveCall[]; pending: number; timer: NodeJS.Timeout }>();

  constructor(private readonly timeoutMs = 2_000) {}

  /** A worker asked (`live`): asks each of `workers` and calls `reply` once all have answered. */
  ask(id: string, workers: { send(m: MachineMessage): boolean }[], reply: (calls: LiveCall[]) => void): void {
    const entry = { reply, calls: [] as LiveCall[], pending: 0, timer: setTimeout(() => this.finish(id), this.timeoutMs) };
    this.asks.set(id, entry);
    for (const w of workers) if (w.send({ hiwar: 'live-ask', id })) entry.pending++;
    if (entry.pending === 0) this.finish(id);
  }

  /** A worker's answer (`live-calls`). */
  answered(id: string, calls: LiveCall[]): void {
    const entry = this.asks.get(id);
    if (!entry) return;
    entry.calls.push(...calls);
    if (--entry.pending <= 0) this.finish(id);
  }

  private finish(id: string): void {
    const entry = this.asks.get(id);
    if (!entry) return;
    this.asks.delete(id);
    clearTimeout(entry.timer);
    entry.reply(entry.calls);
  }
}

/** A worker's side of the live calls view: answers the primary with its calls, asks for the machine's. */
export function workerLive(channel: MachineChannel, requests: MachineRequests, index: number, local: () => LiveCall[], timeoutMs = 3_000): () => Promise<LiveCall[]> {
  const own = () => local().map((c) => ({ ...c, instance: `worker ${index}` }));
  channel.on('message', (m) => {
    if (!isMachineMessage(m) || m.hiwar !== 'live-ask') return;
    try {
      channel.send({ hiwar: 'live-calls', id: m.id, calls: own() });
    } catch {
      // The primary is gone: nobody is waiting for the answer.
    }
  });
  return async () => {
    const answer = await requests.ask({ hiwar: 'live' }, timeoutMs).catch(() => undefined);
    return answer?.hiwar === 'live-all' ? answer.calls : own();
  };
}

/**
 * The primary's side of a drain: each worker, told to drain, reports what it waits for besides
 * its running calls (answered calls' media, placed calls ringing; `draining`), and the primary's
 * `SIGTERM: draining N workers (…)` line says it for the machine. `expect` resolves with the sum
 * once every worker asked has reported or exited, or after `timeoutMs` with the reports that came.
 */
export class MachineDrain {
  private readonly reports = new Map<number, DrainCounts>();
  private pending = new Set<number>();
  private settle: (() => void) | undefined;

  /** Waits for the reports of `workers` (node:cluster ids). */
  expect(workers: number[], timeoutMs: number): Promise<DrainCounts> {
    // A worker may have reported already (Ctrl-C reaches the workers too, before the primary's SIGTERM).
    this.pending = new Set(workers.filter((w) => !this.reports.has(w)));
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle?.(), timeoutMs);
      this.settle = () => {
        clearTimeout(timer);
        this.settle = undefined;
        resolve(sumCounts([...this.reports.values()]));
      };
      if (this.pending.size === 0) this.settle();
    });
  }

  /** A worker's report. */
  report(worker: number, counts: DrainCounts): void {
    const { media, mediaUntil, ringing, ringingUntil } = counts;
    this.reports.set(worker, { media, ringing, ...(mediaUntil !== undefined ? { mediaUntil } : {}), ...(ringingUntil !== undefined ? { ringingUntil } : {}) });
    this.done(worker);
  }

  /** A worker exited: no report will come from it. */
  done(worker: number): void {
    this.pending.delete(worker);
    if (this.pending.size === 0) this.settle?.();
  }
}

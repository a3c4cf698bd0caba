/**
 * The concurrent-call limit of one machine when `hiwar serve --workers N` runs several processes:
 * the primary holds the count (`MachineCalls`), each worker asks it for a place over the cluster's
 * IPC channel before a call's session opens anything (`MachineAdmission`). A worker that dies
 * gives its places back at once (the primary drops everything it held).
 */
import { randomUUID } from 'node:crypto';
import type { AdmissionLease, CallAdmission } from '../server/calls.ts';
import type { TokenLedger } from '../server/token-ledger.ts';
import type { Transport } from '../transport/types.ts';
import type { LiveCall } from '../observability/live-calls.ts';

/** Messages between a worker and the primary (all carry `hiwar` so other IPC traffic is left alone). */
export type MachineMessage =
  | { hiwar: 'acquire'; id: string; max: number }
  | { hiwar: 'acquired'; id: string; ok: boolean; calls: number }
  | { hiwar: 'release'; id: string }
  | { hiwar: 'calls'; calls: number }
  | { hiwar: 'spend'; id: string; key: string; ttlMs: number }
  | { hiwar: 'spent'; id: string; ok: boolean }
  | { hiwar: 'ready'; url: string }
  | { hiwar: 'metrics'; id: string }
  | { hiwar: 'live'; id: string }
  | { hiwar: 'live-ask'; id: string }
  | { hiwar: 'live-calls'; id: string; calls: LiveCall[] }
  | { hiwar: 'live-all'; id: string; calls: LiveCall[] }
  | { hiwar: 'metrics-text'; id: string; text?: string; error?: string };

/** Whether an IPC message is one of serve's own. */
export const isMachineMessage = (m: unknown): m is MachineMessage => typeof m === 'object' && m !== null && typeof (m as { hiwar?: unknown }).hiwar === 'string';

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
  private readonly waiting = new Map<string, (ok: boolean) => void>();

  constructor(private readonly channel: MachineChannel) {
    channel.on('message', (m) => {
      if (!isMachineMessage(m) || m.hiwar !== 'spent') return;
      this.waiting.get(m.id)?.(m.ok);
      this.waiting.delete(m.id);
    });
  }

  spend(key: string, ttlMs: number): Promise<boolean> {
    const id = randomUUID();
    return new Promise<boolean>((resolve, reject) => {
      this.waiting.set(id, resolve);
      try {
        this.channel.send({ hiwar: 'spend', id, key, ttlMs });
      } catch (err) {
        this.waiting.delete(id);
        reject(err as Error);
      }
    });
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
  private readonly waiting = new Map<string, (ok: boolean) => void>();
  /** The machine's calls as the primary last said (for `/readyz`). */
  machineCalls = 0;

  constructor(
    private readonly channel: MachineChannel,
    private readonly maxCalls: number,
    private readonly inner?: CallAdmission,
  ) {
    channel.on('message', (m) => {
      if (!isMachineMessage(m)) return;
      if (m.hiwar === 'calls') this.machineCalls = m.calls;
      if (m.hiwar === 'acquired') {
        this.machineCalls = m.calls;
        this.waiting.get(m.id)?.(m.ok);
        this.waiting.delete(m.id);
      }
    });
  }

  /** The machine has no free place for a new call. */
  get full(): boolean {
    return this.machineCalls >= this.maxCalls;
  }

  async admit(transport: Transport): Promise<AdmissionLease | undefined> {
    const id = randomUUID();
    const ok = await new Promise<boolean>((resolve) => {
      this.waiting.set(id, resolve);
      try {
        this.channel.send({ hiwar: 'acquire', id, max: this.maxCalls });
      } catch {
        // The primary is gone (the worker is about to stop): no place can be given.
        this.waiting.delete(id);
        resolve(false);
      }
    });
    if (!ok) {
      await transport.hangup?.('full').catch(() => {});
      await transport.output.close().catch(() => {});
      return undefined;
    }
    const release = () => {
      try {
        this.channel.send({ hiwar: 'release', id });
      } catch {
        // The primary is gone: it gave every place of this worker back when it noticed.
      }
    };
    let lease: AdmissionLease | undefined;
    try {
      lease = this.inner ? await this.inner.admit(transport) : { release: async () => {} };
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
  private readonly waiting = new Map<string, (m: { text?: string; error?: string }) => void>();

  constructor(
    private readonly channel: MachineChannel,
    private readonly own: () => Promise<string>,
    private readonly timeoutMs = 5_000,
  ) {
    channel.on('message', (m) => {
      if (!isMachineMessage(m) || m.hiwar !== 'metrics-text') return;
      this.waiting.get(m.id)?.(m);
      this.waiting.delete(m.id);
    });
  }

  /** The machine's metrics in Prometheus' text format. */
  async text(): Promise<string> {
    const id = randomUUID();
    let timer: NodeJS.Timeout | undefined;
    const answer = await new Promise<{ text?: string; error?: string }>((resolve) => {
      this.waiting.set(id, resolve);
      timer = setTimeout(() => resolve({ error: 'the primary did not answer in time' }), this.timeoutMs);
      try {
        this.channel.send({ hiwar: 'metrics', id });
      } catch (err) {
        resolve({ error: (err as Error).message });
      }
    });
    clearTimeout(timer);
    this.waiting.delete(id);
    if (answer.text !== undefined) return answer.text;
    return `# this worker's figures only: ${answer.error ?? 'no answer'}\n${await this.own()}`;
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
export function workerLive(channel: MachineChannel, index: number, local: () => LiveCall[], timeoutMs = 3_000): () => Promise<LiveCall[]> {
  const own = () => local().map((c) => ({ ...c, instance: `worker ${index}` }));
  const waiting = new Map<string, (calls: LiveCall[]) => void>();
  channel.on('message', (m) => {
    if (!isMachineMessage(m)) return;
    if (m.hiwar === 'live-ask') {
      try {
        channel.send({ hiwar: 'live-calls', id: m.id, calls: own() });
      } catch {
        // The primary is gone: nobody is waiting for the answer.
      }
    } else if (m.hiwar === 'live-all') {
      waiting.get(m.id)?.(m.calls);
      waiting.delete(m.id);
    }
  });
  return async () => {
    const id = randomUUID();
    let timer: NodeJS.Timeout | undefined;
    const calls = await new Promise<LiveCall[] | undefined>((resolve) => {
      waiting.set(id, resolve);
      timer = setTimeout(() => resolve(undefined), timeoutMs);
      try {
        channel.send({ hiwar: 'live', id });
      } catch {
        resolve(undefined);
      }
    });
    clearTimeout(timer);
    waiting.delete(id);
    return calls ?? own();
  };
}

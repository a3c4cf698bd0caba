/**
 * The outbound calls' records of a `hiwar serve --workers N` machine without Redis, kept by the
 * primary as it keeps the spent tokens: a platform's status or answer callback reaches whichever
 * worker its connection was handed to, and that worker reads and appends to the record the
 * placing worker made (each worker's own memory answered it `404 unknown call`). Each change is
 * told to the other workers (`watch`), so the one awaiting the call's outcome learns it at once,
 * as Redis's records tell a cluster. The primary also knows which worker placed each call: a
 * worker it respawns takes over the calls its predecessor placed and left unfinished (`orphans`),
 * so a drain still cancels them while they ring and an answered one whose media never comes is
 * still hung up. The records live as long as the primary: see docs/scaling.md for what a restart
 * of the whole server loses.
 */
import type { OutboundCall } from '../../transports/telephony/outbound/outbound-call.ts';
import type { CallChange, CallRecords } from '../../transports/telephony/outbound/records.ts';
import { isMachineMessage, type MachineChannel, type MachineMessage, type MachineRequests } from './serve-machine.ts';

/** One operation on the records, as a worker asks it of the primary. */
export type RecordsOp =
  | { op: 'create'; call: OutboundCall }
  | { op: 'append'; callId: string; change: CallChange }
  | { op: 'read'; callId: string }
  | { op: 'byReference'; reference: string }
  | { op: 'orphans' };

/** A worker's records: the primary's, over the IPC channel. */
export class MachineCallRecords implements CallRecords {
  private readonly listeners: ((id: string) => void)[] = [];

  constructor(
    private readonly requests: MachineRequests,
    channel: MachineChannel,
  ) {
    channel.on('message', (m) => {
      if (isMachineMessage(m) && m.hiwar === 'records-changed') for (const l of this.listeners) l(m.callId);
    });
  }

  async create(call: OutboundCall): Promise<void> {
    await this.ask({ op: 'create', call });
  }

  async append(id: string, change: CallChange): Promise<boolean> {
    return (await this.ask({ op: 'append', callId: id, change })) === true;
  }

  async read(id: string): Promise<{ call: OutboundCall; changes: CallChange[] } | undefined> {
    return (await this.ask({ op: 'read', callId: id })) as { call: OutboundCall; changes: CallChange[] } | undefined;
  }

  async byReference(reference: string): Promise<string | undefined> {
    return (await this.ask({ op: 'byReference', reference })) as string | undefined;
  }

  async orphans(): Promise<string[]> {
    return (await this.ask({ op: 'orphans' })) as string[];
  }

  async watch(listener: (id: string) => void): Promise<void> {
    this.listeners.push(listener);
  }

  /** Rejects when the primary is gone or did not answer: the callback route answers 503, and the platform retries. */
  private async ask(q: RecordsOp): Promise<unknown> {
    const a = await this.requests.ask({ hiwar: 'records', ...q }, MACHINE_RECORDS_DEFAULTS.answerMs);
    if (a?.hiwar !== 'records-done') throw new Error("the primary process did not answer for the calls' records");
    if (a.error !== undefined) throw new Error(a.error);
    return a.result;
  }
}

export const MACHINE_RECORDS_DEFAULTS = {
  /** How long a worker waits for the primary's answer (a callback then answers 503). */
  answerMs: 5_000,
} as const;

/**
 * The primary's side: the machine's records (in its memory, made on the first question) and the
 * answer to one worker's question, with the call a change was made to (to tell the other workers).
 */
export class PrimaryCallRecords {
  private records: Promise<typeof import('../../transports/telephony/outbound/records.ts')> | undefined;
  private store: CallRecords | undefined;
  /** Which worker (its index, 1…N, kept by the one respawned in its place) placed each call not known to be over. */
  private readonly placedBy = new Map<string, number>();

  /** Answers the question of the worker numbered `worker` (its index, which its respawn keeps). */
  async answer(q: Extract<MachineMessage, { hiwar: 'records' }>, worker: number): Promise<{ answer: MachineMessage; changed?: string }> {
    this.records ??= import('../../transports/telephony/outbound/records.ts');
    const m = await this.records;
    const records = (this.store ??= new m.MemoryCallRecords());
    const done = (result: unknown, changed?: string) => ({ answer: { hiwar: 'records-done' as const, id: q.id, result }, ...(changed ? { changed } : {}) });
    try {
      if (q.op === 'create') {
        await records.create(q.call);
        this.placedBy.set(q.call.id, worker);
        // Bounded as the records are: the oldest placed go first.
        if (this.placedBy.size > m.CALL_RECORDS_DEFAULTS.maxCalls) this.placedBy.delete(this.placedBy.keys().next().value!);
        return done(undefined, q.call.id);
      }
      if (q.op === 'orphans') {
        const left: string[] = [];
        for (const [id, by] of this.placedBy) {
          if (by !== worker) continue;
          const r = await records.read(id);
          if (r && !m.fold(r.call, r.changes).outcome) left.push(id);
          else this.placedBy.delete(id);
        }
        return done(left);
      }
      if (q.op === 'append') {
        const ok = await records.append(q.callId, q.change);
        return done(ok, ok ? q.callId : undefined);
      }
      if (q.op === 'read') return done(await records.read(q.callId));
      return done(await records.byReference(q.reference));
    } catch (err) {
      return { answer: { hiwar: 'records-done', id: q.id, error: (err as Error).message } };
    }
  }
}

/**
 * The outbound calls' records of a `hiwar serve --workers N` machine without Redis, kept by the
 * primary as it keeps the spent tokens: a platform's status or answer callback reaches whichever
 * worker its connection was handed to, and that worker reads and appends to the record the
 * placing worker made (each worker's own memory answered it `404 unknown call`). Each change is
 * told to the other workers (`watch`), so the one awaiting the call's outcome learns it at once,
 * as Redis's records tell a cluster.
 */
import type { OutboundCall } from '../../transports/telephony/outbound/outbound-call.ts';
import type { CallChange, CallRecords } from '../../transports/telephony/outbound/records.ts';
import { isMachineMessage, type MachineChannel, type MachineMessage, type MachineRequests } from './serve-machine.ts';

/** One operation on the records, as a worker asks it of the primary. */
export type RecordsOp =
  | { op: 'create'; call: OutboundCall }
  | { op: 'append'; callId: string; change: CallChange }
  | { op: 'read'; callId: string }
  | { op: 'byReference'; reference: string };

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
  private records: Promise<CallRecords> | undefined;

  async answer(q: Extract<MachineMessage, { hiwar: 'records' }>): Promise<{ answer: MachineMessage; changed?: string }> {
    this.records ??= import('../../transports/telephony/outbound/records.ts').then((m) => new m.MemoryCallRecords());
    const records = await this.records;
    const done = (result: unknown, changed?: string) => ({ answer: { hiwar: 'records-done' as const, id: q.id, result }, ...(changed ? { changed } : {}) });
    try {
      if (q.op === 'create') return (await records.create(q.call), done(undefined, q.call.id));
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

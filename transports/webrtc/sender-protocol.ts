/**
 * Messages between the main thread and an agent sender thread (`sender-thread.ts` on the main
 * side, `sender-worker.ts` in the thread). Types only, and the layout of the per-tick records.
 */
import type { AgentOutputOptions } from './agent-output.ts';
import type { PacketClockOptions } from './packet-clock.ts';

/** What the thread is made with (its `workerData`). */
export interface SenderThreadData {
  clock: PacketClockOptions;
  /** URL of a module loaded in the thread before any call: `attach(clock)` returns its request handler (the density bench's tick trace). */
  observer?: string;
}

export type ToSender =
  /** A call's output: its packets go to the mediasoup PlainTransport at host:port over UDP. */
  | { t: 'open'; id: number; host: string; port: number; opts: AgentOutputOptions & { ssrc: number } }
  /** PCM at the output's rate; its buffer is transferred, not copied. */
  | { t: 'write'; id: number; samples: Int16Array }
  /** Barge-in: drop everything queued now; replies with the call's record. */
  | { t: 'clear'; id: number; req: number }
  | { t: 'close'; id: number }
  /** Ends the thread once its calls are gone (the pool closing). */
  | { t: 'shutdown' }
  /** Tests: the thread fails as on an uncaught exception. */
  | { t: 'crash' }
  /** A request for the observer module; replies with what it returns. */
  | { t: 'observe'; req: number; msg: unknown };

export type FromSender =
  /** After each tick's sends: one record per call whose playout changed (`RECORD_FIELDS` numbers each). */
  | { t: 'tick'; records: Float64Array }
  | { t: 'reply'; req: number; records?: Float64Array; value?: unknown; error?: string };

/** Fields of one call's record, in order. */
export const RECORD = {
  id: 0,
  /** Seconds sent on the clock (the played position). */
  sent: 1,
  /** Seconds queued in the thread (the frame encoded ahead included). */
  queued: 2,
  /** Samples the thread has received by `write`, dropped ones included. */
  received: 3,
  packets: 4,
  latePackets: 5,
  /** The latest a packet left past its due time since the call's previous record, ms. */
  maxLateMs: 6,
  dropped: 7,
  talkspurts: 8,
} as const;
export const RECORD_FIELDS = 9;

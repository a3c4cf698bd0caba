import type { Observable } from '../../src/rx.ts';
import { Fanout } from '../../src/fanout.ts';
import type { AudioFrame } from '../../src/audio/frame.ts';
import { PlayoutMarks } from '../../src/transport/playout-marks.ts';
import type { PlaybackUpdate, TransportOutput } from '../../src/transport/types.ts';
import type { AgentOutputStats, OpusInputRate } from './agent-output.ts';
import { RECORD } from './sender-protocol.ts';

/** What a `ThreadedOutput` needs from its sender thread (`SenderThread`). */
export interface SenderLink {
  write(samples: Int16Array): void;
  /** Drops the call's queue in the thread; resolves with its record once dropped (undefined if the thread is gone). */
  clear(): Promise<Float64Array | undefined>;
  close(): void;
}

/**
 * The agent's voice, on the main thread's side: a `TransportOutput` whose packets are encoded and
 * sent on the clock of a sender thread (`sender-worker.ts`). `write` hands the PCM over by
 * transfer; the thread reports after each tick what every call has sent, and that is the played
 * position (no WebRTC peer acknowledges audio). `interrupt` drops the thread's queue and resolves
 * with the position the thread had sent when it dropped it, so it is exact.
 */
export class ThreadedOutput implements TransportOutput {
  private readonly playbackSubject = new Fanout<PlaybackUpdate>();
  readonly playback$: Observable<PlaybackUpdate> = this.playbackSubject.observable;
  /** Counters reported by the thread; `maxLateMs` is the worst since it was last set here (a bench may reset it). */
  readonly stats: AgentOutputStats = { packets: 0, latePackets: 0, maxLateMs: 0, dropped: 0, talkspurts: 0 };
  private link: SenderLink | undefined;
  private writtenSamples = 0;
  private received = 0;
  private sent = 0;
  private threadQueued = 0;
  private readonly marks = new PlayoutMarks(1e-6);
  private closed = false;
  private failure: Error | undefined;
  private readonly failureListeners: ((err: Error) => void)[] = [];

  constructor(
    readonly sampleRate: OpusInputRate,
    readonly rtpSsrc: number,
  ) {}

  /** Binds the output to its thread (done once by the pool). */
  attach(link: SenderLink): void {
    this.link = link;
  }

  write(frame: AudioFrame): void {
    if (frame.sampleRate !== this.sampleRate) throw new Error(`WebRTC output expects ${this.sampleRate} Hz audio, got ${frame.sampleRate} Hz`);
    if (this.closed || this.failure || !frame.samples.length) return;
    // One copy, then a transfer: whoever wrote the frame may reuse its buffer, and the thread keeps the copy as it is.
    const samples = frame.samples.slice();
    this.writtenSamples += samples.length;
    this.link?.write(samples);
    this.pushUpdate();
  }

  /** Seconds of agent audio written so far. */
  get writtenSeconds(): number {
    return this.writtenSamples / this.sampleRate;
  }

  /** Written, not yet sent: in the thread, and on its way there. */
  private queuedSeconds(): number {
    if (this.failure) return 0;
    return this.threadQueued + (this.writtenSamples - this.received) / this.sampleRate;
  }

  /** A record from the thread (after a tick, or the reply to a clear). */
  apply(r: Float64Array, at = 0): void {
    if (this.closed) return;
    this.sent = Math.max(this.sent, r[at + RECORD.sent]!);
    this.threadQueued = r[at + RECORD.queued]!;
    this.received = r[at + RECORD.received]!;
    this.stats.packets = r[at + RECORD.packets]!;
    this.stats.latePackets = r[at + RECORD.latePackets]!;
    this.stats.maxLateMs = Math.max(this.stats.maxLateMs, r[at + RECORD.maxLateMs]!);
    this.stats.dropped = r[at + RECORD.dropped]!;
    this.stats.talkspurts = r[at + RECORD.talkspurts]!;
    this.resolveMarks();
    this.pushUpdate();
  }

  private resolveMarks(): void {
    this.marks.settle(this.sent, this.failure !== undefined || this.queuedSeconds() < 1e-9);
  }

  private pushUpdate(): void {
    if (this.closed) return;
    this.playbackSubject.next({ sent: this.sent, played: this.sent, queued: this.queuedSeconds(), at: Date.now() });
  }

  mark(_id: string): Promise<void> {
    const placed = this.marks.add(this.sent + this.queuedSeconds());
    this.resolveMarks();
    return placed;
  }

  /** Barge-in: the thread drops every queued packet now; resolves with what it had sent by then. */
  async interrupt(): Promise<number> {
    this.marks.releaseAll();
    const record = this.failure ? undefined : await this.link?.clear();
    if (record) this.apply(record);
    else this.pushUpdate();
    return this.position();
  }

  position(): number {
    return this.sent;
  }

  /** Called once if the thread fails: the output sends nothing more. */
  onFailure(listener: (err: Error) => void): void {
    if (this.failure) listener(this.failure);
    else this.failureListeners.push(listener);
  }

  /** The sender thread died: nothing more will be sent; pending marks resolve, listeners hear why. */
  fail(err: Error): void {
    if (this.failure || this.closed) return;
    this.failure = err;
    this.resolveMarks();
    this.pushUpdate();
    for (const l of this.failureListeners.splice(0)) l(err);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.marks.releaseAll();
    this.closed = true;
    this.link?.close();
    this.playbackSubject.complete();
  }
}

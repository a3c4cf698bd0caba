import type { Observable } from '../rx.ts';
import { Fanout } from '../fanout.ts';
import type { AudioFrame } from '../audio/frame.ts';
import { armTimer, type Clock } from './clock.ts';
import type { PlaybackUpdate, TransportOutput } from './types.ts';
import { PlayoutMarks } from './playout-marks.ts';
import { withDefaults } from '../options.ts';

/** How `PacedOutput` hands audio to its sink: piece length, and how far behind before it stops catching up. */
export interface PacedOutputOptions {
  /**
   * Length of each piece handed to the sink (the last piece of a burst may be shorter).
   * @default 20
   */
  frameMs?: number;
  /**
   * A sink that falls further behind its clock than this (a stalled process) plays late instead
   * of bursting to catch up, as a loudspeaker would.
   * @default 100
   */
  maxLagMs?: number;
}

/** Defaults of `PacedOutput`: 20 ms pieces; a sink over 100 ms behind plays late rather than burst. */
export const PACED_OUTPUT_DEFAULTS: Required<PacedOutputOptions> = { frameMs: 20, maxLagMs: 100 };

/**
 * Receives each piece of agent audio when it is due, with its clock time. `lateMs` is non-zero on
 * the first piece after an underrun: the queue ran dry inside a reply (no mark placed where it
 * ran dry) and this piece starts that long after the previous one finished playing, so the
 * listener heard a gap.
 */
export type PacedSink = (samples: Int16Array, time: number, lateMs: number) => void;

/**
 * An output for sinks that acknowledge nothing (a loudspeaker process, a recording, a socket
 * that takes raw frames): it hands queued audio to the sink one frame at a time on the clock,
 * as a sound card would consume it. Nothing runs while nothing is queued. What has been handed
 * to the sink counts as sent and played; marks resolve on that clock.
 */
export class PacedOutput implements TransportOutput {
  private readonly o: Required<PacedOutputOptions>;
  /** Samples per piece handed to the sink. */
  private readonly stepSamples: number;
  private queue: Int16Array[] = [];
  /** Samples of `queue[0]` already handed to the sink. */
  private headOffset = 0;
  private queuedSamples = 0;
  private sentSamples = 0;
  /** Clock time at which the audio handed so far ends: the next burst continues from there. */
  private lastEnd = -Infinity;
  /**
   * Where the last mark was placed (at the end of what was written: a reply's end) or where the
   * output was interrupted, in samples: running dry there is a pause between replies, not an underrun.
   */
  private boundary = 0;
  private underrunCount = 0;
  private underrunTotalMs = 0;
  /** A pacing step is due (its timer armed) or running: writes join it instead of starting one. */
  private pacing = false;
  /** Clock time the next piece is due, and the gap the listener heard before it (see `PacedSink`). */
  private due = 0;
  private late = 0;
  private closed = false;
  private readonly marks = new PlayoutMarks();
  private readonly updates: Fanout<PlaybackUpdate>;
  readonly playback$: Observable<PlaybackUpdate>;

  constructor(
    readonly sampleRate: number,
    private readonly clock: Clock,
    private readonly sink: PacedSink = () => {},
    opts: PacedOutputOptions = {},
  ) {
    this.o = withDefaults(PACED_OUTPUT_DEFAULTS, opts);
    this.stepSamples = Math.max(1, Math.round((sampleRate * this.o.frameMs) / 1000));
    this.updates = new Fanout<PlaybackUpdate>({ latest: { sent: 0, played: 0, queued: 0, at: clock.now() } });
    this.playback$ = this.updates.observable;
  }

  write(frame: AudioFrame): void {
    if (frame.sampleRate !== this.sampleRate) throw new Error(`output expects ${this.sampleRate} Hz audio, got ${frame.sampleRate} Hz`);
    if (this.closed || !frame.samples.length) return;
    this.queue.push(frame.samples);
    this.queuedSamples += frame.samples.length;
    this.publish();
    if (!this.pacing) this.startPacing();
  }

  /** Starts pacing from now or from where the audio handed so far ends, whichever is later. */
  private startPacing(): void {
    this.pacing = true;
    const now = this.clock.now();
    this.due = Math.max(now, this.lastEnd);
    // Ran dry mid-reply: the next piece plays from now (a loudspeaker cannot play the past), and
    // the gap is counted and told to the sink instead of vanishing in the restarted clock.
    this.late = now > this.lastEnd && Number.isFinite(this.lastEnd) && this.boundary !== this.sentSamples ? now - this.lastEnd : 0;
    if (this.late > 0) {
      this.underrunCount++;
      this.underrunTotalMs += this.late;
    }
    this.step();
  }

  /**
   * Hands every piece already due to the sink, then arms one timer for the next (a plain callback
   * on clocks with `after`, not a sleep's promise and continuation per 20 ms frame per call: about
   * 15 % fewer scavenges in the 100-call latency bench). Pacing ends, no timer left, when the
   * queue is empty.
   */
  private readonly step = (): void => {
    let armed = false;
    try {
      while (this.queuedSamples > 0 && !this.closed) {
        const wait = this.due - this.clock.now();
        if (wait > 0) {
          armTimer(this.clock, wait, this.step);
          armed = true;
          return;
        }
        const samples = this.take(this.stepSamples);
        this.sink(samples, this.due, this.late);
        this.late = 0;
        this.sentSamples += samples.length;
        this.lastEnd = this.due + (samples.length / this.sampleRate) * 1000;
        this.due = this.lastEnd;
        if (this.clock.now() - this.due > this.o.maxLagMs) this.due = this.clock.now();
        this.resolveMarks();
        this.publish();
      }
    } finally {
      if (!armed) this.pacing = false;
    }
  };

  /**
   * The next `n` samples (fewer at the end). Usually one written piece holds them all (the
   * playout writes frame-sized pieces): the sink then gets a view of it, not a copy. Sinks must
   * not modify what they are given.
   */
  private take(n: number): Int16Array {
    const want = Math.min(n, this.queuedSamples);
    this.queuedSamples -= want;
    const head = this.queue[0]!;
    if (head.length - this.headOffset >= want) return this.advance(head, want);
    const out = new Int16Array(want);
    let filled = 0;
    while (filled < want) {
      const piece = this.queue[0]!;
      const k = Math.min(piece.length - this.headOffset, want - filled);
      out.set(this.advance(piece, k), filled);
      filled += k;
    }
    return out;
  }

  /** `k` samples of the head piece from the read offset; the piece leaves the queue once read. */
  private advance(head: Int16Array, k: number): Int16Array {
    const from = this.headOffset;
    const view = from === 0 && k === head.length ? head : head.subarray(from, from + k);
    this.headOffset += k;
    if (this.headOffset === head.length) {
      this.queue.shift();
      this.headOffset = 0;
    }
    return view;
  }

  private publish(): void {
    if (this.closed) return;
    const sent = this.sentSamples / this.sampleRate;
    this.updates.next({ sent, played: sent, queued: this.queuedSamples / this.sampleRate, at: this.clock.now() });
  }

  private resolveMarks(): void {
    this.marks.settle(this.sentSamples);
  }

  mark(_id: string): Promise<void> {
    this.boundary = this.sentSamples + this.queuedSamples;
    const placed = this.marks.add(this.sentSamples + this.queuedSamples);
    this.resolveMarks();
    return placed;
  }

  async interrupt(): Promise<number> {
    this.queue = [];
    this.headOffset = 0;
    this.queuedSamples = 0;
    this.boundary = this.sentSamples;
    this.marks.releaseAll();
    this.publish();
    return this.position();
  }

  position(): number {
    return this.updates.value.played;
  }

  /** Times the queue ran dry inside a reply (see `PacedSink`): gaps the listener heard. */
  get underruns(): number {
    return this.underrunCount;
  }

  /** Milliseconds of those gaps, all together. */
  get underrunMs(): number {
    return this.underrunTotalMs;
  }

  /** Seconds still queued. */
  pending(): number {
    return this.queuedSamples / this.sampleRate;
  }

  /** Clock time at which the audio handed to the sink so far has finished playing. */
  get playedUntil(): number {
    return this.lastEnd;
  }

  /** Drops what is queued and stops pacing. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.interrupt();
    this.closed = true;
    this.updates.complete();
  }
}

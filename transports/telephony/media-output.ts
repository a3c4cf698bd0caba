/**
 * The agent's side of a media stream, the paced output itself, shared by every platform's
 * `MediaStreamTransport` (`media-stream.ts`); its options and sink are in `media-stream-options.ts`,
 * the deferral of its timers' steps past the loop's reads in `woken-steps.ts`.
 */
import type { Observable } from '../../src/rx.ts';
import { Fanout } from '../../src/fanout.ts';
import type { AudioFrame } from '../../src/audio/frame.ts';
import { armTimer, realClock } from '../../src/transport/clock.ts';
import type { PlaybackUpdate, TransportOutput } from '../../src/transport/types.ts';
import { dtmfTones, encode, frameSamples } from './codec.ts';
import { EdgeResampler, edgeRate } from './edge-rate.ts';
import { PlayoutBatches } from './playout-batches.ts';
import { MEDIA_STREAM_DEFAULTS, type MediaSink, type MediaStreamOptions } from './media-stream-options.ts';
import type { MediaFormat, ProviderConnection } from './provider.ts';
import { afterReadyInput } from './woken-steps.ts';

/**
 * A pacing timer wakes when the far end's buffer is down to the lead, where a step sends only
 * below it; Node's timers fire on whole milliseconds of the loop's clock, so up to about 1 ms
 * before that time (and exactly on it on a virtual clock). A woken step therefore sends within
 * this of the lead, instead of arming another timer 1 ms later: that doubled the timers per frame.
 */
const TIMER_SLACK_MS = 1;

/**
 * The agent's audio toward a media stream: encoded at the edge into the platform's codec and
 * frame size, paced on the clock so the platform holds only `leadMs`, with marks every
 * `markEveryMs` on platforms that acknowledge them. `played` moves only on an acknowledgement
 * (or, where the platform has none, on the send clock); after an interrupt the unplayed tail is
 * dropped from the timeline, so the next reply's positions start where the caller stopped hearing.
 */
export class MediaStreamOutput implements TransportOutput {
  /** The rate agent audio is written at: the wire's, or the nearest the voice can produce. */
  readonly sampleRate: number;
  /** The platform's rate; timeline positions below count samples at this rate. */
  private readonly wireRate: number;
  private readonly toWire: EdgeResampler | undefined;
  private readonly frame: number;
  /** A pacing step tops the far end's buffer up to this (ms)… */
  private readonly fillMs: number;
  /** …and the next step wakes when the buffer is down to this. */
  private readonly wakeMs: number;
  private readonly o: Required<Omit<MediaStreamOptions, 'reorder' | 'sendEveryMs'>>;
  private readonly hasMarks: boolean;
  /** The frame `take` fills (a short tail is padded with silence). */
  private readonly scratch: Int16Array;
  private chunks: Int16Array[] = [];
  private head = 0;
  private queued = 0;
  /** Timeline positions in samples: what was sent, what was heard. */
  private cursor = 0;
  private played = 0;
  private wireSent = 0;
  private farEndEnd = 0;
  private lastMarkAt = 0;
  private markSeq = 0;
  private readonly pendingAcks = new Map<string, number>();
  /** On a batching platform, a mark sent with audio held: where its echo says the playout is (playout-batches.ts). */
  private readonly heardAt = new Map<string, number>();
  /** Where the platform plays in batches (`MediaFormat.playoutBatch`). */
  private readonly batches: PlayoutBatches | undefined;
  private waiters: { at: number; id: string; resolve: () => void }[] = [];
  private partialSince: number | undefined;
  private paused = false;
  private closed = false;
  /** Cancels the pacing timer that is armed, if any. */
  private cancelTimer: (() => void) | undefined;
  private timerAt = Infinity;
  private readonly updates: Fanout<PlaybackUpdate>;
  readonly playback$: Observable<PlaybackUpdate>;

  constructor(
    private readonly format: MediaFormat,
    private readonly conn: ProviderConnection,
    private readonly sink: MediaSink,
    opts: MediaStreamOptions = {},
    private readonly onPlayed: (id: string) => void = () => {},
  ) {
    const { sendEveryMs, reorder: _reorder, ...rest } = opts;
    this.o = { ...MEDIA_STREAM_DEFAULTS, clock: realClock(), ...stripUndefined(rest) };
    this.wireRate = format.sampleRate;
    this.sampleRate = edgeRate(format.sampleRate);
    if (this.sampleRate !== this.wireRate) this.toWire = new EdgeResampler(this.sampleRate, this.wireRate);
    this.frame = frameSamples(format);
    this.scratch = new Int16Array(this.frame);
    // k frames per step. One frame: wake at the lead, send what brings it back over (as always).
    // k frames: wake half a frame under the lead (the buffer never falls further below it than
    // before), fill k − 1 frames over it, so a step on time or up to half a frame late sends k.
    const k = Math.max(1, Math.round((sendEveryMs ?? format.sendEveryMs ?? format.frameMs) / format.frameMs));
    this.fillMs = this.o.leadMs + (k - 1) * format.frameMs;
    this.wakeMs = k > 1 ? this.o.leadMs - format.frameMs / 2 : this.o.leadMs;
    this.hasMarks = !!conn.mark;
    if (format.playoutBatch) this.batches = new PlayoutBatches(format.playoutBatch, this.wireRate);
    this.updates = new Fanout<PlaybackUpdate>({ latest: { sent: 0, played: 0, queued: 0, at: this.o.clock.now() } });
    this.playback$ = this.updates.observable;
  }

  private ms(samples: number): number {
    return (samples / this.wireRate) * 1000;
  }

  write(frame: AudioFrame): void {
    if (frame.sampleRate !== this.sampleRate) throw new Error(`output expects ${this.sampleRate} Hz audio, got ${frame.sampleRate} Hz`);
    if (this.closed || !frame.samples.length) return;
    if (this.toWire) this.toWire.push(frame.samples, (s) => this.enqueue(s));
    else this.enqueue(frame.samples);
  }

  private enqueue(samples: Int16Array): void {
    if (this.closed) return;
    this.chunks.push(samples);
    this.queued += samples.length;
    this.batches?.queued(samples.length);
    this.pump();
  }

  /** Queues in-band DTMF tones (heard by the far end like any agent audio). */
  writeDtmf(digits: string): void {
    this.write({ samples: dtmfTones(digits, this.sampleRate), sampleRate: this.sampleRate, time: this.o.clock.now() });
  }

  mark(id: string): Promise<void> {
    const at = this.cursor + this.queued;
    if (this.closed || at <= this.played) {
      if (!this.closed) this.onPlayed(id);
      return Promise.resolve();
    }
    this.completeBatch();
    return new Promise((resolve) => this.waiters.push({ at, id, resolve }));
  }

  async interrupt(): Promise<number> {
    if (!this.hasMarks) this.advanceByClock();
    this.heldPlayed();
    this.toWire?.clear();
    this.chunks = [];
    this.head = 0;
    this.queued = 0;
    this.partialSince = undefined;
    if (this.cursor > this.played && !this.closed) {
      // What a batching platform holds of the reply goes into the buffer the clear empties.
      const flush = this.batches?.beforeClear();
      if (flush) this.sink.send(this.conn.encodeAudio(encode(this.format, new Int16Array(flush))));
      const clear = this.conn.clear?.();
      if (clear) this.sink.send(clear);
    }
    // Echoes of marks sent before the clear may say "played" for audio that was dropped.
    this.pendingAcks.clear();
    this.heardAt.clear();
    this.cursor = this.played;
    this.batches?.cleared(this.cursor);
    this.lastMarkAt = this.played;
    this.farEndEnd = this.o.clock.now();
    for (const w of this.waiters.splice(0)) w.resolve();
    this.push();
    return this.position();
  }

  position(): number {
    return this.played / this.wireRate;
  }

  /** A mark came back from the platform. Unknown names (cleared, duplicated, forged) are ignored. */
  acknowledge(name: string): void {
    const at = this.pendingAcks.get(name);
    if (at === undefined) return;
    const heard = this.heardAt.get(name) ?? at;
    // Marks come back in order: everything sent before this one has played too.
    for (const [k, v] of this.pendingAcks) {
      this.pendingAcks.delete(k);
      this.heardAt.delete(k);
      if (k === name || v >= at) break;
    }
    this.advanceTo(heard);
    // On a batching platform the echo may stand before held audio, which then plays from now.
    this.batches?.reached(heard, this.o.clock.now());
    this.heldPlayed();
    // …to its end: a timer counts it then, with nothing more to send.
    if (!this.closed && this.batches?.nextDue() !== undefined) this.schedule(this.o.clock.now());
  }

  /** What a batching platform held and has played since (playout-batches.ts), counted as heard. */
  private heldPlayed(): void {
    const heard = this.batches?.heardBy(this.o.clock.now(), this.played);
    if (heard) this.advanceTo(heard);
  }

  /**
   * The platform dropped the audio before this mark (jambonz reports each mark cleared by a
   * `killAudio` as such). A mark from before the last interrupt is no longer waited for; one
   * sent after it means the clear, applied at the platform's next media frame, took that audio
   * too: the mark does not move what was heard, and nothing waits on it any longer. (A later
   * mark's playout still counts the timeline up to it, the dropped span included: a gap in it
   * is not kept.)
   */
  dropped(name: string): void {
    const at = this.pendingAcks.get(name);
    if (at === undefined) return;
    for (const [k] of this.pendingAcks) {
      this.pendingAcks.delete(k);
      this.heardAt.delete(k);
      if (k === name) break;
    }
    const gone = this.waiters.filter((w) => w.at <= at);
    if (!gone.length) return;
    this.waiters = this.waiters.filter((w) => w.at > at);
    for (const w of gone) w.resolve();
  }

  /** The audio written so far ends a reply: on a batching platform, silence after it, so none of it is held back. */
  private completeBatch(): void {
    const ms = this.batches?.replyEnd(this.queued);
    if (!ms) return;
    this.write({ samples: new Int16Array(Math.ceil((ms / 1000) * this.sampleRate)), sampleRate: this.sampleRate, time: this.o.clock.now() });
    this.batches!.completed();
  }

  /** Holds or resumes sending agent audio. */
  setPaused(paused: boolean): void {
    this.paused = paused;
    if (!paused) this.pump();
  }

  /** Stops sending and frees the output. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    for (const w of this.waiters.splice(0)) w.resolve();
    this.chunks = [];
    this.queued = 0;
    this.push();
    this.updates.complete();
  }

  private advanceByClock(): void {
    const inFlight = Math.max(0, this.farEndEnd - this.o.clock.now());
    this.advanceTo(this.cursor - Math.round((inFlight / 1000) * this.wireRate));
  }

  private advanceTo(pos: number): void {
    const at = Math.min(pos, this.cursor);
    if (at <= this.played) return;
    this.played = at;
    // Most acknowledgements (one per markEveryMs) have no mark waiting on them: nothing to sort.
    if (this.waiters.every((w) => w.at > at)) return this.push();
    const ready = this.waiters.filter((w) => w.at <= at);
    this.waiters = this.waiters.filter((w) => w.at > at);
    for (const w of ready) {
      this.onPlayed(w.id);
      w.resolve();
    }
    this.push();
  }

  private push(): void {
    if (this.updates.closed) return;
    this.updates.next({ sent: this.wireSent / this.wireRate, played: this.position(), queued: this.queued / this.wireRate, at: this.o.clock.now() });
  }

  /**
   * The next frame, in a buffer reused for every frame: `encode` copies it into the wire's bytes
   * (G.711 or L16) before anything else runs, so no frame keeps it.
   */
  private take(n: number): Int16Array {
    const out = this.scratch;
    out.fill(0, n);
    let filled = 0;
    while (filled < n && this.chunks.length) {
      const c = this.chunks[0]!;
      const k = Math.min(n - filled, c.length - this.head);
      out.set(c.subarray(this.head, this.head + k), filled);
      filled += k;
      this.head += k;
      if (this.head >= c.length) {
        this.chunks.shift();
        this.head = 0;
      }
    }
    this.queued -= filled;
    return out;
  }

  /** Sends what the lead allows, then sleeps until more may go (event-driven, no idle ticking). */
  private pump(woke = false): void {
    if (this.closed) return;
    const now = this.o.clock.now();
    if (!this.hasMarks) this.advanceByClock();
    this.heldPlayed();
    let corked = false;
    try {
      // A step woken by its timer may run up to TIMER_SLACK_MS before the wake time it was armed for.
      const fill = woke ? this.fillMs + TIMER_SLACK_MS : this.fillMs;
      while (!this.paused && this.queued > 0 && this.farEndEnd - now < fill) {
        if (this.hasMarks && this.ms(this.cursor - this.played) >= this.o.maxUnackedMs) break;
        if (this.queued < this.frame) {
          // A short tail waits one frame for more audio before it goes out padded with silence.
          this.partialSince ??= now;
          if (now - this.partialSince < this.format.frameMs) break;
        }
        this.partialSince = undefined;
        if (!corked) {
          this.sink.cork?.();
          corked = true;
        }
        const n = Math.min(this.frame, this.queued);
        this.sink.send(this.conn.encodeAudio(encode(this.format, this.take(n))));
        this.cursor += n;
        this.wireSent += this.frame;
        this.farEndEnd = Math.max(now, this.farEndEnd) + this.format.frameMs;
        const replyEnd = this.batches?.wentOut(n, this.frame, this.cursor, now) === true;
        if (this.hasMarks && (this.ms(this.cursor - this.lastMarkAt) >= this.o.markEveryMs || this.queued === 0 || replyEnd)) this.sendMark();
      }
    } finally {
      if (corked) this.sink.uncork?.();
    }
    this.push();
    this.schedule(now);
  }

  private sendMark(): void {
    const name = `h${++this.markSeq}`;
    const msg = this.conn.mark!(name);
    if (!msg) return;
    this.sink.send(msg);
    this.pendingAcks.set(name, this.cursor);
    // A batching platform echoes it once the audio before its held part has played.
    const heard = this.batches?.markPosition(this.cursor);
    if (heard !== undefined && heard < this.cursor) this.heardAt.set(name, heard);
    this.lastMarkAt = this.cursor;
  }

  private schedule(now: number): void {
    let wake = Infinity;
    if (this.queued > 0 && !this.paused) {
      wake = Math.max(now + 1, this.farEndEnd - this.wakeMs);
      if (this.partialSince !== undefined) wake = Math.max(wake, this.partialSince + this.format.frameMs);
    }
    if (!this.hasMarks && this.cursor > this.played) wake = Math.min(wake, now + this.format.frameMs);
    const heldEnds = this.batches?.nextDue();
    if (heldEnds !== undefined) wake = Math.min(wake, Math.max(now + 1, heldEnds));
    if (wake === Infinity || wake >= this.timerAt) return;
    this.cancelTimer?.();
    this.timerAt = wake;
    this.cancelTimer = armTimer(this.o.clock, wake - now, this.wake);
  }

  /** The pacing timer fired (one function for every arm, not a closure per step). */
  private readonly wake = (): void => {
    this.cancelTimer = undefined;
    this.timerAt = Infinity;
    // A clock without `after` (a virtual one) fires from a test's `advance`, not from the loop's timers.
    if (this.o.clock.after) afterReadyInput(this.step);
    else this.pump(true);
  };

  private readonly step = (): void => this.pump(true);
}


function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

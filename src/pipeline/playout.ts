import type { Subscription } from 'rxjs';
import type { Clock } from '../transport/clock.ts';
import type { PlaybackUpdate, TransportOutput } from '../transport/types.ts';
import { speechLength } from './spoken.ts';
import { withDefaults } from '../options.ts';

/** How agent audio is handed to the transport: how far ahead, in what pieces. */
export interface PlayoutOptions {
  /**
   * Audio handed to the transport ahead of what it has sent toward the caller. Small, so that a
   * pause or an interruption leaves little queued; large enough to ride out the transport's
   * jitter. (What the far end holds is the transport's own lead, paced on its clock.)
   * @default 200
   */
  leadMs?: number;
  /**
   * Size of each write to the transport.
   * @default 20
   */
  frameMs?: number;
}

/** Defaults of playout: 200 ms ahead of what the transport has sent, in 20 ms frames. */
export const PLAYOUT_DEFAULTS: Required<PlayoutOptions> = { leadMs: 200, frameMs: 20 };

/** Where speech audio goes as it is synthesized: one segment per chunk of text. */
export interface SpeechSink {
  /** `spoken` is what the audio says; `text` what the history keeps. */
  beginSegment(text: string, spoken?: string): void;
  /** Ends the open segment: its audio is complete. */
  closeSegment(): void;
  /** Audio of the open segment, at its own rate (the output converts at the edge). */
  append(samples: Int16Array, sampleRate: number): void;
}

interface Piece {
  samples: Int16Array;
  rate: number;
  /** Reply seconds at its first sample. */
  start: number;
}

interface Segment {
  text: string;
  spoken: string;
  start: number;
  end: number | undefined;
}

const EPS = 1e-6;

/**
 * One reply's audio on its way to the caller. Driven by events only: audio arriving, the
 * transport's playback updates, pause/resume/stop. It hands the transport a little more than
 * what the transport has sent (`leadMs`), so a pause or an interruption stops the voice at once,
 * and it maps the heard position onto the text: whole segments (chunks) before it, and the heard
 * share of the current segment, cut at a word boundary. Times are in seconds of this reply's
 * audio, so pieces at different rates mix freely.
 *
 * The lead counts from what was sent, not from what was heard: a platform's acknowledgements of
 * playback come a round trip late (and later from a busy far end), and a lead counted from them
 * left the caller's buffer empty whenever they lagged by more than the lead (a 0.3 s round trip
 * to the platform made every other frame silence). How much the far end holds is the
 * transport's to pace (its own lead on its send clock, and a ceiling of unacknowledged audio).
 */
export class ReplyPlayout implements SpeechSink {
  private readonly o: Required<PlayoutOptions>;
  private pieces: Piece[] = [];
  private total = 0;
  private fed = 0;
  /** Reply seconds heard before the latest (re)start of the output. */
  private heardBase = 0;
  /** Output positions when this reply's audio last (re)started. */
  private origin: { played: number; sent: number } | undefined;
  private last: PlaybackUpdate = { sent: 0, played: 0, queued: 0, at: 0 };
  private segments: Segment[] = [];
  private complete = false;
  private paused = false;
  private stopped = false;
  private started = false;
  private feeding = false;
  /** Bumped by every interruption, so a mark placed before it means nothing after. */
  private generation = 0;
  private markedGeneration = -1;
  private readonly sub: Subscription;
  private resolveDone!: (how: 'done' | 'stopped') => void;
  readonly finished: Promise<'done' | 'stopped'>;
  /** Clock time the first audio of this reply left the transport (its playback `sent` moved). */
  firstSentAt: number | undefined;
  private firstSentListeners: ((t: number) => void)[] = [];

  constructor(
    private readonly output: TransportOutput,
    private readonly clock: Clock,
    /** How written text becomes spoken text (to find which written words were heard). */
    private readonly toSpoken: (text: string) => string = (t) => t,
    opts: PlayoutOptions = {},
  ) {
    this.o = withDefaults(PLAYOUT_DEFAULTS, opts);
    this.finished = new Promise((r) => (this.resolveDone = r));
    this.sub = output.playback$.subscribe((u) => this.onPlayback(u));
  }

  beginSegment(text: string, spoken = text): void {
    this.closeSegment();
    this.segments.push({ text, spoken, start: this.total, end: undefined });
  }

  /** Ends the open segment: its audio is complete. */
  closeSegment(): void {
    const last = this.segments.at(-1);
    if (last && last.end === undefined) last.end = this.total;
  }

  append(samples: Int16Array, sampleRate: number): void {
    if (this.stopped || !samples.length) return;
    this.pieces.push({ samples, rate: sampleRate, start: this.total });
    this.total += samples.length / sampleRate;
    this.feed();
  }

  /** No more audio will come for this reply. */
  end(): void {
    this.closeSegment();
    this.complete = true;
    if (this.total === 0) return this.finish('done');
    this.feed();
  }

  /** Seconds of this reply the caller has heard. */
  played(): number {
    return this.reached('played');
  }

  /** Seconds of this reply that have left the transport (heard or on their way). */
  private sent(): number {
    return this.reached('sent');
  }

  /** Seconds of this reply the output's `played` or `sent` position has passed since it (re)started. */
  private reached(k: 'played' | 'sent'): number {
    if (!this.origin) return this.heardBase;
    return Math.min(this.fed, this.heardBase + Math.max(0, this.last[k] - this.origin[k]));
  }

  /** Seconds of audio received so far. */
  get duration(): number {
    return this.total;
  }

  get speaking(): boolean {
    return this.started && !this.stopped && !this.paused && this.played() < this.total - EPS;
  }

  /** Calls `fn` with the clock time the reply's first audio left (at once if it already has). */
  onFirstSent(fn: (t: number) => void): void {
    if (this.firstSentAt !== undefined) fn(this.firstSentAt);
    else this.firstSentListeners.push(fn);
  }

  private onPlayback(u: PlaybackUpdate): void {
    this.last = u;
    if (this.firstSentAt === undefined && this.origin && u.sent > this.origin.sent + EPS) {
      this.firstSentAt = u.at;
      for (const fn of this.firstSentListeners.splice(0)) fn(u.at);
    }
    this.feed();
  }

  /** Writes while there is audio and room in the lead; marks the end once all is written. */
  private feed(): void {
    if (this.feeding || this.paused || this.stopped) return;
    this.feeding = true;
    try {
      const lead = this.o.leadMs / 1000;
      while (this.fed < this.total - EPS && this.fed - Math.max(this.sent(), this.played()) < lead - EPS && !this.paused && !this.stopped) {
        const piece = this.pieceAt(this.fed);
        const offset = Math.round((this.fed - piece.start) * piece.rate);
        const n = Math.min(Math.max(1, Math.round((piece.rate * this.o.frameMs) / 1000)), piece.samples.length - offset);
        if (n <= 0) {
          this.fed = piece.start + piece.samples.length / piece.rate;
          continue;
        }
        if (!this.origin) this.origin = { played: this.last.played, sent: this.last.sent + this.last.queued };
        this.started = true;
        this.fed = piece.start + (offset + n) / piece.rate;
        this.output.write({ samples: piece.samples.subarray(offset, offset + n), sampleRate: piece.rate, time: this.clock.now() });
      }
      if (this.complete && this.fed >= this.total - EPS && this.markedGeneration !== this.generation && !this.paused && !this.stopped) {
        const gen = (this.markedGeneration = this.generation);
        void this.output.mark('reply-end').then(() => {
          if (gen === this.generation && !this.paused && !this.stopped) this.finish('done');
        });
      }
    } finally {
      this.feeding = false;
    }
  }

  private pieceAt(t: number): Piece {
    let lo = 0;
    let hi = this.pieces.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.pieces[mid]!.start <= t + EPS) lo = mid;
      else hi = mid - 1;
    }
    return this.pieces[lo]!;
  }

  /** Drops what the transport holds and freezes the heard position there. */
  private async halt(): Promise<void> {
    this.generation++;
    const before = this.origin;
    const base = this.heardBase;
    const fed = this.fed;
    const at = await this.output.interrupt();
    const heard = before ? Math.min(fed, base + Math.max(0, at - before.played)) : base;
    this.heardBase = heard;
    this.fed = heard;
    this.origin = undefined;
  }

  /** Stops the voice, keeping the rest to resume from where it stopped. */
  async pause(): Promise<void> {
    if (this.paused || this.stopped) return;
    this.paused = true;
    await this.halt();
  }

  /** Resumes a paused reply where it stopped (after a false alarm). */
  resume(): void {
    if (!this.paused || this.stopped) return;
    this.paused = false;
    this.feed();
  }

  /** Ends the reply; returns what the caller heard. */
  async stop(): Promise<string> {
    if (!this.stopped) {
      this.stopped = true;
      if (!this.paused) await this.halt();
      this.finish('stopped');
    }
    return this.heardText();
  }

  private finish(how: 'done' | 'stopped'): void {
    if (how === 'done') this.heardBase = this.total;
    this.sub?.unsubscribe();
    this.resolveDone(how);
  }

  /** The whole reply's text, every segment. */
  fullText(): string {
    return this.segments.map((s) => s.text).join(' ');
  }

  /** The words of the reply the caller has heard, from the transport's played position. */
  heardText(): string {
    const p = this.played();
    const out: string[] = [];
    for (const s of this.segments) {
      const end = s.end ?? this.total;
      if (p >= end - EPS) out.push(s.text);
      else if (p > s.start) {
        const heard = heardPrefix(s.text, s.spoken, (p - s.start) / Math.max(EPS, end - s.start), this.toSpoken);
        if (heard) out.push(heard);
        break;
      } else break;
    }
    return out.join(' ').trim();
  }
}

/**
 * The written words heard when a `share` of a segment's audio has played. The share applies to
 * the spoken form (where "12,500" is six words long); the answer is the longest run of whole
 * written words whose spoken form fits in it. Lengths are speech lengths: diacritics added for
 * synthesis take no time to say, so they must not count (`speechLength`).
 */
export function heardPrefix(text: string, spoken: string, share: number, toSpoken: (t: string) => string): string {
  const budget = share * speechLength(spoken);
  const words = text.split(/\s+/).filter(Boolean);
  let heard = '';
  for (let k = 1; k <= words.length; k++) {
    const prefix = words.slice(0, k).join(' ');
    if (speechLength(toSpoken(prefix)) > budget) break;
    heard = prefix;
  }
  return heard;
}

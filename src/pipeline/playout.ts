import type { Clock } from '../session/clock.ts';
import type { TransportOutput } from '../../transports/types.ts';

interface Segment {
  text: string;
  spoken: string;
  start: number;
  end: number | undefined;
}

/**
 * One reply's audio on its way to the caller. It feeds the transport only a little ahead of
 * what has played (`leadMs`), so a pause or an interruption stops the voice at once and the
 * played position maps onto the text: whole segments (chunks) before it, and the played share
 * of the current segment, cut at a word boundary.
 */
export class ReplyPlayout {
  private audio = new Int16Array(0);
  private length = 0;
  private fed = 0;
  private start: number | undefined;
  private segments: Segment[] = [];
  private complete = false;
  private paused = false;
  private stopped = false;
  private resolveDone!: (how: 'done' | 'stopped') => void;
  readonly finished: Promise<'done' | 'stopped'>;
  firstPlayedAt: number | undefined;
  private firstPlayedListeners: ((t: number) => void)[] = [];

  constructor(
    private readonly output: TransportOutput,
    private readonly clock: Clock,
    private readonly leadMs = 200,
    /** How written text becomes spoken text (to find which written words were heard). */
    private readonly toSpoken: (text: string) => string = (t) => t,
  ) {
    this.finished = new Promise((r) => (this.resolveDone = r));
    void this.loop();
  }

  get rate(): number {
    return this.output.sampleRate;
  }

  beginSegment(text: string, spoken = text): void {
    this.closeSegment();
    this.segments.push({ text, spoken, start: this.length, end: undefined });
  }

  closeSegment(): void {
    const last = this.segments.at(-1);
    if (last && last.end === undefined) last.end = this.length;
  }

  append(samples: Int16Array): void {
    if (this.stopped) return;
    if (this.length + samples.length > this.audio.length) {
      const grown = new Int16Array(Math.max(this.audio.length * 2, this.length + samples.length, this.rate * 10));
      grown.set(this.audio.subarray(0, this.length));
      this.audio = grown;
    }
    this.audio.set(samples, this.length);
    this.length += samples.length;
  }

  /** No more audio will come for this reply. */
  end(): void {
    this.closeSegment();
    this.complete = true;
  }

  /** Samples of this reply the caller has heard. */
  played(): number {
    if (this.start === undefined) return 0;
    return Math.min(this.fed, Math.max(0, Math.round((this.output.position() - this.start) * this.rate)));
  }

  get speaking(): boolean {
    return !this.stopped && !this.paused && this.start !== undefined && this.played() < this.length;
  }

  onFirstPlayed(fn: (t: number) => void): void {
    if (this.firstPlayedAt !== undefined) fn(this.firstPlayedAt);
    else this.firstPlayedListeners.push(fn);
  }

  private async loop(): Promise<void> {
    const frame = Math.round(this.rate / 50);
    const lead = Math.round((this.leadMs / 1000) * this.rate);
    while (!this.stopped) {
      if (!this.paused) {
        while (this.fed < this.length && this.fed - this.played() < lead) {
          if (this.start === undefined) {
            // The queue is empty here: the previous reply has played out or was stopped.
            this.start = this.output.position();
            void this.output.mark('first-audio').then(() => {
              this.firstPlayedAt = this.clock.now();
              for (const fn of this.firstPlayedListeners.splice(0)) fn(this.firstPlayedAt);
            });
          }
          const n = Math.min(frame, this.length - this.fed);
          this.output.write({ samples: this.audio.slice(this.fed, this.fed + n), sampleRate: this.rate, time: this.clock.now() });
          this.fed += n;
        }
        if (this.complete && this.start !== undefined && this.played() >= this.length) break;
      }
      if (this.complete && this.length === 0) break;
      await this.clock.sleep(20);
    }
    this.resolveDone(this.stopped ? 'stopped' : 'done');
  }

  /** Stops the voice, keeping the rest to resume from where it stopped. */
  async pause(): Promise<void> {
    if (this.paused || this.stopped) return;
    this.paused = true;
    const at = this.played();
    await this.output.interrupt();
    this.fed = at;
  }

  resume(): void {
    this.paused = false;
  }

  /** Ends the reply; returns what the caller heard. */
  async stop(): Promise<string> {
    if (!this.stopped) {
      const heard = this.heardText();
      this.stopped = true;
      if (!this.paused) await this.output.interrupt();
      return heard;
    }
    return this.heardText();
  }

  fullText(): string {
    return this.segments.map((s) => s.text).join(' ');
  }

  heardText(): string {
    const p = this.played();
    const out: string[] = [];
    for (const s of this.segments) {
      const end = s.end ?? this.length;
      if (p >= end) out.push(s.text);
      else if (p > s.start) {
        const heard = heardPrefix(s.text, s.spoken, (p - s.start) / Math.max(1, end - s.start), this.toSpoken);
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
 * written words whose spoken form fits in it.
 */
export function heardPrefix(text: string, spoken: string, share: number, toSpoken: (t: string) => string): string {
  const budget = share * spoken.length;
  const words = text.split(/\s+/).filter(Boolean);
  let heard = '';
  for (let k = 1; k <= words.length; k++) {
    const prefix = words.slice(0, k).join(' ');
    if (toSpoken(prefix).length > budget) break;
    heard = prefix;
  }
  return heard;
}

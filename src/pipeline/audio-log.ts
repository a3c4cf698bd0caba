import { SamplePages } from './sample-pages.ts';

/**
 * What the STT stage remembers of the caller's audio, one entry per piece sent to /listen: where
 * the piece starts in session audio seconds, the clock time it was captured, and (while it may
 * still have to be replayed after a reconnect) its samples, copied into pages (`SamplePages`).
 *
 * A ring of typed arrays rather than an array of objects: it is written 50 times a second per
 * call, and an object per frame was a steady share of the garbage collector's work at 100 calls.
 * The newest `capacity` entries answer `timeOf`; the ring grows only when the replay window needs
 * more entries than that (pieces much shorter than 20 ms).
 */
export class AudioLog {
  private at: Float64Array;
  private time: Float64Array;
  /** Where each piece's samples start in `samples`, and how many. */
  private start: Float64Array;
  private count: Int32Array;
  private readonly samples = new SamplePages();
  /** Ring index of the oldest entry. */
  private head = 0;
  private size = 0;
  /** Entries from this logical index on are kept for replay. */
  private replayFrom = 0;

  constructor(capacity = 4096) {
    const n = Math.max(2, capacity);
    this.at = new Float64Array(n);
    this.time = new Float64Array(n);
    this.start = new Float64Array(n);
    this.count = new Int32Array(n);
  }

  get length(): number {
    return this.size;
  }

  private slot(i: number): number {
    return (this.head + i) % this.at.length;
  }

  /** A piece starting at session second `at`, captured at clock time `time`. */
  push(samples: Int16Array, at: number, time: number): void {
    if (this.size === this.at.length) {
      if (this.replayFrom === 0) this.grow();
      else {
        this.head = (this.head + 1) % this.at.length;
        this.size--;
        this.replayFrom--;
      }
    }
    const s = this.slot(this.size++);
    this.at[s] = at;
    this.time[s] = time;
    this.start[s] = this.samples.append(samples);
    this.count[s] = samples.length;
  }

  private grow(): void {
    const n = this.at.length * 2;
    const at = new Float64Array(n);
    const time = new Float64Array(n);
    const start = new Float64Array(n);
    const count = new Int32Array(n);
    for (let i = 0; i < this.size; i++) {
      const s = this.slot(i);
      at[i] = this.at[s]!;
      time[i] = this.time[s]!;
      start[i] = this.start[s]!;
      count[i] = this.count[s]!;
    }
    this.at = at;
    this.time = time;
    this.start = start;
    this.count = count;
    this.head = 0;
  }

  /** Clock time at which session second `t` was captured (from the last piece starting at or before it). */
  timeOf(t: number): number | undefined {
    if (!this.size) return undefined;
    let lo = 0;
    let hi = this.size - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.at[this.slot(mid)]! <= t) lo = mid;
      else hi = mid - 1;
    }
    const s = this.slot(lo);
    return this.time[s]! + (t - this.at[s]!) * 1000;
  }

  /** Stops keeping for replay the pieces that end at or before session second `t`. */
  releaseBefore(t: number, rate: number): void {
    while (this.replayFrom < this.size) {
      const s = this.slot(this.replayFrom);
      if (this.at[s]! + this.count[s]! / rate > t) break;
      this.replayFrom++;
    }
    this.dropReleased();
  }

  /** Stops keeping for replay the pieces that start more than `seconds` before session second `t`. */
  releaseOlderThan(t: number, seconds: number): void {
    while (this.replayFrom < this.size && t - this.at[this.slot(this.replayFrom)]! > seconds) this.replayFrom++;
    this.dropReleased();
  }

  /** Lets go of the pages holding only released pieces' samples. */
  private dropReleased(): void {
    this.samples.dropBefore(this.replayFrom < this.size ? this.start[this.slot(this.replayFrom)]! : this.samples.end);
  }

  /** Session second at which the replay starts (undefined when nothing is kept). */
  get replayStart(): number | undefined {
    return this.replayFrom < this.size ? this.at[this.slot(this.replayFrom)] : undefined;
  }

  /** The pieces kept for replay, oldest first. */
  *replay(): IterableIterator<Int16Array> {
    for (let i = this.replayFrom; i < this.size; i++) {
      const s = this.slot(i);
      yield this.samples.read(this.start[s]!, this.count[s]!);
    }
  }
}

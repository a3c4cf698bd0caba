/** Options of the inbound reorder buffer. */
export interface ReorderOptions {
  /**
   * Frames held back waiting for a missing one before giving it up (each about 20 ms, so the
   * default adds at most 60 ms of delay, and only while a frame is missing).
   * @default 3
   */
  depth?: number;
  /**
   * How far (in sequence numbers) a frame may be from the expected one and still belong to the
   * stream. Farther frames (a counter that jumped far ahead or restarted) are set aside; once
   * more than `depth` of them have come close together, the stream follows them (a resync).
   * @default 250
   */
  maxJump?: number;
}

export const REORDER_DEFAULTS: Required<ReorderOptions> = { depth: 3, maxJump: 250 };

/**
 * Puts inbound frames back in sequence order (Telnyx does not guarantee it), drops duplicates
 * and frames older than what was already delivered, and skips a lost frame once `depth` later
 * frames have arrived. A sequence that jumps far away or restarts is followed once a few frames
 * confirm it, so one wild counter costs a few frames, never the rest of the call. Pure: no
 * timers, the caller feeds it.
 */
export class ReorderBuffer<T> {
  private readonly depth: number;
  private readonly maxJump: number;
  private next: number | undefined;
  private held = new Map<number, T>();
  /** Frames far from the expected sequence: noise, or the start of a new sequence. */
  private stray = new Map<number, T>();
  duplicates = 0;
  late = 0;
  lost = 0;
  /** Times the stream followed a jumped or restarted counter. */
  resyncs = 0;

  constructor(opts: ReorderOptions = {}) {
    this.depth = opts.depth ?? REORDER_DEFAULTS.depth;
    this.maxJump = opts.maxJump ?? REORDER_DEFAULTS.maxJump;
  }

  /** Takes frame `seq`; returns the frames now deliverable, in order. */
  push(seq: number, item: T): T[] {
    const out: T[] = [];
    this.take(seq, item, (x) => out.push(x));
    return out;
  }

  /**
   * Takes frame `seq` and hands each frame now deliverable to `deliver`, in order. The frame that
   * is next while nothing is held (every frame of an orderly stream, 50 a second per call) goes
   * straight through: no map, no array.
   */
  take(seq: number, item: T, deliver: (item: T) => void): void {
    if (seq === this.next && this.held.size === 0) {
      if (this.stray.size) this.stray.clear();
      this.next++;
      deliver(item);
      return;
    }
    for (const x of this.place(seq, item)) deliver(x);
  }

  private place(seq: number, item: T): T[] {
    if (this.next === undefined) {
      // The first frames may come out of order too: the stream starts at the lowest of the first few.
      if (this.held.has(seq)) {
        this.duplicates++;
        return [];
      }
      this.held.set(seq, item);
      if (this.held.size <= this.depth) return [];
      this.next = Math.min(...this.held.keys());
      return this.drain();
    }
    if (Math.abs(seq - this.next) > this.maxJump) return this.strayFrame(seq, item);
    // A frame of the current sequence: what was set aside was noise.
    if (this.stray.size) this.stray.clear();
    if (seq < this.next) {
      this.late++;
      return [];
    }
    if (this.held.has(seq)) {
      this.duplicates++;
      return [];
    }
    this.held.set(seq, item);
    return this.drain();
  }

  /** A frame far from the sequence: kept aside until more than `depth` close ones make it the sequence. */
  private strayFrame(seq: number, item: T): T[] {
    if (this.stray.has(seq)) {
      this.duplicates++;
      return [];
    }
    this.stray.set(seq, item);
    const keys = [...this.stray.keys()];
    const lo = Math.min(...keys);
    if (Math.max(...keys) - lo > this.maxJump) {
      // Not one sequence: only the latest frame may start one.
      this.stray = new Map([[seq, item]]);
      return [];
    }
    if (this.stray.size <= this.depth) return [];
    // A new sequence: what the old one still held goes out first, then the new one from its lowest.
    const out = this.flush();
    this.resyncs++;
    this.held = this.stray;
    this.stray = new Map();
    this.next = lo;
    return out.concat(this.drain());
  }

  private drain(): T[] {
    const out: T[] = [];
    for (;;) {
      const ready = this.held.get(this.next!);
      if (ready !== undefined) {
        out.push(ready);
        this.held.delete(this.next!);
        this.next!++;
        continue;
      }
      if (this.held.size <= this.depth) break;
      // The missing frame is given up: the earliest held frame goes next.
      const earliest = Math.min(...this.held.keys());
      this.lost += earliest - this.next!;
      this.next = earliest;
    }
    return out;
  }

  /** Everything still held, in order (at the end of the stream). */
  flush(): T[] {
    const out = [...this.held.entries()].sort((a, b) => a[0] - b[0]).map(([, v]) => v);
    this.held.clear();
    return out;
  }
}

/** Options of the inbound reorder buffer. */
export interface ReorderOptions {
  /**
   * Frames held back waiting for a missing one before giving it up (each about 20 ms, so the
   * default adds at most 60 ms of delay, and only while a frame is missing).
   * @default 3
   */
  depth?: number;
}

export const REORDER_DEFAULTS: Required<ReorderOptions> = { depth: 3 };

/**
 * Puts inbound frames back in sequence order (Telnyx does not guarantee it), drops duplicates
 * and frames older than what was already delivered, and skips a lost frame once `depth` later
 * frames have arrived. Pure: no timers, the caller feeds it.
 */
export class ReorderBuffer<T> {
  private readonly depth: number;
  private next: number | undefined;
  private held = new Map<number, T>();
  duplicates = 0;
  late = 0;
  lost = 0;

  constructor(opts: ReorderOptions = {}) {
    this.depth = opts.depth ?? REORDER_DEFAULTS.depth;
  }

  /** Takes frame `seq`; returns the frames now deliverable, in order. */
  push(seq: number, item: T): T[] {
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

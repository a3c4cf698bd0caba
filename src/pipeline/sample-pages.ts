/**
 * Caller samples kept in pages: each piece is copied in, and nothing per piece stays alive. The
 * STT stage keeps the audio since the caller's last final for a replay after a reconnect, often
 * for seconds; kept as the pieces themselves, every 20 ms frame outlived the young generation and
 * became old-generation garbage that only a full (mark-compact) collection frees, a pause in some
 * call's turn. Pages are few and reused.
 */
export class SamplePages {
  private readonly pages: Int16Array[] = [];
  private spare: Int16Array | undefined;
  /** Sample index (counted from the first sample ever appended) at which `pages[0]` starts. */
  private base = 0;
  /** Sample index after the last one appended. */
  private endIndex = 0;

  constructor(private readonly pageSamples = 16_384) {}

  /** Index after the last sample appended. */
  get end(): number {
    return this.endIndex;
  }

  /** Copies `samples` in; returns the index of their first sample. */
  append(samples: Int16Array): number {
    const start = this.endIndex;
    let from = 0;
    while (from < samples.length) {
      const at = this.endIndex - this.base;
      const page = Math.floor(at / this.pageSamples);
      if (page === this.pages.length) {
        this.pages.push(this.spare ?? new Int16Array(this.pageSamples));
        this.spare = undefined;
      }
      const offset = at % this.pageSamples;
      const n = Math.min(this.pageSamples - offset, samples.length - from);
      this.pages[page]!.set(n === samples.length ? samples : samples.subarray(from, from + n), offset);
      from += n;
      this.endIndex += n;
    }
    return start;
  }

  /** The samples [start, start + length): a view when they lie in one page, else a copy. */
  read(start: number, length: number): Int16Array {
    if (start < this.base || start + length > this.endIndex) throw new RangeError(`samples ${start}–${start + length} are not kept`);
    const at = start - this.base;
    const page = Math.floor(at / this.pageSamples);
    const offset = at % this.pageSamples;
    if (offset + length <= this.pageSamples) return this.pages[page]!.subarray(offset, offset + length);
    const out = new Int16Array(length);
    for (let filled = 0; filled < length; ) {
      const p = Math.floor((at + filled) / this.pageSamples);
      const o = (at + filled) % this.pageSamples;
      const n = Math.min(this.pageSamples - o, length - filled);
      out.set(this.pages[p]!.subarray(o, o + n), filled);
      filled += n;
    }
    return out;
  }

  /** Lets go of the pages that hold only samples before `index` (one is kept to be reused). */
  dropBefore(index: number): void {
    while (this.pages.length && this.base + this.pageSamples <= Math.min(index, this.endIndex)) {
      this.spare = this.pages.shift();
      this.base += this.pageSamples;
    }
  }
}

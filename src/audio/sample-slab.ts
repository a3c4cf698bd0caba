/**
 * Short typed arrays (telephony frames: samples and wire bytes) cut from shared 8 KB buffers. A
 * typed array longer than 64 bytes gets a backing store of its own from the C allocator (calloc,
 * freed later by V8's array-buffer sweeper), and a telephony call decodes 50 caller frames of 320
 * bytes a second and encodes as many agent frames: in a 300-call process, their malloc, free and
 * sweeping were about 3 % of the CPU. A view of a shared buffer costs only the view object. As
 * with Node's Buffer pool, a view kept for long keeps its whole buffer alive, so only pieces of up
 * to a quarter of the buffer are cut from it; longer ones get their own.
 */
export class SampleSlab {
  private slab = new ArrayBuffer(0);
  private used = 0;

  constructor(private readonly bytes = 8192) {}

  /** A zeroed array of `n` samples (a slab's bytes are handed out once, never reused). */
  samples(n: number): Int16Array {
    if (n * 2 > this.bytes >> 2) return new Int16Array(n);
    const at = this.cut(n * 2); // first: it may start a new slab
    return new Int16Array(this.slab, at, n);
  }

  /** A zeroed array of `n` bytes. */
  bytesOf(n: number): Uint8Array {
    if (n > this.bytes >> 2) return new Uint8Array(n);
    const at = this.cut(n);
    return new Uint8Array(this.slab, at, n);
  }

  /** The offset of `size` fresh bytes in `slab` (a new slab when they do not fit). */
  private cut(size: number): number {
    if (this.used + size > this.slab.byteLength) {
      this.slab = new ArrayBuffer(this.bytes);
      this.used = 0;
    }
    const at = this.used;
    // 8-byte steps, as Node's pool: every view starts aligned for any typed array over the same bytes.
    this.used += (size + 7) & ~7;
    return at;
  }
}

/** The process's slab for telephony frames, both ways (one thread: no two take at once). */
export const frameSlab = new SampleSlab();

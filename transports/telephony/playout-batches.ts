/**
 * Bookkeeping for a platform that plays agent audio only in batches (`MediaFormat.playoutBatch`,
 * jambonz's mod_audio_fork): what it was sent waits until a batch is complete, so the output ends
 * each reply with silence enough to complete one (the reply's mark before that silence), and
 * sends a batch of silence just before a clear, so the held part of the interrupted reply goes
 * into the buffer the clear empties. Positions are samples at the wire's rate, never reset.
 */
export class PlayoutBatches {
  private enqueued = 0;
  private sent = 0;
  /** Where the last silence completing a batch ends (in `enqueued`). */
  private batchedTo = 0;
  /** A reply's last sample, still queued before its silence: a mark goes right after it. */
  private markAt = Infinity;

  constructor(
    private readonly batch: { firstMs: number; ms: number },
    private readonly rate: number,
  ) {}

  /** `n` samples were queued. */
  queued(n: number): void {
    this.enqueued += n;
  }

  /** `n` samples went out; true when they end a reply (its mark goes now, before its silence). */
  wentOut(n: number): boolean {
    this.sent += n;
    if (this.sent < this.markAt) return false;
    this.markAt = Infinity;
    return true;
  }

  /**
   * The audio queued so far ends a reply (`queued` samples of it not sent yet): the milliseconds
   * of silence to queue after it, 0 when nothing was queued since the last such silence. Call
   * `completed()` once the silence is queued.
   */
  replyEnd(queued: number): number {
    if (this.enqueued <= this.batchedTo) return 0;
    if (queued > 0) this.markAt = this.enqueued;
    return this.silenceMs(queued);
  }

  /** The silence `replyEnd` asked for is queued. */
  completed(): void {
    this.batchedTo = this.enqueued;
  }

  /** Before a clear: samples of silence to send at once (0 when the platform holds nothing of ours). */
  beforeClear(): number {
    if (this.sent === this.batchedTo) return 0;
    const n = Math.ceil((this.silenceMs(0) / 1000) * this.rate);
    this.sent += n;
    return n;
  }

  /** The queue was dropped: what was sent is played, flushed or cleared. */
  cleared(): void {
    this.batchedTo = this.enqueued = this.sent;
    this.markAt = Infinity;
  }

  /** A whole batch, or what is left of the first one, so it completes whatever part the platform holds. */
  private silenceMs(queued: number): number {
    return Math.max(this.batch.ms, this.batch.firstMs - ((this.sent + queued) / this.rate) * 1000);
  }
}

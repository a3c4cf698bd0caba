/**
 * Bookkeeping for a platform that plays agent audio only in batches (`MediaFormat.playoutBatch`,
 * jambonz's mod_audio_fork): what it was sent waits until a batch is complete, so the output ends
 * each reply with silence enough to complete one (the reply's mark before that silence), and
 * sends a batch of silence just before a clear, so the held part of the interrupted reply goes
 * into the buffer the clear empties. Positions are samples at the wire's rate, never reset.
 *
 * A mark the platform reads is queued behind its playout buffer, not behind what waits in the
 * pre-buffer: it comes back "played" before that held audio is heard (up to a batch, 80 ms; 160 ms
 * in a call's first moments). So a mark counts only up to where the held part begins
 * (`markAt`), and the held part is counted as heard on the clock once both its batch has moved
 * on and the playout has reached it (`heardBy`): it then plays at once, in real time.
 */
export class PlayoutBatches {
  private enqueued = 0;
  private sent = 0;
  /** Where the last silence completing a batch ends (in `enqueued`). */
  private batchedTo = 0;
  /** A reply's last sample, still queued before its silence: a mark goes right after it. */
  private markAt = Infinity;
  /** The platform's pre-buffer: the timeline position its held audio begins at, and its size on the wire. */
  private heldFrom = 0;
  private heldWire = 0;
  private threshold: number;
  /**
   * Held audio a mark was sent behind, by where it begins: up to `to` (the timeline when the mark
   * went), with when its batch moved on and when the playout reached its start (the mark's echo).
   */
  private readonly spans = new Map<number, { to: number; movedAt?: number; reachedAt?: number }>();

  constructor(
    private readonly batch: { firstMs: number; ms: number },
    private readonly rate: number,
  ) {
    this.threshold = this.samples(batch.firstMs);
  }

  /** `n` samples were queued. */
  queued(n: number): void {
    this.enqueued += n;
  }

  /**
   * A frame went out: `n` samples of the timeline in `wire` samples on the wire (a short tail is
   * padded), the timeline at `cursor` after it. True when they end a reply (its mark goes now,
   * before its silence).
   */
  wentOut(n: number, wire = n, cursor = this.sent + n, now = 0): boolean {
    this.sent += n;
    this.heldWire += wire;
    if (this.heldWire >= this.threshold) {
      // The batch is complete: all of the pre-buffer moves to the playout buffer.
      const span = this.spans.get(this.heldFrom);
      if (span) span.movedAt = now;
      this.heldFrom = cursor;
      this.heldWire = 0;
      this.threshold = this.samples(this.batch.ms);
    }
    if (this.sent < this.markAt) return false;
    this.markAt = Infinity;
    return true;
  }

  /** The timeline position a mark sent now (the timeline at `cursor`) will be echoed for. */
  markPosition(cursor: number): number {
    const from = this.heldFrom;
    if (from < cursor) {
      const span = this.spans.get(from);
      if (span) span.to = Math.max(span.to, cursor);
      else this.spans.set(from, { to: cursor });
    }
    return from;
  }

  /** The echo of a mark at `position` came back at `now`: the playout has reached it. */
  reached(position: number, now: number): void {
    const span = this.spans.get(position);
    if (span) span.reachedAt ??= now;
  }

  /**
   * How far held audio has played by `now` (its batch moved, its start reached: real time from
   * then); 0 when none has. Spans the timeline has passed (`played`, a later mark's echo) are dropped.
   */
  heardBy(now: number, played: number): number {
    let heard = 0;
    for (const [from, s] of this.spans) {
      if (s.to <= played) this.spans.delete(from);
      if (s.to <= played || s.movedAt === undefined || s.reachedAt === undefined) continue;
      const at = Math.min(s.to, from + Math.floor(((now - Math.max(s.movedAt, s.reachedAt)) / 1000) * this.rate));
      heard = Math.max(heard, at);
      if (at >= s.to) this.spans.delete(from);
    }
    return heard;
  }

  /** When held audio that is playing will have played to its end (for a timer), or undefined. */
  nextDue(): number | undefined {
    let due: number | undefined;
    for (const [from, s] of this.spans) {
      if (s.movedAt === undefined || s.reachedAt === undefined) continue;
      const end = Math.max(s.movedAt, s.reachedAt) + ((s.to - from) / this.rate) * 1000;
      due = Math.min(due ?? end, end);
    }
    return due;
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

  /**
   * The queue was dropped: what was sent is played, flushed or cleared; the timeline goes on from
   * `cursor` (where the caller stopped hearing). The silence of `beforeClear` completed the batch.
   */
  cleared(cursor = this.sent): void {
    this.batchedTo = this.enqueued = this.sent;
    this.markAt = Infinity;
    this.spans.clear();
    this.heldFrom = cursor;
    if (this.heldWire) this.threshold = this.samples(this.batch.ms);
    this.heldWire = 0;
  }

  /** A whole batch, or what is left of the first one, so it completes whatever part the platform holds. */
  private silenceMs(queued: number): number {
    return Math.max(this.batch.ms, this.batch.firstMs - ((this.sent + queued) / this.rate) * 1000);
  }

  private samples(ms: number): number {
    return Math.round((ms / 1000) * this.rate);
  }
}

/**
 * What a barge-in on the Twilio route left on the wire, as the caller saw it (bench/telephony-callers.ts),
 * and which of the barge-in bench's two figures it belongs to (bench/bargein.ts):
 *
 * - **during the reply**: the caller spoke while agent audio was still to be sent. Its figure is
 *   speech start (S, the capture start of the first speech frame) → the last agent media the
 *   caller read before the `clear`: how much of the reply still reached the caller after it
 *   spoke (the platform's own buffer aside). Media read between S and the moment the first speech
 *   frame left (S + 20 ms of capture) count: they reached the caller after it started speaking.
 * - **after the last byte**: the reply's last byte had reached the caller before S and the server
 *   had nothing left to send; there was nothing on the wire to stop, only what the platform still
 *   plays from its buffer, which the `clear` drops. Its figure is S → the caller reads the `clear`.
 *
 * The figure of before counted media only from the moment the first speech frame left: a barge-in
 * whose last agent media came in those 20 ms and none after read 0, so on a quiet machine (the
 * clear back within a few ms) most barge-ins read 0 while the reply was still flowing. Pure: times
 * are given, so tests need no clock.
 */

/** One barge-in as the caller saw it (epoch ms). */
export interface CallerBarge {
  call: string;
  /** Capture start of the first speech frame. */
  speechStart: number;
  /** When that frame was written to the socket (its capture ends 20 ms after `speechStart`). */
  sentAt: number;
  /** The last agent media read at or before `speechStart` (within the last second), if any. */
  lastBefore: number | undefined;
  /** The last agent media read after `speechStart` and before the clear, if any. */
  lastMedia: number | undefined;
  /** Agent media read after `speechStart` and before the clear… */
  mediaAfter: number;
  /** …of them, read before the first speech frame left (`sentAt`): the figure of before missed these. */
  mediaBeforeSent: number;
  /** When the clear was read. */
  clearAt: number;
}

/** How long recent media arrivals are kept: a barge-in only looks back to its speech start. */
const KEEP_MS = 1000;

/** One caller's barge-in bookkeeping: agent media read, speech started, clear read. */
export class BargeWire {
  /** Arrival times of the agent media of the last `KEEP_MS`. */
  private recent: number[] = [];
  private open: Omit<CallerBarge, 'call' | 'clearAt'> | undefined;

  constructor(private readonly call: string) {}

  /** A barge-in is waiting for its clear. */
  get active(): boolean {
    return this.open !== undefined;
  }

  /** An agent media message was read at `now`. */
  media(now: number): void {
    this.recent.push(now);
    let drop = 0;
    while (drop < this.recent.length && this.recent[drop]! < now - KEEP_MS) drop++;
    if (drop) this.recent.splice(0, drop);
    if (this.open) {
      this.open.lastMedia = now;
      this.open.mediaAfter++;
    }
  }

  /** The caller's speech started at `speechStart` (capture start); its first frame leaves at `sentAt`. */
  speak(speechStart: number, sentAt: number): void {
    const after = this.recent.filter((t) => t > speechStart);
    const before = this.recent.filter((t) => t <= speechStart);
    this.open = { speechStart, sentAt, lastBefore: before.at(-1), lastMedia: after.at(-1), mediaAfter: after.length, mediaBeforeSent: after.length };
  }

  /** The clear was read at `now`: the barge-in, if one was waiting for it. */
  clear(now: number): CallerBarge | undefined {
    const b = this.open;
    this.open = undefined;
    return b && { call: this.call, ...b, clearAt: now };
  }

  /** Gives up on a barge-in without a clear `ms` after its speech start; true if one was dropped. */
  expire(now: number, ms: number): boolean {
    if (!this.open || now - this.open.speechStart <= ms) return false;
    this.open = undefined;
    return true;
  }
}

/** The server's side of a barge-in: agent audio the output still had to send when the session interrupted it. */
export interface ServerInterrupt {
  /** When the output was interrupted (epoch ms). */
  at: number;
  /** Agent audio written to the output and not yet sent (ms). */
  unsentMs: number;
  /**
   * When the output last wrote agent media to the call's socket before the interrupt (epoch ms),
   * if it had: the same moment as the caller's read, less the loopback and the callers' own loop.
   */
  lastWrite?: number;
}

/** Which figure a barge-in belongs to, and its value there (ms). */
export interface BargeFigure {
  kind: 'during' | 'after';
  ms: number;
  /** Decided from the caller's reads alone (no server stamp matched). */
  callerOnly: boolean;
  /** The figure of before: media read only after the first speech frame left (for the record of the change). */
  legacyMs: number;
  /**
   * During the reply, the same figure from the server's side: speech start → its last agent media
   * write before the interrupt (0 when that write came before speech start). The caller's reads
   * add its own loop's delay to every read; this stamp is the socket write itself. Undefined
   * after the last byte, or without the server's stamp.
   */
  serverMs: number | undefined;
}

/**
 * A barge-in is during the reply when agent media reached the caller after it spoke, or when the
 * server still had agent audio to send at the interrupt (a late server sends nothing for a
 * while: that is still a barge-in into a reply, its wire figure 0); after the last byte otherwise.
 */
export function bargeFigure(b: CallerBarge, server?: ServerInterrupt): BargeFigure {
  const during = b.mediaAfter > 0 || (server !== undefined && server.unsentMs > 0);
  const legacyMs = b.mediaAfter > b.mediaBeforeSent && b.lastMedia !== undefined ? Math.max(0, b.lastMedia - b.speechStart) : 0;
  return {
    kind: during ? 'during' : 'after',
    ms: during ? Math.max(0, (b.lastMedia ?? b.speechStart) - b.speechStart) : Math.max(0, b.clearAt - b.speechStart),
    callerOnly: server === undefined,
    legacyMs,
    serverMs: during && server?.lastWrite !== undefined ? Math.max(0, server.lastWrite - b.speechStart) : undefined,
  };
}

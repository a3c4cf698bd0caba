/**
 * How caller audio is cut into /listen messages. Every message is a WebSocket frame and a socket
 * write, so 20 ms telephony frames each sent alone cost a write per 20 ms per call; gathered into
 * `chunkMs` messages they cost one per `chunkMs`. Gathering delays what the service hears, which
 * matters only at the moments the service acts on: the start of speech (SpeechStarted, barge-in),
 * the end of speech (the first quiet audio, from which the service's endpointing window runs) and
 * the end of that window. So a piece whose level crosses `speechLevel` (quiet → loud or loud →
 * quiet) goes out at once with what was gathered before it, and so does the piece that completes
 * `endpointingMs` of quiet after speech; in between (steady speech, steady silence) audio is
 * gathered to `chunkMs`. Once that window is complete, or the service says the turn ended
 * (`settle()`), or before the caller has said anything, the service has nothing left to decide
 * until speech starts again, and that start is an edge sent at once; so this settled quiet (most
 * of a call: the caller listening) is gathered to the longer `quietChunkMs`. No timers: audio
 * arrives in real time, so a message is sent by the arrival of the piece that fills it.
 */

/** Options of the uplink's message cutting (see `UPLINK_DEFAULTS`). */
export interface UplinkOptions {
  /** Message length in steady speech or silence, 0 to send each piece as given. */
  chunkMs: number;
  /**
   * Message length in settled quiet: before the first speech, and after speech once the
   * endpointing window is complete (`QUIET_AFTER_SPEECH_MS` when the window is not known). Never
   * shorter than `chunkMs`.
   */
  quietChunkMs: number;
  /** Mean absolute sample (PCM16) above which a piece is speech, for the flushes at its edges. */
  speechLevel: number;
  /** The server's endpointing window, if set: the piece that completes it after speech is sent at once. */
  endpointingMs?: number;
}

/**
 * 100 ms messages (the service's clients send 50–100 ms; the protocol takes 20–200), 200 ms in
 * settled quiet (half the writes while the caller listens), and a piece is speech above a mean
 * absolute sample of 250 (about −42 dBFS: phone line noise sits below, speech well above).
 */
export const UPLINK_DEFAULTS: UplinkOptions = { chunkMs: 100, quietChunkMs: 200, speechLevel: 250 };

/** The protocol's longest audio message. */
export const MAX_UPLINK_MS = 200;

/** Quiet after speech that counts as settled when the endpointing window is not known: the protocol's longest window. */
export const QUIET_AFTER_SPEECH_MS = 5000;

/** Mean absolute sample of a PCM16 piece, on every 2nd sample (enough for a level, half the reads). */
export function meanLevel(pcm: Int16Array): number {
  let sum = 0;
  for (let i = 0; i < pcm.length; i += 2) sum += Math.abs(pcm[i]!);
  return pcm.length ? sum / Math.ceil(pcm.length / 2) : 0;
}

/**
 * Gathers PCM16 pieces into messages and hands each to `send` (a Uint8Array the caller may keep:
 * a fresh copy, or the piece itself when it is sent alone). `flush()` sends what is gathered
 * (before CloseStream, or when the socket closes).
 */
export class UplinkBatcher {
  private readonly pending: Uint8Array;
  /** The same bytes as samples: whole pieces are copied in without a view of each. */
  private readonly pendingSamples: Int16Array;
  private pendingBytes = 0;
  private loud = false;
  /** Quiet bytes since the last speech, counted up to the endpointing window (-1: not counting). */
  private quietBytes = -1;
  private readonly windowBytes: number;
  /** Message sizes in bytes: in speech and unsettled quiet, and in settled quiet. */
  private readonly chunkBytes: number;
  private readonly quietChunkBytes: number;
  /** Settled quiet: nothing said yet, or the window after speech is complete. */
  private settled = true;

  constructor(
    sampleRate: number,
    private readonly o: UplinkOptions,
    private readonly send: (message: Uint8Array) => void,
  ) {
    if (!(o.chunkMs >= 0 && o.chunkMs <= MAX_UPLINK_MS)) throw new RangeError(`uplinkFrameMs must be from 0 to ${MAX_UPLINK_MS} ms, not ${o.chunkMs}`);
    if (!(o.quietChunkMs >= 0 && o.quietChunkMs <= MAX_UPLINK_MS)) throw new RangeError(`uplinkQuietFrameMs must be from 0 to ${MAX_UPLINK_MS} ms, not ${o.quietChunkMs}`);
    const bytes = (ms: number) => Math.round((sampleRate * ms) / 1000) * 2;
    this.chunkBytes = bytes(o.chunkMs);
    this.quietChunkBytes = o.chunkMs ? Math.max(this.chunkBytes, bytes(o.quietChunkMs)) : 0;
    this.pending = new Uint8Array(this.quietChunkBytes);
    this.pendingSamples = new Int16Array(this.pending.buffer);
    this.windowBytes = bytes(o.endpointingMs || QUIET_AFTER_SPEECH_MS);
  }

  /** Bytes gathered and not yet sent. */
  get buffered(): number {
    return this.pendingBytes;
  }

  /** The next piece of audio (whole PCM16 samples). */
  push(pcm: Int16Array): void {
    if (!this.chunkBytes) return this.send(pcm as unknown as Uint8Array);
    const loud = meanLevel(pcm) > this.o.speechLevel;
    // An edge of speech: what was gathered and this piece go now.
    let now = loud !== this.loud;
    if (loud) {
      this.quietBytes = -1;
      this.settled = false;
    } else if (this.loud) this.quietBytes = 0;
    this.loud = loud;
    if (!loud && this.quietBytes >= 0) {
      this.quietBytes += pcm.byteLength;
      // The piece that completes the server's endpointing window after speech; quiet from here on is settled.
      if (this.quietBytes >= this.windowBytes) {
        if (this.o.endpointingMs) now = true;
        this.quietBytes = -1;
        this.settled = true;
      }
    }
    // A piece sent at once goes with all that was gathered (up to the buffer, the longest message).
    const size = now ? this.pending.byteLength : this.settled ? this.quietChunkBytes : this.chunkBytes;
    // The common case (a 20 ms frame into a 100 ms message): one copy, nothing allocated.
    const alone = !this.pendingBytes && (now || pcm.byteLength >= size);
    if (!alone && pcm.byteLength <= size - this.pendingBytes) {
      this.pendingSamples.set(pcm, this.pendingBytes >> 1);
      this.pendingBytes += pcm.byteLength;
      if (now || this.pendingBytes === size) this.flush();
      return;
    }
    const bytes = new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength);
    if (alone) return this.send(bytes);
    let from = 0;
    while (from < bytes.byteLength) {
      const n = Math.min(size - this.pendingBytes, bytes.byteLength - from);
      this.pending.set(bytes.subarray(from, from + n), this.pendingBytes);
      this.pendingBytes += n;
      from += n;
      if (this.pendingBytes === size) this.flush();
    }
    if (now) this.flush();
  }

  /**
   * The service ended the caller's turn (its speech_final, or UtteranceEnd): the quiet that
   * follows is settled even before the window this batcher knows of (or when it knows none).
   */
  settle(): void {
    if (this.loud) return;
    this.quietBytes = -1;
    this.settled = true;
  }

  /** Sends what is gathered, if anything. */
  flush(): void {
    if (!this.pendingBytes) return;
    // A copy: the socket may hold (and, masking, rewrite) the message until it is written.
    const message = this.pending.slice(0, this.pendingBytes);
    this.pendingBytes = 0;
    this.send(message);
  }

  /** Drops what is gathered (the socket is gone). */
  clear(): void {
    this.pendingBytes = 0;
  }
}

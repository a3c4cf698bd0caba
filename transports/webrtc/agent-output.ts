import type { Observable } from '../../src/rx.ts';
import { Fanout } from '../../src/fanout.ts';
import type { AudioFrame } from '../../src/audio/frame.ts';
import { PlayoutMarks } from '../../src/transport/playout-marks.ts';
import type { PlaybackUpdate, TransportOutput } from '../../src/transport/types.ts';
import type { PacketClock, Tick } from './packet-clock.ts';
import { createOpusCodec, type OpusCodec } from './opus.ts';

/** Opus on the wire: always a 48 kHz RTP clock; we send mono 20 ms frames. */
export const OPUS_RATE = 48_000;

/** Rates the Opus encoder takes without a resampler of ours. */
export type OpusInputRate = 8000 | 12000 | 16000 | 24000 | 48000;

export interface AgentOutputOptions {
  /**
   * Rate the output takes agent audio at. Opus always runs a 48 kHz RTP clock and the far end
   * always decodes at 48 kHz; the encoder takes 24 kHz (the TTS socket's rate) natively, which
   * costs about a sixth of the CPU of resampling to 48 kHz first (bench/webrtc-density.ts) and
   * carries the same audio (a 24 kHz voice has nothing above 12 kHz). 48000: the session's
   * `ResamplingOutput` converts TTS audio to 48 kHz before Opus.
   * @default 24000
   */
  sampleRate?: OpusInputRate;
  /** Opus target bitrate in bits per second. @default 32000 */
  bitrate?: number;
  /**
   * Opus encoder complexity, 0-10. At 7 and above libopus runs a signal analysis that costs most
   * of its time on speech: 0.31 ms of CPU a 20 ms frame at libopus's default 10 (1.5 % of a core
   * per talking agent, the largest cost of a web call in the server), 0.07 ms at 6, with packets
   * of about the same size and a waveform SNR within 1 dB (`npx tsx bench/opus-cost.ts`).
   * @default 6
   */
  complexity?: number;
  /** RTP payload type of the agent's producer. @default 100 */
  payloadType?: number;
  /** SSRC of the agent's stream. @default random */
  ssrc?: number;
}

export const AGENT_OUTPUT_DEFAULTS = { sampleRate: 24_000, bitrate: 32_000, complexity: 6, payloadType: 100 } as const;

/** libopus encoder request: OPUS_SET_COMPLEXITY. */
const OPUS_SET_COMPLEXITY = 4010;
/** Largest Opus packet we send (RFC 6716 allows 1275 bytes a frame). */
const MAX_OPUS_PACKET = 1275;
const RTP_HEADER = 12;

/** Counters for tests and the density bench. */
export interface AgentOutputStats {
  packets: number;
  /** Packets that left more than the clock's `lateAfterMs` past their tick's due time. */
  latePackets: number;
  /** The latest a packet left past its due time, in milliseconds. */
  maxLateMs: number;
  /** Packets dropped, never sent, by `interrupt()`. */
  dropped: number;
  talkspurts: number;
}

/**
 * The agent's voice as Opus RTP. It takes audio at `sampleRate` (the session's `ResamplingOutput`
 * converts anything else at the edge) into a queue; on each tick of the shared packet clock it
 * sends the next 20 ms, Opus-encoded, with the tick's timestamp, a running sequence number, and
 * the marker bit on the first packet of each talkspurt. Nothing is sent in silence (the
 * timestamps still advance with the clock). The played position is what has left on the clock:
 * no WebRTC peer acknowledges audio.
 *
 * Encoding one frame at a time spreads the encoder's work evenly over the clock (a long TTS chunk
 * does not stall the event loop for every other call) and wastes at most one frame on audio a
 * barge-in drops. The frame is encoded one tick ahead, in the clock's prepare phase, once every
 * call has sent: a tick only sends packets ready before it, so the last call's packet does not
 * leave after every other call's encoder (the first packet of a talkspurt has nothing ready and
 * is encoded on its tick). The frame and the packet are written into buffers made once per
 * call: a packet handed to `send` is valid only during that call (mediasoup copies it at once).
 */
export class AgentOutput implements TransportOutput {
  readonly sampleRate: OpusInputRate;
  private readonly encoder: OpusCodec;
  /** Samples of one frame at the input rate, and RTP timestamp units (48 kHz) per frame. */
  private readonly frameSamples: number;
  private readonly frameTicks: number;
  private readonly playbackSubject = new Fanout<PlaybackUpdate>();
  readonly playback$: Observable<PlaybackUpdate> = this.playbackSubject.observable;
  private readonly unsubscribe: () => void;
  private readonly startIndex: number;
  private readonly timestampBase: number;
  private readonly ssrc: number;
  /** Audio not sent yet: chunks as written, the first one read from `headOffset`. */
  private queue: Int16Array[] = [];
  private headOffset = 0;
  private queuedSamples = 0;
  /** One frame of PCM and the bytes the encoder reads it through. */
  private readonly frame: Int16Array;
  private readonly frameBytes: Buffer;
  /** The next tick's Opus payload, encoded ahead (its audio has left the queue). */
  private ready: Buffer | undefined;
  /** One RTP packet: the fixed header fields are written once. */
  private readonly packet = Buffer.alloc(RTP_HEADER + MAX_OPUS_PACKET);
  /** Seconds written, and seconds sent (in whole packets). */
  private written = 0;
  private sentSeconds = 0;
  private seq: number;
  private lastSentTick = -2;
  private readonly marks = new PlayoutMarks(1e-6);
  private closed = false;
  readonly stats: AgentOutputStats = { packets: 0, latePackets: 0, maxLateMs: 0, dropped: 0, talkspurts: 0 };

  /** `send` gets each RTP packet; the buffer is reused for the next one, so copy it to keep it. */
  constructor(
    private readonly send: (rtp: Buffer) => void,
    private readonly clock: PacketClock,
    opts: AgentOutputOptions = {},
  ) {
    this.sampleRate = opts.sampleRate ?? AGENT_OUTPUT_DEFAULTS.sampleRate;
    this.frameSamples = (this.sampleRate * clock.frameMs) / 1000;
    this.frameTicks = (OPUS_RATE * clock.frameMs) / 1000;
    this.frame = new Int16Array(this.frameSamples);
    this.frameBytes = Buffer.from(this.frame.buffer, 0, this.frame.byteLength);
    this.ssrc = opts.ssrc ?? randomUint32();
    this.packet[0] = 0x80; // version 2, no padding, no extension, no CSRC
    this.packet[1] = (opts.payloadType ?? AGENT_OUTPUT_DEFAULTS.payloadType) & 0x7f;
    this.packet.writeUInt32BE(this.ssrc >>> 0, 8);
    this.seq = randomUint32() & 0xffff;
    this.timestampBase = randomUint32();
    this.encoder = createOpusCodec(this.sampleRate, 1);
    this.encoder.setBitrate(opts.bitrate ?? AGENT_OUTPUT_DEFAULTS.bitrate);
    this.encoder.applyEncoderCTL(OPUS_SET_COMPLEXITY, opts.complexity ?? AGENT_OUTPUT_DEFAULTS.complexity);
    this.startIndex = clock.current;
    this.unsubscribe = clock.subscribe(
      (t) => this.onTick(t),
      () => this.prepare(),
    );
  }

  get rtpSsrc(): number {
    return this.ssrc;
  }

  write(frame: AudioFrame): void {
    if (this.closed) return;
    if (frame.sampleRate !== this.sampleRate) throw new Error(`WebRTC output expects ${this.sampleRate} Hz audio, got ${frame.sampleRate} Hz`);
    // A copy: whoever wrote the frame may reuse its buffer.
    this.enqueue(frame.samples.slice());
  }

  /** Queues samples at `sampleRate` that the output may keep as they are (nobody else holds them). */
  enqueue(samples: Int16Array): void {
    if (this.closed || !samples.length) return;
    this.written += samples.length / this.sampleRate;
    this.queue.push(samples);
    this.queuedSamples += samples.length;
    this.pushUpdate();
  }

  /** Moves the next frame's samples into `frame` (a short tail padded with silence). */
  private takeFrame(): void {
    let filled = 0;
    while (filled < this.frameSamples && this.queue.length) {
      const head = this.queue[0]!;
      const n = Math.min(this.frameSamples - filled, head.length - this.headOffset);
      // A plain loop: no subarray view per packet.
      for (let i = 0; i < n; i++) this.frame[filled + i] = head[this.headOffset + i]!;
      filled += n;
      this.headOffset += n;
      if (this.headOffset === head.length) {
        this.queue.shift();
        this.headOffset = 0;
      }
    }
    this.frame.fill(0, filled);
    this.queuedSamples -= filled;
  }

  private encodeNext(): Buffer {
    this.takeFrame();
    return this.encoder.encode(this.frameBytes);
  }

  /** The clock's prepare phase: the next tick's packet, encoded once every call has sent. */
  private prepare(): void {
    if (!this.ready && this.queuedSamples && !this.closed) this.ready = this.encodeNext();
  }

  private onTick(tick: Tick): void {
    let payload = this.ready;
    this.ready = undefined;
    if (!payload) {
      if (!this.queuedSamples) return;
      payload = this.encodeNext();
    }
    const marker = this.lastSentTick !== tick.index - 1;
    if (marker) this.stats.talkspurts++;
    this.lastSentTick = tick.index;
    const p = this.packet;
    p[1] = (marker ? 0x80 : 0) | (p[1]! & 0x7f);
    p.writeUInt16BE(this.seq, 2);
    p.writeUInt32BE((this.timestampBase + (tick.index - this.startIndex) * this.frameTicks) >>> 0, 4);
    payload.copy(p, RTP_HEADER);
    this.send(p.subarray(0, RTP_HEADER + payload.length));
    this.seq = (this.seq + 1) & 0xffff;
    this.stats.packets++;
    // Late is measured when the packet leaves, after whatever ran before it on this tick.
    const lateMs = this.clock.lateness(tick);
    if (lateMs > this.clock.lateAfterMs) this.stats.latePackets++;
    if (lateMs > this.stats.maxLateMs) this.stats.maxLateMs = lateMs;
    this.sentSeconds += this.clock.frameMs / 1000;
    this.resolveMarks();
    this.pushUpdate();
  }

  private queuedSeconds(): number {
    return this.queuedSamples / this.sampleRate + (this.ready ? this.clock.frameMs / 1000 : 0);
  }

  private resolveMarks(): void {
    // A mark is due once the audio before it has left (an empty queue settles it too).
    this.marks.settle(this.sentSeconds, !this.queuedSamples && !this.ready);
  }

  private pushUpdate(): void {
    if (this.closed) return;
    this.playbackSubject.next({ sent: this.sentSeconds, played: this.sentSeconds, queued: this.queuedSeconds(), at: Date.now() });
  }

  mark(_id: string): Promise<void> {
    const placed = this.marks.add(this.sentSeconds + this.queuedSeconds());
    this.resolveMarks();
    return placed;
  }

  /** Barge-in: all queued audio is dropped now; the next packet starts a new talkspurt. */
  async interrupt(): Promise<number> {
    this.stats.dropped += Math.ceil(this.queuedSamples / this.frameSamples) + (this.ready ? 1 : 0);
    this.ready = undefined;
    this.queue = [];
    this.headOffset = 0;
    this.queuedSamples = 0;
    this.lastSentTick = -2;
    this.marks.releaseAll();
    this.pushUpdate();
    return this.position();
  }

  position(): number {
    return this.sentSeconds;
  }

  /** Seconds of agent audio written so far. */
  get writtenSeconds(): number {
    return this.written;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.interrupt();
    this.closed = true;
    this.unsubscribe();
    this.playbackSubject.complete();
  }
}

const randomUint32 = () => (Math.random() * 0x1_0000_0000) >>> 0;

import { Subject, type Observable } from 'rxjs';
import type { AudioFrame } from '../../src/audio/frame.ts';
import type { PlaybackUpdate, TransportOutput } from '../../src/transport/types.ts';
import type { PacketClock, Tick } from './packet-clock.ts';
import { OpusCodec } from './opus.ts';
import { buildRtp } from './rtp.ts';

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
  /** RTP payload type of the agent's producer. @default 100 */
  payloadType?: number;
  /** SSRC of the agent's stream. @default random */
  ssrc?: number;
}

export const AGENT_OUTPUT_DEFAULTS = { sampleRate: 24_000, bitrate: 32_000, payloadType: 100 } as const;

interface Mark {
  at: number;
  resolve: () => void;
}

/** Counters for tests and the density bench. */
export interface AgentOutputStats {
  packets: number;
  /** Packets sent on a tick that ran late (see `PacketClock`). */
  latePackets: number;
  /** Packets dropped, never sent, by `interrupt()`. */
  dropped: number;
  talkspurts: number;
}

/**
 * The agent's voice as Opus RTP. It takes audio at `sampleRate` (the session's `ResamplingOutput`
 * converts anything else at the edge), cuts it into 20 ms frames and encodes them at once into a
 * queue of packets; the shared packet clock sends one per tick with the
 * tick's timestamp, a running sequence number, and the marker bit on the first packet of each
 * talkspurt. Nothing is sent in silence (the timestamps still advance with the clock). The
 * played position is what has left on the clock: no WebRTC peer acknowledges audio.
 */
export class AgentOutput implements TransportOutput {
  readonly sampleRate: OpusInputRate;
  private readonly encoder: OpusCodec;
  /** Samples of one frame at the input rate, and RTP timestamp units (48 kHz) per frame. */
  private readonly frameSamples: number;
  private readonly frameTicks: number;
  private readonly payloadType: number;
  private readonly ssrc: number;
  private readonly playbackSubject = new Subject<PlaybackUpdate>();
  readonly playback$: Observable<PlaybackUpdate> = this.playbackSubject.asObservable();
  private readonly unsubscribe: () => void;
  private readonly startIndex: number;
  private readonly timestampBase: number;
  private packets: Buffer[] = [];
  /** 48 kHz samples waiting for a whole frame. */
  private pending = new Int16Array(0);
  /** Seconds written, and seconds sent (in whole packets). */
  private written = 0;
  private sentSeconds = 0;
  private seq: number;
  private lastSentTick = -2;
  private marks: Mark[] = [];
  private closed = false;
  readonly stats: AgentOutputStats = { packets: 0, latePackets: 0, dropped: 0, talkspurts: 0 };

  constructor(
    private readonly send: (rtp: Buffer) => void,
    private readonly clock: PacketClock,
    opts: AgentOutputOptions = {},
  ) {
    this.sampleRate = opts.sampleRate ?? AGENT_OUTPUT_DEFAULTS.sampleRate;
    this.frameSamples = (this.sampleRate * clock.frameMs) / 1000;
    this.frameTicks = (OPUS_RATE * clock.frameMs) / 1000;
    this.payloadType = opts.payloadType ?? AGENT_OUTPUT_DEFAULTS.payloadType;
    this.ssrc = opts.ssrc ?? randomUint32();
    this.seq = randomUint32() & 0xffff;
    this.timestampBase = randomUint32();
    this.encoder = new OpusCodec(this.sampleRate, 1);
    this.encoder.setBitrate(opts.bitrate ?? AGENT_OUTPUT_DEFAULTS.bitrate);
    this.startIndex = clock.current;
    this.unsubscribe = clock.subscribe((t) => this.onTick(t));
  }

  get rtpSsrc(): number {
    return this.ssrc;
  }

  write(frame: AudioFrame): void {
    if (this.closed) return;
    if (frame.sampleRate !== this.sampleRate) throw new Error(`WebRTC output expects ${this.sampleRate} Hz audio, got ${frame.sampleRate} Hz`);
    this.written += frame.samples.length / this.sampleRate;
    this.encodeWhole(frame.samples);
    this.pushUpdate();
  }

  private encodeWhole(samples: Int16Array): void {
    if (!samples.length) return;
    const all = new Int16Array(this.pending.length + samples.length);
    all.set(this.pending);
    all.set(samples, this.pending.length);
    let off = 0;
    for (; off + this.frameSamples <= all.length; off += this.frameSamples) this.packets.push(this.encode(all.subarray(off, off + this.frameSamples)));
    this.pending = all.slice(off);
  }

  private encode(frame: Int16Array): Buffer {
    return this.encoder.encode(Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength));
  }

  /** The end of a talkspurt: the last partial frame, padded with silence. */
  private flushTail(): void {
    if (this.pending.length) {
      const last = new Int16Array(this.frameSamples);
      last.set(this.pending);
      this.pending = new Int16Array(0);
      this.packets.push(this.encode(last));
    }
  }

  private onTick(tick: Tick): void {
    if (!this.packets.length && this.pending.length) this.flushTail();
    const payload = this.packets.shift();
    if (!payload) return;
    const marker = this.lastSentTick !== tick.index - 1;
    if (marker) this.stats.talkspurts++;
    this.lastSentTick = tick.index;
    const timestamp = (this.timestampBase + (tick.index - this.startIndex) * this.frameTicks) >>> 0;
    this.send(buildRtp({ payloadType: this.payloadType, sequenceNumber: this.seq, timestamp, ssrc: this.ssrc, marker }, payload));
    this.seq = (this.seq + 1) & 0xffff;
    this.stats.packets++;
    if (tick.lateMs > this.clock.lateAfterMs) this.stats.latePackets++;
    this.sentSeconds += this.clock.frameMs / 1000;
    this.resolveMarks();
    this.pushUpdate();
  }

  private queuedSeconds(): number {
    return (this.packets.length * this.frameSamples + this.pending.length) / this.sampleRate;
  }

  private drained(): boolean {
    return !this.packets.length && !this.pending.length;
  }

  private resolveMarks(): void {
    if (!this.marks.length) return;
    const drained = this.drained();
    // A mark is due once the audio before it has left (an empty queue settles it too).
    const ready = this.marks.filter((m) => drained || m.at <= this.sentSeconds + 1e-6);
    if (!ready.length) return;
    this.marks = this.marks.filter((m) => !ready.includes(m));
    for (const m of ready) m.resolve();
  }

  private pushUpdate(): void {
    if (this.closed) return;
    this.playbackSubject.next({ sent: this.sentSeconds, played: this.sentSeconds, queued: this.queuedSeconds(), at: Date.now() });
  }

  mark(_id: string): Promise<void> {
    return new Promise((resolve) => {
      this.marks.push({ at: this.sentSeconds + this.queuedSeconds(), resolve });
      this.resolveMarks();
    });
  }

  /** Barge-in: every queued packet is dropped now; the next packet starts a new talkspurt. */
  async interrupt(): Promise<number> {
    this.stats.dropped += this.packets.length;
    this.packets = [];
    this.pending = new Int16Array(0);
    this.lastSentTick = -2;
    for (const m of this.marks) m.resolve();
    this.marks = [];
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

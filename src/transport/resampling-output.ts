import type { Observable } from 'rxjs';
import type { AudioFrame } from '../audio/frame.ts';
import { createResampler, type StreamResampler } from '../audio/resample.ts';
import type { PlaybackUpdate, TransportOutput } from './types.ts';

const MAX_RATE = 384_000;
/** Zeros pushed through a resampler at a mark, enough to bring out the filter's held-back tail. */
const FLUSH_MS = 10;

/**
 * Wraps a transport's output so that agent audio at any rate (24 kHz from the TTS socket,
 * 48 kHz over HTTP…) is converted to the transport's rate at the edge. One streaming
 * resampler per source rate keeps its filter state across frames. Resamplers are made
 * asynchronously (WebAssembly); `prepare(rate)` makes one ahead of time, and until it is ready
 * frames wait in order, so the only cost of a surprise rate is a few milliseconds once.
 */
export class ResamplingOutput implements TransportOutput {
  private readonly ready = new Map<number, StreamResampler>();
  private readonly making = new Map<number, Promise<StreamResampler>>();
  private chain: Promise<void> = Promise.resolve();
  private waiting = 0;
  private generation = 0;
  private dirty = new Set<number>();
  private failure: Error | undefined;
  private lastTime = 0;

  /**
   * @param onWrite sees each frame as it goes to the transport, at its rate (the energy detector
   *   hears the agent's echo by it)
   */
  constructor(
    readonly inner: TransportOutput,
    private readonly onWrite?: (frame: AudioFrame) => void,
  ) {}

  /** The transport's rate; `write` takes frames at any rate. */
  get sampleRate(): number {
    return this.inner.sampleRate;
  }

  get playback$(): Observable<PlaybackUpdate> {
    return this.inner.playback$;
  }

  /** Makes the resampler for `rate` now, so the first frame at that rate does not wait. */
  async prepare(rate: number): Promise<void> {
    if (rate !== this.sampleRate) await this.resamplerFor(rate);
  }

  private resamplerFor(rate: number): Promise<StreamResampler> {
    let p = this.making.get(rate);
    if (!p) {
      p = createResampler(rate, this.sampleRate).then((r) => {
        this.ready.set(rate, r);
        return r;
      });
      this.making.set(rate, p);
    }
    return p;
  }

  write(frame: AudioFrame): void {
    if (this.failure) throw this.failure;
    const rate = frame.sampleRate;
    if (!Number.isInteger(rate) || rate <= 0 || rate > MAX_RATE) throw new Error(`agent audio has an invalid sample rate: ${rate}`);
    if (!this.waiting && (rate === this.sampleRate || this.ready.has(rate))) return this.forward(frame);
    // Order is kept: this frame and every later one wait for the resampler being made.
    const gen = this.generation;
    this.waiting++;
    this.chain = this.chain
      .then(async () => {
        if (rate !== this.sampleRate) await this.resamplerFor(rate);
        if (gen === this.generation) this.forward(frame);
      })
      .catch((err: Error) => {
        this.failure = new Error(`agent audio at ${rate} Hz cannot be converted: ${err.message}`);
      })
      .finally(() => this.waiting--);
  }

  private forward(frame: AudioFrame): void {
    if (frame.sampleRate === this.sampleRate) return this.send(frame);
    const samples = this.ready.get(frame.sampleRate)!.push(frame.samples);
    this.dirty.add(frame.sampleRate);
    this.lastTime = frame.time;
    if (samples.length) this.send({ samples, sampleRate: this.sampleRate, time: frame.time });
  }

  private send(frame: AudioFrame): void {
    this.inner.write(frame);
    this.onWrite?.(frame);
  }

  /** Brings out what the filters still hold (a few ms), then marks the transport. */
  async mark(id: string): Promise<void> {
    if (this.waiting) await this.chain;
    for (const rate of this.dirty) {
      const tail = this.ready.get(rate)!.push(new Int16Array(Math.round((rate * FLUSH_MS) / 1000)));
      if (tail.length) this.send({ samples: tail, sampleRate: this.sampleRate, time: this.lastTime });
    }
    this.dirty.clear();
    return this.inner.mark(id);
  }

  async interrupt(): Promise<number> {
    // Frames still waiting for a resampler belong to what is being interrupted.
    this.generation++;
    return this.inner.interrupt();
  }

  position(): number {
    return this.inner.position();
  }

  /** Drops what is being converted and closes the inner output. */
  async close(): Promise<void> {
    this.generation++;
    await this.chain;
    for (const r of this.ready.values()) r.close();
    this.ready.clear();
    await this.inner.close();
  }
}

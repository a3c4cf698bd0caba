import { concatPcm } from '../../src/audio/pcm.ts';
import type { AudioFrame } from '../../src/audio/frame.ts';
import type { Clock } from '../../src/session/clock.ts';
import type { TransportOutput } from '../types.ts';

const TICK_MS = 20;

/**
 * An output that plays queued audio in real (or clock) time, 20 ms at a time, into a sink: a
 * loudspeaker process, a recording, or nothing. Used by every local transport; its position is
 * what has been handed to the sink.
 */
export class PacedOutput implements TransportOutput {
  private queue: Int16Array[] = [];
  private queued = 0;
  private played = 0;
  private marks: { at: number; resolve: () => void }[] = [];
  private running = true;
  private readonly loop: Promise<void>;

  constructor(
    readonly sampleRate: number,
    private readonly clock: Clock,
    /** Receives each played 20 ms frame (silence when nothing is queued) with its play time. */
    private readonly sink: (samples: Int16Array, time: number, speaking: boolean) => void = () => {},
  ) {
    this.loop = this.run();
  }

  private async run(): Promise<void> {
    const step = Math.round((this.sampleRate * TICK_MS) / 1000);
    let due = this.clock.now();
    while (this.running) {
      const take = Math.min(step, this.queued);
      const frame = new Int16Array(step);
      if (take > 0) {
        const all = concatPcm(this.queue);
        frame.set(all.subarray(0, take));
        this.queue = take < all.length ? [all.slice(take)] : [];
        this.queued -= take;
        this.played += take;
      }
      this.sink(frame, due, take > 0);
      this.resolveMarks();
      due += TICK_MS;
      // A loudspeaker that falls behind does not play faster to catch up: it just plays late.
      if (this.clock.now() - due > 100) due = this.clock.now();
      await this.clock.sleep(Math.max(0, due - this.clock.now()));
    }
  }

  private resolveMarks(): void {
    const ready = this.marks.filter((m) => m.at <= this.played);
    this.marks = this.marks.filter((m) => m.at > this.played);
    for (const m of ready) m.resolve();
  }

  write(frame: AudioFrame): void {
    if (frame.sampleRate !== this.sampleRate) throw new Error(`output expects ${this.sampleRate} Hz audio, got ${frame.sampleRate} Hz`);
    this.queue.push(frame.samples);
    this.queued += frame.samples.length;
  }

  mark(_id: string): Promise<void> {
    return new Promise((resolve) => {
      this.marks.push({ at: this.played + this.queued, resolve });
      this.resolveMarks();
    });
  }

  async interrupt(): Promise<number> {
    this.queue = [];
    this.queued = 0;
    for (const m of this.marks) m.resolve();
    this.marks = [];
    return this.position();
  }

  position(): number {
    return this.played / this.sampleRate;
  }

  /** Seconds still queued. */
  pending(): number {
    return this.queued / this.sampleRate;
  }

  async close(): Promise<void> {
    this.running = false;
    await this.interrupt();
    await this.loop;
  }
}

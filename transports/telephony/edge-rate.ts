/**
 * Platforms may announce a rate the voice service cannot produce or hear (a Telnyx `start` with
 * L16 at 96 kHz). The transport then converts at the edge: the session sees a rate within the
 * service's range, and the wire keeps the platform's, so synthesis is never asked for an
 * impossible rate and the call goes on.
 */
import { createResampler, type StreamResampler } from '../../src/audio/resample.ts';

/** Rates the voice service produces and takes (synthesis `sample_rate` 8000..48000). */
export const VOICE_RATES = { min: 8000, max: 48_000 } as const;

/** The rate the session works at for a wire rate: the wire's own when the service can use it. */
export function edgeRate(wireRate: number): number {
  return Math.min(VOICE_RATES.max, Math.max(VOICE_RATES.min, wireRate));
}

/**
 * A streaming resampler that can be fed at once: its filter is made asynchronously, and what
 * arrives meanwhile waits in order and is delivered as soon as it is ready.
 */
export class EdgeResampler {
  private resampler: StreamResampler | undefined;
  private waiting: Int16Array[] = [];
  private deliver: ((s: Int16Array) => void) | undefined;
  private failed: Error | undefined;

  constructor(from: number, to: number) {
    createResampler(from, to).then(
      (r) => {
        this.resampler = r;
        const waiting = this.waiting.splice(0);
        for (const s of waiting) this.out(r.push(s));
      },
      (err: Error) => {
        this.failed = err;
        this.waiting = [];
      },
    );
  }

  /** Converts `samples`; `deliver` gets the result now, or once the filter is ready. */
  push(samples: Int16Array, deliver: (s: Int16Array) => void): void {
    if (this.failed) throw new Error(`audio cannot be converted at the edge: ${this.failed.message}`);
    this.deliver = deliver;
    if (this.resampler) this.out(this.resampler.push(samples));
    else this.waiting.push(samples);
  }

  /** Drops what waits for the filter (an interrupt). */
  clear(): void {
    this.waiting = [];
  }

  private out(s: Int16Array): void {
    if (s.length) this.deliver?.(s);
  }
}

/**
 * Whole-buffer sample-rate conversion at a rational ratio (22.05 → 16 kHz is 320/441): a
 * polyphase Kaiser-windowed sinc, centred on each output sample (no delay, no tail to flush).
 *
 * Hand-written for the embedded sandbox's voice, which speaks at espeak-ng's 22.05 kHz and is
 * converted line by line to every rate a call asks for: libsamplerate (resample.ts) costs
 * 7–8 ms of CPU per second of audio at its medium quality and 5–31 ms to create each converter
 * (a 26 MB WebAssembly instance); this filter, as close to libsamplerate's best as its medium is
 * (docs/sandbox.md), about 2.3 ms and one table per pair of rates. Streams (the transports)
 * keep libsamplerate or the integer-factor filter of polyphase.ts.
 */
import { besselI0 } from './polyphase.ts';

/** Filter settings: zero crossings on each side at the lower rate, Kaiser β, cut-off as a share of the lower Nyquist. */
export const RATIONAL_RESAMPLE_DEFAULTS = { zeroCrossings: 24, kaiserBeta: 9, cutoff: 0.93, maxPhases: 1024 };

interface Design {
  /** Output samples advance the input by `step / phases`. */
  phases: number;
  step: number;
  /** Input samples before the output time that the filter reaches. */
  reach: number;
  taps: number;
  /** `phases × taps` coefficients, each phase's summing to 1. */
  table: Float32Array;
}

const gcd = (a: number, b: number): number => (b ? gcd(b, a % b) : a);
const designs = new Map<string, Design | null>();

function design(fromRate: number, toRate: number): Design | null {
  const key = `${fromRate}>${toRate}`;
  const kept = designs.get(key);
  if (kept !== undefined) return kept;
  const g = gcd(fromRate, toRate);
  const [phases, step] = [toRate / g, fromRate / g];
  const { zeroCrossings, kaiserBeta, cutoff, maxPhases } = RATIONAL_RESAMPLE_DEFAULTS;
  if (phases > maxPhases) {
    designs.set(key, null);
    return null;
  }
  // Cut-off in cycles per input sample × 2 (1 = the input's Nyquist frequency).
  const fc = Math.min(1, toRate / fromRate) * cutoff;
  const reach = Math.ceil(zeroCrossings / fc);
  const taps = 2 * reach;
  const table = new Float32Array(phases * taps);
  const i0 = besselI0(kaiserBeta);
  for (let p = 0; p < phases; p++) {
    let sum = 0;
    for (let j = 0; j < taps; j++) {
      // Distance from the output time (input position floor + p / phases) to input sample j.
      const tau = j - reach + 1 - p / phases;
      const x = tau / reach;
      const window = Math.abs(x) >= 1 ? 0 : besselI0(kaiserBeta * Math.sqrt(1 - x * x)) / i0;
      const h = (tau === 0 ? fc : Math.sin(Math.PI * fc * tau) / (Math.PI * tau)) * window;
      table[p * taps + j] = h;
      sum += h;
    }
    for (let j = 0; j < taps; j++) table[p * taps + j]! /= sum;
  }
  const d = { phases, step, reach, taps, table };
  designs.set(key, d);
  return d;
}

/** Whether `resampleRational` converts between these rates (a ratio of small enough terms). */
export function rationalSupported(fromRate: number, toRate: number): boolean {
  return fromRate !== toRate && design(fromRate, toRate) !== null;
}

/**
 * `samples` at `fromRate` converted to `toRate`: `round(length × toRate / fromRate)` samples,
 * output sample n at input time n × fromRate / toRate. Throws for a ratio `rationalSupported`
 * refuses.
 */
export function resampleRational(samples: Int16Array, fromRate: number, toRate: number): Int16Array {
  if (fromRate === toRate) return samples;
  const d = design(fromRate, toRate);
  if (!d) throw new RangeError(`resampleRational: ${fromRate} → ${toRate} Hz needs more than ${RATIONAL_RESAMPLE_DEFAULTS.maxPhases} phases`);
  const { phases, step, reach, taps, table } = d;
  const n = Math.round((samples.length * toRate) / fromRate);
  const out = new Int16Array(n);
  const len = samples.length;
  for (let o = 0; o < n; o++) {
    const num = o * step;
    const i = Math.floor(num / phases);
    const base = (num - i * phases) * taps;
    const start = i - reach + 1;
    let acc = 0;
    if (start >= 0 && start + taps <= len) {
      for (let j = 0; j < taps; j++) acc += table[base + j]! * samples[start + j]!;
    } else {
      // The edges: samples outside the buffer count as silence.
      for (let j = Math.max(0, -start); j < taps && start + j < len; j++) acc += table[base + j]! * samples[start + j]!;
    }
    out[o] = acc >= 32767 ? 32767 : acc <= -32768 ? -32768 : Math.round(acc);
  }
  return out;
}

/**
 * Streaming sample-rate conversion by an integer factor (8↔16 kHz, 16↔48 kHz, 24→48 kHz…):
 * a polyphase FIR low-pass (Kaiser-windowed sinc) in plain JavaScript.
 *
 * Hand-written because the general converter (libsamplerate in WebAssembly) costs about 25 MB
 * of WebAssembly memory per instance and, converting any ratio with a long sinc, several ms of
 * CPU per call-second; a per-call resampler at an integer ratio needs neither. The filter keeps
 * speech intact (flat to 90 % of the lower rate's Nyquist, ~70 dB stopband): what STT and a VAD
 * need. Arbitrary ratios (22.05 kHz) still go through libsamplerate (see resample.ts).
 */
import type { StreamResampler } from './resample.ts';

/** Taps of each polyphase branch: the filter is `factor ×` this long at the higher rate. */
const TAPS_PER_PHASE = 40;
const KAISER_BETA = 7;
/** Cut-off as a share of the lower rate's Nyquist frequency. */
const CUTOFF = 0.9;
/** Largest factor handled here; beyond it the filter grows long and libsamplerate is used. */
export const MAX_FACTOR = 6;

/** The integer factor between two rates (up or down), or undefined when the ratio is not one. */
export function integerFactor(fromRate: number, toRate: number): { up: boolean; factor: number } | undefined {
  const up = toRate > fromRate;
  const [hi, lo] = up ? [toRate, fromRate] : [fromRate, toRate];
  if (hi % lo !== 0) return undefined;
  const factor = hi / lo;
  return factor >= 2 && factor <= MAX_FACTOR ? { up, factor } : undefined;
}

/** Modified Bessel function of the first kind, order 0 (for the Kaiser window). */
function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  for (let k = 1; k < 50; k++) {
    term *= (x / (2 * k)) ** 2;
    sum += term;
    if (term < 1e-12 * sum) break;
  }
  return sum;
}

const designs = new Map<number, Float64Array>();

/** The low-pass at the higher rate for `factor`, with a DC gain of 1 (shared by every instance). */
function lowPass(factor: number): Float64Array {
  let h = designs.get(factor);
  if (h) return h;
  const n = TAPS_PER_PHASE * factor;
  const fc = (0.5 / factor) * CUTOFF;
  const mid = (n - 1) / 2;
  const i0 = besselI0(KAISER_BETA);
  h = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const t = i - mid;
    const sinc = t === 0 ? 2 * fc : Math.sin(2 * Math.PI * fc * t) / (Math.PI * t);
    const r = (2 * i) / (n - 1) - 1;
    h[i] = sinc * (besselI0(KAISER_BETA * Math.sqrt(Math.max(0, 1 - r * r))) / i0);
    sum += h[i]!;
  }
  for (let i = 0; i < n; i++) h[i]! /= sum;
  designs.set(factor, h);
  return h;
}

const clamp16 = (v: number) => (v > 32767 ? 32767 : v < -32768 ? -32768 : Math.round(v));

/**
 * Input samples go into `work` after the filter's history; the history is the tail of what came
 * before, so pieces of any size convert exactly as the whole stream would.
 */
class History {
  work: Float64Array;
  constructor(readonly keep: number) {
    this.work = new Float64Array(keep + 1024);
  }
  load(s: Int16Array): Float64Array {
    if (this.work.length < this.keep + s.length) {
      const grown = new Float64Array(this.keep + s.length * 2);
      grown.set(this.work.subarray(0, this.keep));
      this.work = grown;
    }
    for (let i = 0; i < s.length; i++) this.work[this.keep + i] = s[i]!;
    return this.work;
  }
  /** Keeps the last `keep` samples of what was loaded for the next piece. */
  shift(loaded: number): void {
    this.work.copyWithin(0, loaded, loaded + this.keep);
  }
}

export function createPolyphaseResampler(fromRate: number, toRate: number): StreamResampler {
  const f = integerFactor(fromRate, toRate);
  if (!f) throw new RangeError(`${fromRate} → ${toRate} Hz is not an integer factor from 2 to ${MAX_FACTOR}`);
  const h = lowPass(f.factor);
  let closed = false;
  const base = { fromRate, toRate, close: () => void (closed = true) };
  if (f.up) {
    const L = f.factor;
    const T = TAPS_PER_PHASE;
    // Branch p holds taps p, p + L, p + 2L…, scaled by L (zeros inserted between inputs).
    const phases = Array.from({ length: L }, (_, p) => Float64Array.from({ length: T }, (_, k) => h[p + k * L]! * L));
    const hist = new History(T - 1);
    return {
      ...base,
      push(s) {
        if (closed || !s.length) return new Int16Array(0);
        const w = hist.load(s);
        const out = new Int16Array(s.length * L);
        for (let i = 0; i < s.length; i++) {
          const at = T - 1 + i;
          for (let p = 0; p < L; p++) {
            const c = phases[p]!;
            let acc = 0;
            for (let k = 0; k < T; k++) acc += c[k]! * w[at - k]!;
            out[i * L + p] = clamp16(acc);
          }
        }
        hist.shift(s.length);
        return out;
      },
    };
  }
  const M = f.factor;
  const N = h.length;
  const hist = new History(N - 1);
  /** Input samples seen so far: an output is taken at every input index ≡ M − 1 (mod M). */
  let seen = 0;
  return {
    ...base,
    push(s) {
      if (closed || !s.length) return new Int16Array(0);
      const w = hist.load(s);
      const first = (M - 1 - (seen % M) + M) % M;
      const out = new Int16Array(first < s.length ? Math.floor((s.length - 1 - first) / M) + 1 : 0);
      let o = 0;
      for (let i = first; i < s.length; i += M) {
        const at = N - 1 + i;
        let acc = 0;
        for (let j = 0; j < N; j++) acc += h[j]! * w[at - j]!;
        out[o++] = clamp16(acc);
      }
      seen += s.length;
      hist.shift(s.length);
      return out;
    },
  };
}

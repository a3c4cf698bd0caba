/**
 * Streaming sample-rate conversion by an integer factor (8↔16 kHz, 16↔48 kHz, 24→48 kHz…):
 * a polyphase FIR low-pass (Kaiser-windowed sinc), no native code.
 *
 * Hand-written because the general converter (libsamplerate in WebAssembly) costs about 25 MB
 * of WebAssembly memory per instance and, converting any ratio with a long sinc, several ms of
 * CPU per call-second; a per-call resampler at an integer ratio needs neither. The filter keeps
 * speech intact (flat to 90 % of the lower rate's Nyquist, ~70 dB stopband): what STT and a VAD
 * need. Arbitrary ratios (22.05 kHz) still go through libsamplerate (see resample.ts).
 * The inner loop runs in WebAssembly SIMD (polyphase-simd.ts): 16 ↔ 48 kHz about 10–18 µs per
 * 20 ms frame, a quarter of the JavaScript kernels below (`npm run bench -- resample`), which
 * stay as the reference and the fallback. Those are written for V8 (reads cost more than
 * multiplications): the up-sampler computes all branches of an input sample in one pass, the
 * down-sampler folds the symmetric filter.
 */
import { simdKernel, simdStream } from './polyphase-simd.ts';
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
export function besselI0(x: number): number {
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
 * before, so pieces of any size convert exactly as the whole stream would. The buffer grows to
 * the largest piece once and is reused: nothing is allocated per frame but the output.
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
    const w = this.work;
    const k = this.keep;
    for (let i = 0; i < s.length; i++) w[k + i] = s[i]!;
    return w;
  }
  /** Keeps the last `keep` samples of what was loaded for the next piece. */
  shift(loaded: number): void {
    this.work.copyWithin(0, loaded, loaded + this.keep);
  }
}

/**
 * Σ c[c0 + k] · w[w0 + k] for k < n (n a multiple of 4): four accumulators, so the additions do
 * not wait on each other (about twice as fast as one running sum in V8).
 */
function dot(c: Float64Array, c0: number, w: Float64Array, w0: number, n: number): number {
  let a0 = 0;
  let a1 = 0;
  let a2 = 0;
  let a3 = 0;
  for (let k = 0; k < n; k += 4) {
    a0 += c[c0 + k]! * w[w0 + k]!;
    a1 += c[c0 + k + 1]! * w[w0 + k + 1]!;
    a2 += c[c0 + k + 2]! * w[w0 + k + 2]!;
    a3 += c[c0 + k + 3]! * w[w0 + k + 3]!;
  }
  return a0 + a1 + a2 + a3;
}

/**
 * Σ h[j] · (w[w0 + j] + w[w0 + N − 1 − j]) for j < N / 2: the low-pass is symmetric (linear
 * phase), so each tap multiplies the two samples it weighs alike: half the multiplications.
 */
function foldedDot(h: Float64Array, w: Float64Array, w0: number, N: number): number {
  const half = N >> 1;
  const last = w0 + N - 1;
  let a0 = 0;
  let a1 = 0;
  for (let j = 0; j < half; j += 2) {
    a0 += h[j]! * (w[w0 + j]! + w[last - j]!);
    a1 += h[j + 1]! * (w[w0 + j + 1]! + w[last - j - 1]!);
  }
  return a0 + a1;
}

/**
 * Up by 3 (16 → 48 kHz, 8 → 24 kHz): the three branches' outputs of one input sample computed
 * together, so each input sample is read once for three products (V8 does not vectorise; the
 * loads, with their bounds checks, are what costs). `taps`: branch p's T taps reversed at p · T.
 */
function up3(taps: Float64Array, T: number, w: Float64Array, n: number, out: Int16Array): void {
  const t1 = T;
  const t2 = 2 * T;
  for (let i = 0, o = 0; i < n; i++) {
    let a0 = 0;
    let a1 = 0;
    let a2 = 0;
    let b0 = 0;
    let b1 = 0;
    let b2 = 0;
    for (let k = 0; k < T; k += 2) {
      const x = w[i + k]!;
      const y = w[i + k + 1]!;
      a0 += taps[k]! * x;
      a1 += taps[t1 + k]! * x;
      a2 += taps[t2 + k]! * x;
      b0 += taps[k + 1]! * y;
      b1 += taps[t1 + k + 1]! * y;
      b2 += taps[t2 + k + 1]! * y;
    }
    out[o++] = clamp16(a0 + b0);
    out[o++] = clamp16(a1 + b1);
    out[o++] = clamp16(a2 + b2);
  }
}

/** Up by 2 (8 → 16 kHz, 24 → 48 kHz): as `up3`, two branches. */
function up2(taps: Float64Array, T: number, w: Float64Array, n: number, out: Int16Array): void {
  for (let i = 0, o = 0; i < n; i++) {
    let a0 = 0;
    let a1 = 0;
    let b0 = 0;
    let b1 = 0;
    for (let k = 0; k < T; k += 2) {
      const x = w[i + k]!;
      const y = w[i + k + 1]!;
      a0 += taps[k]! * x;
      a1 += taps[T + k]! * x;
      b0 += taps[k + 1]! * y;
      b1 += taps[T + k + 1]! * y;
    }
    out[o++] = clamp16(a0 + b0);
    out[o++] = clamp16(a1 + b1);
  }
}

const branchTaps = new Map<number, Float64Array>();

/**
 * The up-sampler's branches for `factor`: branch p holds taps p, p + L, p + 2L…, scaled by L
 * (zeros inserted between inputs), stored reversed in one array so each output is a forward dot
 * product over the input window.
 */
function upTaps(L: number): Float64Array {
  let taps = branchTaps.get(L);
  if (taps) return taps;
  const h = lowPass(L);
  const T = TAPS_PER_PHASE;
  taps = new Float64Array(L * T);
  for (let p = 0; p < L; p++) for (let k = 0; k < T; k++) taps[p * T + (T - 1 - k)] = h[p + k * L]! * L;
  branchTaps.set(L, taps);
  return taps;
}

/** Options of {@link createPolyphaseResampler}. */
export interface PolyphaseOptions {
  /**
   * `simd`: the WebAssembly SIMD kernel where the runtime has it (a quarter of the CPU; sums in
   * float32, so a sample may differ by 1 from the JavaScript kernel's); `js`: the JavaScript
   * kernel (float64 sums, the reference).
   * @default 'simd'
   */
  kernel?: 'simd' | 'js';
}

export function createPolyphaseResampler(fromRate: number, toRate: number, opts: PolyphaseOptions = {}): StreamResampler {
  const f = integerFactor(fromRate, toRate);
  if (!f) throw new RangeError(`${fromRate} → ${toRate} Hz is not an integer factor from 2 to ${MAX_FACTOR}`);
  const h = lowPass(f.factor);
  let closed = false;
  const base = { fromRate, toRate, close: () => void (closed = true) };
  const simd = (opts.kernel ?? 'simd') === 'simd' ? simdKernel() : null;
  if (simd) {
    const stream = f.up ? simdStream(simd, upTaps(f.factor), TAPS_PER_PHASE, f.factor, 1) : simdStream(simd, h, h.length, 1, f.factor);
    return { ...base, push: (s) => (closed || !s.length ? new Int16Array(0) : stream(s)) };
  }
  if (f.up) {
    const L = f.factor;
    const T = TAPS_PER_PHASE;
    const taps = upTaps(L);
    const hist = new History(T - 1);
    return {
      ...base,
      push(s) {
        if (closed || !s.length) return new Int16Array(0);
        const w = hist.load(s);
        const out = new Int16Array(s.length * L);
        if (L === 3) up3(taps, T, w, s.length, out);
        else if (L === 2) up2(taps, T, w, s.length, out);
        else for (let i = 0, o = 0; i < s.length; i++) for (let p = 0; p < L; p++) out[o++] = clamp16(dot(taps, p * T, w, i, T));
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
      for (let i = first; i < s.length; i += M) out[o++] = clamp16(foldedDot(h, w, i, N));
      seen += s.length;
      hist.shift(s.length);
      return out;
    },
  };
}

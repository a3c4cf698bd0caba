import FFT from 'fft.js';

/**
 * MFCC features for acoustic matching. The mel bank spans 100–3800 Hz so that 8 kHz telephone
 * audio (nothing above 4 kHz) and 16 kHz audio give comparable features; cepstral mean
 * normalization removes the channel (mu-law, Opus, microphones).
 */
export const FEATURE_RATE = 16000;
export const HOP_S = 0.01;
const FRAME = 400; // 25 ms
const HOP = 160; // 10 ms
const NFFT = 512;
const NMEL = 26;
const NCEP = 13;

const fft = new FFT(NFFT);
const window = Float32Array.from({ length: FRAME }, (_, i) => 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (FRAME - 1)));
/** Hz to mel, and back. */
export const mel = (f: number) => 2595 * Math.log10(1 + f / 700);
export const imel = (m: number) => 700 * (10 ** (m / 2595) - 1);

/** One triangular mel filter: its first FFT bin and weights. */
export interface MelFilter {
  start: number;
  weights: Float32Array;
}

/** Power of an FFT output (fft.js complex array) through one mel filter. */
export function filterPower(out: number[], { start, weights }: MelFilter): number {
  let s = 0;
  for (let k = 0; k < weights.length; k++) {
    const re = out[2 * (start + k)]!;
    const im = out[2 * (start + k) + 1]!;
    s += weights[k]! * (re * re + im * im);
  }
  return s;
}

const filters: MelFilter[] = (() => {
  const lo = mel(100);
  const hi = mel(3800);
  const points = Array.from({ length: NMEL + 2 }, (_, i) => imel(lo + ((hi - lo) * i) / (NMEL + 1)));
  const bin = (f: number) => (f * NFFT) / FEATURE_RATE;
  return Array.from({ length: NMEL }, (_, m) => {
    const [a, b, c] = [bin(points[m]!), bin(points[m + 1]!), bin(points[m + 2]!)];
    const start = Math.floor(a);
    const weights = new Float32Array(Math.ceil(c) - start + 1);
    for (let k = start; k <= Math.ceil(c); k++) {
      const w = k < b ? (k - a) / (b - a) : (c - k) / (c - b);
      weights[k - start] = Math.max(0, w);
    }
    return { start, weights };
  });
})();

const dct: Float32Array[] = Array.from({ length: NCEP }, (_, n) =>
  Float32Array.from({ length: NMEL }, (_, m) => Math.cos((Math.PI * n * (m + 0.5)) / NMEL)),
);

export interface MelFrames {
  /** Mel-band power per 10 ms frame (26 bands). */
  power: Float32Array[];
  /** Log energy per frame, for trimming silence. */
  energy: Float32Array;
}

/** The buffers `frameSpectrum` works in: one frame's input and its FFT output. */
export const frameBuffers = (): { input: Float32Array; out: number[] } => ({ input: new Float32Array(NFFT), out: fft.createComplexArray() as number[] });

/**
 * The spectrum of the 25 ms frame of 16 kHz PCM at `off`, pre-emphasized and windowed, into `out`
 * (fft.js's complex layout); returns the frame's mean power before pre-emphasis.
 */
export function frameSpectrum(samples: Int16Array, off: number, input: Float32Array, out: number[]): number {
  input.fill(0);
  let e = 0;
  let prev = samples[off]! / 32768;
  for (let i = 0; i < FRAME; i++) {
    const x = samples[off + i]! / 32768;
    input[i] = (x - 0.97 * prev) * window[i]!;
    prev = x;
    e += x * x;
  }
  fft.realTransform(out, input);
  return e / FRAME;
}

/** Mel-band powers of 16 kHz PCM, before any log: noise adds in this domain. */
export function melPower(samples: Int16Array): MelFrames {
  const n = samples.length < FRAME ? 0 : 1 + Math.floor((samples.length - FRAME) / HOP);
  const power: Float32Array[] = [];
  const energy = new Float32Array(n);
  const { input, out } = frameBuffers();
  for (let f = 0; f < n; f++) {
    energy[f] = 10 * Math.log10(frameSpectrum(samples, f * HOP, input, out) + 1e-10);
    const bands = new Float32Array(NMEL);
    for (let m = 0; m < NMEL; m++) bands[m] = filterPower(out, filters[m]!);
    power.push(bands);
  }
  return { power, energy };
}

/**
 * Mean-normalized cepstra (c1..c12) of mel powers, optionally as heard through noise:
 * `gain * power + noise` per band (how a clean template would sound in the caller's noise).
 */
export function cepstra(power: Float32Array[], noise?: Float32Array, gain = 1): Float32Array[] {
  const logMel = new Float32Array(NMEL);
  const frames = power.map((bands) => {
    for (let m = 0; m < NMEL; m++) logMel[m] = Math.log(gain * bands[m]! + (noise ? noise[m]! : 0) + 1e-8);
    const c = new Float32Array(NCEP - 1);
    for (let j = 1; j < NCEP; j++) {
      let s = 0;
      for (let m = 0; m < NMEL; m++) s += dct[j]![m]! * logMel[m]!;
      c[j - 1] = s;
    }
    return c;
  });
  return normalize(frames);
}

/** Per-band noise floor: a low percentile of each band over the frames. */
export function noiseFloor(power: Float32Array[], percentile = 0.1): Float32Array {
  const floor = new Float32Array(NMEL);
  if (!power.length) return floor;
  const col = new Float32Array(power.length);
  for (let m = 0; m < NMEL; m++) {
    for (let f = 0; f < power.length; f++) col[f] = power[f]![m]!;
    col.sort();
    floor[m] = col[Math.floor(percentile * (col.length - 1))]!;
  }
  return floor;
}

export const totalPower = (bands: Float32Array): number => bands.reduce((a, b) => a + b, 0);

/** Subtracts the mean vector (cepstral mean normalization), in place. */
export function normalize(frames: Float32Array[]): Float32Array[] {
  if (!frames.length) return frames;
  const dim = frames[0]!.length;
  const mean = new Float32Array(dim);
  for (const f of frames) for (let i = 0; i < dim; i++) mean[i]! += f[i]! / frames.length;
  return frames.map((f) => f.map((v, i) => v - mean[i]!));
}

/** Frame range that holds the speech: drops quiet frames at both ends. */
export function speechBounds(energy: Float32Array, dropDb = 30): [number, number] {
  if (!energy.length) return [0, 0];
  const sorted = Array.from(energy).sort((a, b) => a - b);
  const loud = sorted[Math.floor(sorted.length * 0.95)]!;
  const floor = Math.max(loud - dropDb, sorted[Math.floor(sorted.length * 0.1)]! + 3);
  let a = 0;
  let b = energy.length;
  while (a < b && energy[a]! < floor) a++;
  while (b > a && energy[b - 1]! < floor) b--;
  return b - a < 5 ? [0, energy.length] : [a, b];
}

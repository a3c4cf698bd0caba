import FFT from 'fft.js';
import { filterPower, frameBuffers, frameSpectrum, imel, mel, type MelFilter } from './features.ts';

/**
 * Features for the spoken-word vocabulary (digits, yes, no): MFCCs with deltas, the mean of
 * each coefficient over the word removed (cepstral mean normalization: the speaker's level,
 * microphone and line cancel out). Two mel banks: the whole band of 16 kHz audio, and the
 * telephone band, for audio that came through an 8 kHz line (nothing above 4 kHz).
 */
export const WORD_FEATURES = {
  /** Mel bank edges in Hz: the whole band, and the telephone band. */
  wide: [100, 7600] as const,
  phone: [250, 3400] as const,
  bands: 24,
  /** c0..c12 (c0, once normalized, is the word's loudness contour). */
  cepstra: 13,
  /** Weight of the deltas against the statics in the distance. */
  deltaWeight: 3,
  /** Energy below the loudest frame of the audio that still counts as speech, in dB. */
  detectDropDb: 30,
  /** A word's edges: energy this far below the word's own loudest frame, in dB. */
  speechDropDb: 20,
  /** Silence inside a word shorter than this does not split it (the stop before ت in ستة). */
  bridgeS: 0.16,
  /** Sound shorter than this is a click, not a word. */
  minWordS: 0.12,
  /** Audio kept either side of a segment. */
  padS: 0.03,
  /** Audio whose energy at 4.2–4.6 kHz is this far below that at 3.4–3.8 kHz came through a phone line, in dB. */
  phoneStepDb: -15,
};

/** Which mel bank: the whole band or the telephone band. */
export type WordBand = 'wide' | 'phone';
const RATE = 16000;
const FRAME = 400;
const HOP = 160;
const NFFT = 512;
/** Frames per second. */
export const WORD_FPS = RATE / HOP;

const fft = new FFT(NFFT);

type Bank = MelFilter[];
const banks = new Map<string, Bank>();
const bankFor = (band: WordBand, warp: number): Bank => {
  let bank = banks.get(`${band}|${warp}`);
  if (!bank) banks.set(`${band}|${warp}`, (bank = makeBank(band, warp)));
  return bank;
};
// `warp` scales the filters' centre frequencies (vocal tract length perturbation: training
// hears each recording as if from a longer or shorter voice); 1 in use.
const makeBank = (band: WordBand, warp: number): Bank => {
  const { bands } = WORD_FEATURES;
  const [lowHz, highHz] = WORD_FEATURES[band];
  const lo = mel(lowHz);
  const hi = mel(highHz);
  const points = Array.from({ length: bands + 2 }, (_, i) => Math.min(RATE / 2 - 1, warp * imel(lo + ((hi - lo) * i) / (bands + 1))));
  const bin = (f: number) => (f * NFFT) / RATE;
  return Array.from({ length: bands }, (_, m) => {
    const [a, b, c] = [bin(points[m]!), bin(points[m + 1]!), bin(points[m + 2]!)];
    const start = Math.ceil(a);
    const weights = Float32Array.from({ length: Math.floor(c) - start + 1 }, (_, k) => {
      const f = start + k;
      return Math.max(0, f < b ? (f - a) / (b - a) : (c - f) / (c - b));
    });
    return { start, weights };
  });
};
const dct = Array.from({ length: WORD_FEATURES.cepstra }, (_, n) =>
  Float32Array.from({ length: WORD_FEATURES.bands }, (_, m) => Math.cos((Math.PI * n * (m + 0.5)) / WORD_FEATURES.bands)),
);

export interface WordFrames {
  /** Mel-band powers per 10 ms frame. */
  power: Float32Array[];
  /** Energy in the bank's band per frame in dB, for finding the words. */
  energy: Float32Array;
}

/** Mel powers and band energy of 16 kHz PCM through one mel bank (`warp`: see makeBank). */
export function wordFrames(samples: Int16Array, band: WordBand, warp = 1): WordFrames {
  const { powers, energy } = warpedFrames(samples, band, [warp]);
  return { power: powers[0]!, energy };
}

/**
 * Mel powers of 16 kHz PCM through the bank at each of `warps` (one spectrum per frame for all
 * of them), and the band energy through the first: a voice heard as if its vocal tract were
 * shorter or longer, to find the warp at which it best matches other speakers' templates.
 */
export function warpedFrames(samples: Int16Array, band: WordBand, warps: readonly number[]): { powers: Float32Array[][]; energy: Float32Array } {
  const filters = warps.map((w) => bankFor(band, w));
  const n = samples.length < FRAME ? 0 : 1 + Math.floor((samples.length - FRAME) / HOP);
  const { bands } = WORD_FEATURES;
  const powers: Float32Array[][] = warps.map(() => []);
  const energy = new Float32Array(n);
  const { input, out } = frameBuffers();
  for (let f = 0; f < n; f++) {
    frameSpectrum(samples, f * HOP, input, out);
    for (const [w, bank] of filters.entries()) {
      const p = new Float32Array(bands);
      let total = 0;
      for (let m = 0; m < bands; m++) {
        const s = filterPower(out, bank[m]!);
        p[m] = s;
        total += s;
      }
      if (w === 0) energy[f] = 10 * Math.log10(total + 1e-12);
      powers[w]!.push(p);
    }
  }
  return { powers, energy };
}

/**
 * The cepstra c0..c12 of frames [a, b), with a floor 60 dB under the loudest of them: silence
 * and faint noise look alike, and a word's features do not depend on what was said around it.
 */
export function cepstraOf(power: Float32Array[], a: number, b: number): Float32Array[] {
  const { bands } = WORD_FEATURES;
  let loudest = 0;
  for (let f = a; f < b; f++) for (let m = 0; m < bands; m++) loudest = Math.max(loudest, power[f]![m]!);
  const floor = loudest * 1e-6 + 1e-12;
  const logMel = new Float32Array(bands);
  return power.slice(a, b).map((p) => {
    for (let m = 0; m < bands; m++) logMel[m] = Math.log(p[m]! + floor);
    return Float32Array.from(dct, (row) => row.reduce((s, w, m) => s + w * logMel[m]!, 0));
  });
}


/**
 * The words in a stretch of audio: frame ranges [start, end) louder than the speech threshold,
 * with short silences bridged. The threshold sits between the noise floor and the loudest
 * speech, so it holds for a quiet room and a noisy line alike.
 */
export function wordSegments(energy: Float32Array): [number, number][] {
  if (!energy.length) return [];
  const sorted = Float32Array.from(energy).sort();
  const loud = sorted[Math.floor(sorted.length * 0.98)]!;
  const noise = sorted[Math.floor(sorted.length * 0.1)]!;
  const threshold = Math.max(loud - WORD_FEATURES.detectDropDb, noise + 0.35 * (loud - noise));
  const bridge = Math.round(WORD_FEATURES.bridgeS * WORD_FPS);
  const minLen = Math.round(WORD_FEATURES.minWordS * WORD_FPS);
  const raw: [number, number][] = [];
  for (let f = 0; f < energy.length; f++) {
    if (energy[f]! < threshold) continue;
    const last = raw.at(-1);
    if (last && f - last[1] <= bridge) last[1] = f + 1;
    else raw.push([f, f + 1]);
  }
  // Each word's edges by its own loudness, not the loudest word's: a soft word after a loud one
  // keeps its onset, so it is cut as it would be said alone (as its templates were).
  const pad = Math.round(WORD_FEATURES.padS * WORD_FPS);
  const words: [number, number][] = [];
  for (const [a0, b0] of raw) {
    if (b0 - a0 < minLen) continue;
    let peak = -Infinity;
    for (let f = a0; f < b0; f++) peak = Math.max(peak, energy[f]!);
    const own = Math.max(peak - WORD_FEATURES.speechDropDb, noise + 0.35 * (peak - noise));
    let a = a0;
    let b = b0;
    const floor = words.at(-1)?.[1] ?? 0;
    while (a > floor && energy[a - 1]! >= own) a--;
    while (b < energy.length && energy[b]! >= own) b++;
    while (a < b && energy[a]! < own) a++;
    while (b > a && energy[b - 1]! < own) b--;
    words.push([Math.max(floor, a - pad), Math.min(energy.length, b + pad)]);
  }
  return words;
}

/** A word's cepstra with each coefficient's mean over the word removed. */
export function normalizeWord(cepstra: Float32Array[]): Float32Array[] {
  const n = cepstra.length;
  if (!n) return [];
  const mean = new Float32Array(cepstra[0]!.length);
  for (const f of cepstra) for (let i = 0; i < mean.length; i++) mean[i]! += f[i]! / n;
  return cepstra.map((f) => f.map((v, i) => v - mean[i]!));
}

/**
 * The band a recording went through: 'phone' when its spectrum falls off a cliff at 4 kHz (8 kHz
 * audio resampled to 16 kHz: what lies above is only the resampler's faint images), 'wide' when
 * it runs on smoothly, as a microphone's does.
 */
export function bandOf(samples: Int16Array): WordBand {
  const n = Math.floor(samples.length / NFFT);
  if (!n) return 'wide';
  const input = new Float32Array(NFFT);
  const out = fft.createComplexArray() as number[];
  const bin = (hz: number) => Math.round((hz * NFFT) / RATE);
  let below = 0;
  let above = 0;
  for (let f = 0; f < n; f++) {
    for (let i = 0; i < NFFT; i++) input[i] = samples[f * NFFT + i]!;
    fft.realTransform(out, input);
    for (let k = bin(3400); k < bin(3800); k++) below += out[2 * k]! ** 2 + out[2 * k + 1]! ** 2;
    for (let k = bin(4200); k < bin(4600); k++) above += out[2 * k]! ** 2 + out[2 * k + 1]! ** 2;
  }
  return 10 * Math.log10((above + 1e-9) / (below + 1e-9)) < WORD_FEATURES.phoneStepDb ? 'phone' : 'wide';
}

/** Appends deltas (the slope over ±2 frames) to normalized statics. */
export function withDeltas(statics: Float32Array[], weight = WORD_FEATURES.deltaWeight): Float32Array[] {
  const n = statics.length;
  return statics.map((f, t) => {
    const dim = f.length;
    const out = new Float32Array(2 * dim);
    out.set(f);
    const a1 = statics[Math.min(n - 1, t + 1)]!;
    const b1 = statics[Math.max(0, t - 1)]!;
    const a2 = statics[Math.min(n - 1, t + 2)]!;
    const b2 = statics[Math.max(0, t - 2)]!;
    for (let i = 0; i < dim; i++) out[dim + i] = (weight * (a1[i]! - b1[i]! + 2 * (a2[i]! - b2[i]!))) / 10;
    return out;
  });
}

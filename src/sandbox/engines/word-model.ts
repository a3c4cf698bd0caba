import { withDeltas, type WordBand } from './word-features.ts';

/**
 * A small trained classifier for the spoken-word vocabulary: a word's normalized cepstra and
 * their deltas, pooled into a fixed number of time slices, through one hidden layer to a
 * probability per word plus one for "not a word of the vocabulary". Trained by
 * scripts/train-word-model.ts on real people's recordings made many (faster, slower, longer
 * and shorter voices, noise, phone lines) and on the sandbox's voices; each band (whole, phone)
 * has its own weights.
 */
export const WORD_MODEL = {
  /** Time slices a word is pooled into, whatever its length. */
  slices: 20,
  /** Delta weight inside the vector (the inputs are standardized, so only the shape matters). */
  deltaWeight: 1,
};

/** The class that means "none of the words". */
export const UNKNOWN_CLASS = '<unknown>';

/** One band's network as shipped: weights as signed bytes with a scale per output unit, base64. */
export interface StoredWordNet {
  /** Output classes in order: the words, then UNKNOWN_CLASS. */
  classes: string[];
  inputs: number;
  hidden: number;
  /** Standardization of the inputs: mean and 1/std per input. */
  mean: number[];
  invStd: number[];
  w1: string;
  s1: number[];
  b1: number[];
  w2: string;
  s2: number[];
  b2: number[];
}

/** The shipped networks, one per band. */
export type StoredWordModel = Record<WordBand, StoredWordNet>;

/** The fixed-length input of a word: pooled statics and deltas, and the log of its length. */
export function wordVector(statics: readonly Float32Array[]): Float32Array {
  const feats = withDeltas(statics as Float32Array[], WORD_MODEL.deltaWeight);
  const n = feats.length;
  const dim = feats[0]?.length ?? 0;
  const { slices } = WORD_MODEL;
  const out = new Float32Array(slices * dim + 1);
  for (let k = 0; k < slices; k++) {
    // Frames overlapping slice k (at least the nearest one, when the word is shorter).
    const a = Math.min(n - 1, Math.floor((k * n) / slices));
    const b = Math.max(a + 1, Math.ceil(((k + 1) * n) / slices));
    for (let f = a; f < b; f++) for (let i = 0; i < dim; i++) out[k * dim + i]! += feats[f]![i]! / (b - a);
  }
  out[slices * dim] = Math.log(Math.max(1, n) / 50);
  return out;
}

/** A network ready to run: Float32 weights. */
export class WordNet {
  /** Output classes: the words, then UNKNOWN_CLASS. */
  readonly classes: readonly string[];
  private readonly n: { inputs: number; hidden: number; mean: Float32Array; invStd: Float32Array; w1: Float32Array; b1: Float32Array; w2: Float32Array; b2: Float32Array };

  constructor(stored: StoredWordNet) {
    const { inputs, hidden, classes } = stored;
    this.classes = classes;
    this.n = {
      inputs,
      hidden,
      mean: Float32Array.from(stored.mean),
      invStd: Float32Array.from(stored.invStd),
      w1: unpack(stored.w1, stored.s1, inputs),
      b1: Float32Array.from(stored.b1),
      w2: unpack(stored.w2, stored.s2, hidden),
      b2: Float32Array.from(stored.b2),
    };
    if (this.n.w1.length !== inputs * hidden || this.n.w2.length !== hidden * classes.length) throw new Error('word model: weights do not match their shape');
  }

  /** Probability per class (softmax) of one word's vector. */
  probabilities(vector: Float32Array): Float32Array {
    const { inputs, hidden, mean, invStd, w1, b1, w2, b2 } = this.n;
    if (vector.length !== inputs) throw new Error(`word model: ${vector.length} inputs, expected ${inputs}`);
    const x = new Float32Array(inputs);
    for (let i = 0; i < inputs; i++) x[i] = (vector[i]! - mean[i]!) * invStd[i]!;
    const h = new Float32Array(hidden);
    for (let j = 0; j < hidden; j++) {
      let s = b1[j]!;
      const row = j * inputs;
      for (let i = 0; i < inputs; i++) s += w1[row + i]! * x[i]!;
      h[j] = s > 0 ? s : 0;
    }
    const c = this.classes.length;
    const out = new Float32Array(c);
    let max = -Infinity;
    for (let k = 0; k < c; k++) {
      let s = b2[k]!;
      const row = k * hidden;
      for (let j = 0; j < hidden; j++) s += w2[row + j]! * h[j]!;
      out[k] = s;
      max = Math.max(max, s);
    }
    let total = 0;
    for (let k = 0; k < c; k++) total += out[k] = Math.exp(out[k]! - max);
    for (let k = 0; k < c; k++) out[k]! /= total;
    return out;
  }
}

/** Packs row-major weights (rows of `cols`) as signed bytes with one scale per row. */
export function packWeights(w: Float32Array, cols: number): { bytes: string; scales: number[] } {
  const rows = w.length / cols;
  const q = new Int8Array(w.length);
  const scales: number[] = [];
  for (let r = 0; r < rows; r++) {
    let peak = 0;
    for (let i = 0; i < cols; i++) peak = Math.max(peak, Math.abs(w[r * cols + i]!));
    const step = Number((Math.max(peak, 1e-9) / 127).toPrecision(6));
    scales.push(step);
    for (let i = 0; i < cols; i++) q[r * cols + i] = Math.round(w[r * cols + i]! / step);
  }
  return { bytes: Buffer.from(q.buffer).toString('base64'), scales };
}

function unpack(bytes: string, scales: readonly number[], cols: number): Float32Array {
  const raw = Buffer.from(bytes, 'base64');
  const q = new Int8Array(raw.buffer, raw.byteOffset, raw.byteLength);
  return Float32Array.from(q, (v, i) => v * scales[Math.floor(i / cols)]!);
}

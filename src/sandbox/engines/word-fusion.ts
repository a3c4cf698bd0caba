import type { WordBand } from './word-features.ts';
import { UNKNOWN_CLASS } from './word-model.ts';

/**
 * The spoken-word vocabulary's decision for one stretch of speech: two opinions, the trained
 * classifier's probability per word and for "no word", and the templates' (each word's DTW
 * distance as a log probability, "no word" at a calibrated distance), fused as a weighted sum of
 * log probabilities. Kept apart from the matching so the bench can re-decide stored opinions at
 * other weights and thresholds without matching again.
 */

/** What both opinions say of one stretch of speech heard through `band`. */
export interface WordOpinions {
  band: WordBand;
  /** The classifier's classes (the words, then UNKNOWN_CLASS) and its probability for each. */
  classes: readonly string[];
  probabilities: Float32Array;
  /** Per word, the distance to its nearest template at its best warp. */
  distances: ReadonlyMap<string, number>;
  /** The templates' "no word", as a distance: a sound farther than this from every word leans to it. */
  noWord: number;
  /** The stretch's length in feature frames. */
  frames?: number;
}

/** A value for each band, the whole band of 16 kHz audio and the telephone band. */
export type PerBand<T> = Record<WordBand, T>;

/**
 * How sure the fused opinion is of its word: the word's fused probability with the classifier
 * weighed `weight` and the templates' distances at `temperature`. It may differ from the
 * ranking's: the templates rank a new voice's words best, the classifier's "no word" class tells
 * words outside the vocabulary better (docs/sandbox.md#words-in-anyones-voice).
 */
export interface Sureness {
  weight: number;
  temperature: number;
}

/**
 * Every class's fused log probability (normalized): the classifier's log probability weighed
 * `modelWeight`, the templates' distance to the nearest word (over `temperature`) the rest;
 * "no word" at the templates' `noWord` distance. Undefined when no word has a template.
 */
export function fusedLogs(o: WordOpinions, modelWeight: number, temperature: number): number[] | undefined {
  let nearest = Number.POSITIVE_INFINITY;
  for (const d of o.distances.values()) nearest = Math.min(nearest, d);
  if (!Number.isFinite(nearest)) return undefined;
  const log = o.classes.map((w, k) => {
    const d = w === UNKNOWN_CLASS ? o.noWord : o.distances.get(w);
    if (d === undefined) return Number.NEGATIVE_INFINITY;
    return modelWeight * Math.log(o.probabilities[k]! + 1e-9) - ((1 - modelWeight) * (d - nearest)) / temperature;
  });
  const top = Math.max(...log);
  let total = 0;
  for (const l of log) total += Math.exp(l - top);
  const z = top + Math.log(total);
  return log.map((l) => l - z);
}

/**
 * The fused opinion: the best word (never "no word") at `modelWeight` and `temperature`, and
 * its fused probability, as sure as `sureness` says (default: at the ranking's settings).
 */
export function fuseOpinions(o: WordOpinions, modelWeight: number, temperature: number, sureness?: Sureness): { word: string; score: number; cost: number } | undefined {
  const log = fusedLogs(o, modelWeight, temperature);
  if (!log) return undefined;
  let best = -1;
  for (let k = 0; k < log.length; k++) if (o.classes[k] !== UNKNOWN_CLASS && (best < 0 || log[k]! > log[best]!)) best = k;
  if (best < 0) return undefined;
  const word = o.classes[best]!;
  const sure = sureness ? fusedLogs(o, sureness.weight, sureness.temperature)! : log;
  return { word, score: Math.exp(sure[best]!), cost: o.distances.get(word)! };
}

/** A per-band option given as one number for both bands, or per band (a band not named keeps its default). */
export function perBand(value: number | Partial<PerBand<number>> | undefined, defaults: PerBand<number>): PerBand<number> {
  if (typeof value === 'number') return { wide: value, phone: value };
  return { ...defaults, ...value };
}

/**
 * The words of a turn's `n` stretches of speech, in order, or undefined unless every stretch
 * ends up in a word. Each stretch is a word on its own (`single`), except where it and the next,
 * close behind it, are more surely one word together (`joined(i)`: stretches i and i + 1 as one,
 * undefined when the pause between is too long or the join is no word) than the less sure of
 * the two alone: a word's inner silence, the stop of ت in ستة, can outlast the pause the
 * endpointing bridges, and its halves alone may pass for other words (س for صفر).
 */
export function wordsOf<R extends { confidence: number }>(n: number, single: (i: number) => R | undefined, joined: (i: number) => R | undefined): R[] | undefined {
  const singles = new Map<number, R | undefined>();
  const one = (i: number) => {
    if (!singles.has(i)) singles.set(i, single(i));
    return singles.get(i);
  };
  const out: R[] = [];
  for (let i = 0; i < n; ) {
    const s = one(i);
    const j = i + 1 < n ? joined(i) : undefined;
    if (j && j.confidence > Math.min(s?.confidence ?? 0, one(i + 1)?.confidence ?? 0)) {
      out.push(j);
      i += 2;
      continue;
    }
    if (!s) return undefined;
    out.push(s);
    i++;
  }
  return out.length ? out : undefined;
}

import { WORD_FPS, bandOf, cepstraOf, normalizeWord, warpedFrames, withDeltas, wordFrames, wordSegments, type WordBand } from './word-features.ts';
import { fuseOpinions, perBand, wordsOf, type PerBand, type WordOpinions } from './word-fusion.ts';
import { wordVector, type WordNet } from './word-model.ts';

/**
 * A closed vocabulary of single words (the digits, yes, no) matched in anyone's voice: each
 * word spoken by several people (and by the sandbox's own voices) is kept as a template, a word
 * heard is matched against all of them by dynamic time warping, and the nearest word wins
 * only when it is clearly nearer than every other word and close enough to its own templates.
 * Anything else gets no answer: the sandbox never guesses.
 */

/** One recorded word: who said it, through which band, and its normalized static features. */
export interface WordTemplate {
  word: string;
  /** Speaker or voice: calibration never compares a speaker with themselves. */
  source: string;
  band: WordBand;
  statics: Float32Array[];
}

/** How sure a word must be to be said, and what matching may cost. */
export const VOCABULARY_DEFAULTS = {
  /** The best word's distance over the next word's must stay below this. */
  maxRatio: 0.9,
  /**
   * A word's limit is this many times the distance at which its own templates found each
   * other (calibration): beyond it the sound is no word of the vocabulary. Generous: the
   * ratio above is what tells unknown words; a word inside a sentence is trimmed differently.
   */
  thresholdScale: 1.5,
  /** The percentile of a word's own-template distances its limit starts from. */
  calibrationPercentile: 0.9,
  /** Templates this many times longer or shorter than the heard word are not tried. */
  maxLengthRatio: 2.2,
  /** A stretch of speech this long or longer is no single word of the vocabulary. */
  maxWordS: 1.4,
  /**
   * Two stretches of speech this close (s, between them as cut) are also tried as one word, and
   * heard so when that is surer than the less sure of them alone (word-fusion.ts `wordsOf`): the
   * stop inside ستة can outlast the silence the endpointing bridges (`bridgeS`), while digits
   * said one by one leave longer pauses.
   */
  joinS: 0.2,
  /**
   * Vocal-tract-length normalization by search: the heard word's mel bank is warped by each of
   * these factors and each word's templates are matched at the warp that fits them best, so a
   * voice higher or lower than the six recorded ones still lands near its word. The first is 1;
   * interim (partial) results use it alone.
   */
  warps: [1, 0.88, 0.92, 0.96, 1.04, 1.08, 1.12] as number[],
  /** Template distances become log probabilities as -distance / temperature. */
  temperature: 1,
  /**
   * Weight of the classifier's log probabilities against the templates' (1 - this) in the fused
   * opinion, per band: on a voice neither has heard the templates are the stronger opinion, the
   * more so over the whole band. Chosen by the bench as the weight that hears the most words
   * (docs/sandbox.md#words-in-anyones-voice).
   */
  modelWeight: { wide: 0.1, phone: 0.2 } as PerBand<number>,
  /**
   * The templates' "no word" sits at this many times the nearest word's calibrated limit: a
   * sound far from every template leans to no word, as the classifier's unknown class does.
   */
  unknownScale: 1,
  /**
   * How sure the best word is, per band (`minScore` says how sure it must be to be said): its
   * fused probability recomputed with the classifier weighed `surenessWeight` and the templates'
   * distances at `surenessTemperature` (word-fusion.ts `Sureness`). The word is still the one ranked first at
   * `modelWeight`: the templates rank a new voice's words best, but the classifier's "no word"
   * class is the better judge of a word outside the vocabulary (a rhyme of a digit in a new
   * voice). Over the whole band the classifier decides at 0.7 (it ranks at 0.1); on the phone
   * line the weight stays and the templates' distances count a little less. Chosen by the
   * bench (docs/sandbox.md#words-in-anyones-voice, the fifth round).
   */
  surenessWeight: { wide: 0.7, phone: 0.2 } as PerBand<number>,
  surenessTemperature: { wide: 1, phone: 1.5 } as PerBand<number>,
  /**
   * With a trained model: the least sureness of the best word for it to be said, per band. Set
   * from the bench's trade-off (docs/sandbox.md#words-in-anyones-voice): a caller saying another
   * word should get nothing rather than a wrong digit; at these, seven in eight of people's
   * words outside the vocabulary are rejected in both bands.
   */
  minScore: { wide: 0.35, phone: 0.65 } as PerBand<number>,
};
/** Options of a `Vocabulary` (see VOCABULARY_DEFAULTS); the per-band ones also as one number for both bands. */
export type VocabularyOptions = Partial<Omit<typeof VOCABULARY_DEFAULTS, PerBandOption>> & Partial<Record<PerBandOption, number | Partial<PerBand<number>>>>;
type PerBandOption = 'modelWeight' | 'surenessWeight' | 'surenessTemperature' | 'minScore';

/** What `Vocabulary.hear` found: each stretch's opinions alone, and joined with the next (undefined: no word's length, or too far apart). */
export interface HeardStretches {
  singles: (WordOpinions | undefined)[];
  joins: (WordOpinions | undefined)[];
}

/** One word heard, with its time in seconds from the start of the audio. */
export interface HeardWord {
  word: string;
  start: number;
  end: number;
  confidence: number;
  /** Distance to the nearest template (lower is closer). */
  cost: number;
}

interface Prepared extends WordTemplate {
  feats: Float32Array[];
}

const key = (band: WordBand, word: string) => `${band}|${word}`;

/** The vocabulary matcher (see the module comment). */
export class Vocabulary {
  /** The words it knows, in the order first given. */
  readonly words: readonly string[];
  private readonly templates: Prepared[];
  private readonly opts: typeof VOCABULARY_DEFAULTS;
  /**
   * Per band and word (`wide|نعم`): the calibrated distance between its own templates; a sound
   * farther than `thresholdScale` times this is not that word.
   */
  readonly limits = new Map<string, number>();

  /**
   * `nets`: a trained classifier per band (word-model.ts); a band with one is decided by it, the
   * templates are then only the second opinion described in `classify`.
   */
  constructor(
    templates: readonly WordTemplate[],
    opts: VocabularyOptions = {},
    limits?: Readonly<Record<string, number>>,
    private readonly nets: Partial<Record<WordBand, WordNet>> = {},
  ) {
    this.opts = {
      ...VOCABULARY_DEFAULTS,
      ...opts,
      modelWeight: perBand(opts.modelWeight, VOCABULARY_DEFAULTS.modelWeight),
      surenessWeight: perBand(opts.surenessWeight, VOCABULARY_DEFAULTS.surenessWeight),
      surenessTemperature: perBand(opts.surenessTemperature, VOCABULARY_DEFAULTS.surenessTemperature),
      minScore: perBand(opts.minScore, VOCABULARY_DEFAULTS.minScore),
    };
    this.templates = templates.map((t) => ({ ...t, feats: withDeltas(t.statics) }));
    this.words = [...new Set(templates.map((t) => t.word))];
    if (limits) for (const [k, v] of Object.entries(limits)) this.limits.set(k, v);
    else this.calibrate();
  }

  /**
   * Each word's limit from its own templates: for each template, the distance to the nearest
   * template of the same word by another speaker; a percentile of those, scaled.
   */
  private calibrate(): void {
    for (const band of ['wide', 'phone'] as const) {
      for (const word of this.words) {
        const own = this.templates.filter((t) => t.word === word && t.band === band);
        const nearest: number[] = [];
        for (const t of own) {
          let best = Number.POSITIVE_INFINITY;
          for (const o of own) if (o.source !== t.source) best = Math.min(best, this.distance(t.feats, o.feats));
          if (Number.isFinite(best)) nearest.push(best);
        }
        if (!nearest.length) continue;
        nearest.sort((a, b) => a - b);
        const base = nearest[Math.min(nearest.length - 1, Math.floor(this.opts.calibrationPercentile * nearest.length))]!;
        this.limits.set(key(band, word), round(base));
      }
    }
  }

  private distance(q: Float32Array[], t: Float32Array[], giveUpAt = Number.POSITIVE_INFINITY): number {
    const r = q.length / t.length;
    if (r > this.opts.maxLengthRatio || r < 1 / this.opts.maxLengthRatio) return Number.POSITIVE_INFINITY;
    return symmetricDtw(q, t, giveUpAt);
  }

  /**
   * Nearest distance per word for one word's normalized statics heard through `band`, one set
   * per warp of the mel bank (`warps` of the options; a single set: no search).
   */
  scores(warped: readonly Float32Array[][], band: WordBand): Map<string, number> {
    const qs = warped.map((statics) => withDeltas(statics));
    const best = new Map<string, number>();
    for (const t of this.templates) {
      if (t.band !== band) continue;
      for (const q of qs) {
        const nearest = best.get(t.word) ?? Number.POSITIVE_INFINITY;
        // A template that cannot come nearer than the word's nearest so far is given up early:
        // the same nearest distances as matching every template to its end (symmetricDtw).
        const d = this.distance(q, t.feats, nearest);
        if (d < nearest) best.set(t.word, d);
      }
    }
    return best;
  }

  /** The word these features are (per warp, warp 1 first), or undefined when none is clearly and closely it. */
  classify(warped: readonly Float32Array[][], band: WordBand): { word: string; confidence: number; cost: number } | undefined {
    if (!this.nets[band]) return this.fits(warped) ? this.nearest(warped, band) : undefined;
    const o = this.opinions(warped, band);
    const sureness = { weight: this.opts.surenessWeight[band], temperature: this.opts.surenessTemperature[band] };
    const fused = o && fuseOpinions(o, this.opts.modelWeight[band], this.opts.temperature, sureness);
    if (!fused || fused.score < this.opts.minScore[band]) return undefined;
    return { word: fused.word, confidence: round(Math.min(0.99, fused.score)), cost: round(fused.cost) };
  }

  private fits(warped: readonly Float32Array[][]): boolean {
    const n = warped[0]?.length ?? 0;
    return n >= 5 && n <= this.opts.maxWordS * WORD_FPS;
  }

  /**
   * With a trained model for the band, both opinions of one stretch (fused by word-fusion.ts):
   * the classifier's probabilities and the templates' distances, their "no word" at
   * `unknownScale` times the nearest word's calibrated limit. Undefined for a stretch too short
   * or too long to be one word, or without a model.
   */
  opinions(warped: readonly Float32Array[][], band: WordBand): WordOpinions | undefined {
    const net = this.nets[band];
    if (!net || !this.fits(warped)) return undefined;
    const distances = this.scores(warped, band);
    let nearest: [string, number] | undefined;
    for (const [w, d] of distances) if (!nearest || d < nearest[1]) nearest = [w, d];
    if (!nearest || !Number.isFinite(nearest[1])) return undefined;
    const noWord = this.opts.unknownScale * (this.limits.get(key(band, nearest[0])) ?? 0);
    return { band, classes: net.classes, probabilities: net.probabilities(wordVector(warped[0]!)), distances, noWord, frames: warped[0]!.length };
  }

  /** The templates' word: nearest by DTW, clearly nearer than the next word and within its limit. */
  private nearest(warped: readonly Float32Array[][], band: WordBand): { word: string; confidence: number; cost: number } | undefined {
    const ranked = [...this.scores(warped, band)].sort((a, b) => a[1] - b[1]);
    const [first, second] = ranked;
    if (!first || !Number.isFinite(first[1])) return undefined;
    const ratio = second ? first[1] / second[1] : 0;
    if (ratio > this.opts.maxRatio || first[1] > (this.limits.get(key(band, first[0])) ?? 0) * this.opts.thresholdScale) return undefined;
    return { word: first[0], confidence: round(Math.max(0.05, Math.min(0.99, 1.1 - ratio))), cost: round(first[1]) };
  }

  /**
   * The words of 16 kHz audio, one per stretch of speech between pauses, or undefined unless
   * every stretch is a word of the vocabulary. `partial`: the speaker is still talking, so the
   * last stretch (maybe cut short) is left out. `band`: 'phone' when the audio is known to come
   * from an 8 kHz line (else told from the audio, which misses lines that filter hard).
   */
  recognize(samples16k: Int16Array, partial = false, band: WordBand = bandOf(samples16k)): HeardWord[] | undefined {
    const { segments, features, near } = this.stretches(samples16k, partial, band);
    const hit = (a: number, b: number): HeardWord | undefined => {
      const c = this.classify(features(a, b), band);
      // Frame f covers samples [f, f + 2.5) hops: a word ends where its last frame does.
      return c && { ...c, start: round(segments[a]![0] / WORD_FPS), end: round((segments[b]![1] + 1.5) / WORD_FPS) };
    };
    return wordsOf(segments.length, (i) => hit(i, i), (i) => (near(i) ? hit(i, i + 1) : undefined));
  }

  /**
   * Both opinions of each stretch of speech alone (see `opinions`) and of each joined with the
   * next across a short pause, for a bench that decides them at other settings (with wordsOf).
   */
  hear(samples16k: Int16Array, partial = false, band: WordBand = bandOf(samples16k)): HeardStretches {
    const { segments, features, near } = this.stretches(samples16k, partial, band);
    return {
      singles: segments.map((_, i) => this.opinions(features(i, i), band)),
      joins: segments.slice(1).map((_, i) => (near(i) ? this.opinions(features(i, i + 1), band) : undefined)),
    };
  }

  /**
   * The stretches of speech between pauses; `features(a, b)`: the normalized statics per warp
   * from the start of stretch a to the end of stretch b; `near(i)`: stretch i + 1 follows i
   * closely enough to be tried as one word with it.
   */
  private stretches(samples16k: Int16Array, partial: boolean, band: WordBand) {
    // The warp search (about five times the cost) for a turn's final words only: interim results,
    // recognized again and again while the caller speaks, match at warp 1.
    const { powers, energy } = warpedFrames(samples16k, band, partial ? [1] : this.opts.warps);
    let segments = wordSegments(energy);
    if (partial) segments = segments.filter(([, b]) => b < energy.length - 0.3 * WORD_FPS);
    return {
      segments,
      features: (a: number, b: number) => powers.map((power) => normalizeWord(cepstraOf(power, segments[a]![0], segments[b]![1]))),
      near: (i: number) => segments[i + 1]![0] - segments[i]![1] <= this.opts.joinS * WORD_FPS,
    };
  }
}

/**
 * Templates of a word from audio holding that word alone: one over the whole band, and over the
 * telephone band one from the audio as it is and one from `phoneAudio`, the same recording as
 * heard through a phone line (a line may filter the band's edges hard or not at all).
 */
export function templatesOf(word: string, source: string, samples16k: Int16Array, phoneAudio?: Int16Array): WordTemplate[] {
  const cuts: [WordBand, Int16Array][] = [['wide', samples16k], ['phone', samples16k]];
  if (phoneAudio) cuts.push(['phone', phoneAudio]);
  return cuts.flatMap(([band, audio]) => {
    const statics = wordStatics(audio, band);
    return statics ? [{ word, source, band, statics }] : [];
  });
}

/**
 * The normalized statics of audio holding one word alone (`warp`: see wordFrames), or undefined
 * when it holds no speech. A recording may hold a breath or a click besides the word: the word
 * spans the stretches within 0.3 s of the longest one.
 */
export function wordStatics(audio: Int16Array, band: WordBand, warp = 1): Float32Array[] | undefined {
  const { power, energy } = wordFrames(audio, band, warp);
  const segments = wordSegments(energy);
  if (!segments.length) return undefined;
  const longest = segments.reduce((l, s) => (s[1] - s[0] > l[1] - l[0] ? s : l));
  const near = segments.filter(([a, b]) => b >= longest[0] - 0.3 * WORD_FPS && a <= longest[1] + 0.3 * WORD_FPS);
  return normalizeWord(cepstraOf(power, near[0]![0], near.at(-1)![1]));
}

/** The two rows of symmetricDtw's cost matrix, reused from call to call (grown as needed). */
let rows = [new Float64Array(64), new Float64Array(64)] as const;

/**
 * Symmetric DTW (Sakoe and Chiba) within a band around the diagonal: a diagonal step counts
 * the frame distance twice, so the total over both lengths compares words of any length.
 *
 * `giveUpAt`: a caller that only wants a distance below it (the nearest template of a word so
 * far) gets +Infinity as soon as a whole row of the matrix reaches it. Every path to the end
 * crosses each row and only adds non-negative distances, so the distance would have been at
 * least that: below `giveUpAt`, the result is the full computation's to the bit.
 */
export function symmetricDtw(q: Float32Array[], t: Float32Array[], giveUpAt = Number.POSITIVE_INFINITY): number {
  const n = q.length;
  const m = t.length;
  const band = Math.max(Math.abs(n - m) + 3, Math.round(0.4 * Math.max(n, m)));
  if (rows[0].length < m + 1) rows = [new Float64Array(2 * (m + 1)), new Float64Array(2 * (m + 1))];
  let [prev, cur] = rows;
  prev.fill(Number.POSITIVE_INFINITY, 0, m + 1);
  prev[0] = 0;
  for (let i = 1; i <= n; i++) {
    cur.fill(Number.POSITIVE_INFINITY, 0, m + 1);
    const centre = Math.round((i * m) / n);
    const lo = Math.max(1, centre - band);
    const hi = Math.min(m, centre + band);
    const a = q[i - 1]!;
    const dim = a.length;
    let rowMin = Number.POSITIVE_INFINITY;
    for (let j = lo; j <= hi; j++) {
      const b = t[j - 1]!;
      let d = 0;
      for (let k = 0; k < dim; k++) {
        const x = a[k]! - b[k]!;
        d += x * x;
      }
      d = Math.sqrt(d);
      const c = Math.min(prev[j - 1]! + 2 * d, prev[j]! + d, cur[j - 1]! + d);
      cur[j] = c;
      if (c < rowMin) rowMin = c;
    }
    if (giveUpAt < Number.POSITIVE_INFINITY && rowMin / (n + m) >= giveUpAt) return Number.POSITIVE_INFINITY;
    [prev, cur] = [cur, prev];
  }
  return prev[m]! / (n + m);
}

const round = (v: number) => Math.round(v * 1000) / 1000;

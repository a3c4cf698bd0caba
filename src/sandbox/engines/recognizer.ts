import { dtw, frameMatrix, type FrameMatrix } from './dtw.ts';
import { HOP_S, cepstra, melPower, noiseFloor, speechBounds, totalPower, type MelFrames } from './features.ts';
import { normalizeForMatch } from './tokenize.ts';
import { builtInVocabulary } from './builtin-vocabulary.ts';
import type { Vocabulary } from './vocabulary.ts';
import type { WordBand } from './word-features.ts';

/**
 * The sandbox's closed-set recognizer. No Arabic speech-recognition model can be installed
 * here, so it recognizes only speech it can match acoustically against phrases it has voiced
 * itself or was given in a phrasebook, and, in anyone's voice, the words of a small vocabulary
 * (digits, yes, no: see vocabulary.ts), one by one between short pauses. It says nothing (an
 * empty transcript) for anything else.
 */

export interface TemplateWord {
  word: string;
  /** Seconds from the start of the template audio. */
  start: number;
  end: number;
}

interface Template {
  text: string;
  key: string;
  /** Clean cepstra (one flat matrix, as the warp reads them), and the mel powers to recompute them as heard through noise. */
  frames: FrameMatrix;
  power: Float32Array[];
  meanPower: number;
  /** Frame offset removed by trimming, to map word times. */
  offset: number;
  words: { word: string; startFrame: number; endFrame: number }[];
}

export interface RecognizedWord {
  word: string;
  start: number;
  end: number;
  confidence: number;
}

export interface Recognition {
  text: string;
  words: RecognizedWord[];
  /** Mean frame distance of the best match; lower is closer. */
  cost: number;
  confidence: number;
}

export interface RecognizerOptions {
  /** Matches costlier than this are rejected as unknown speech. */
  maxCost?: number;
  maxTemplates?: number;
  /**
   * Single words heard in anyone's voice when no phrase matches; `false`: phrases only.
   * @default the built-in vocabulary (digits, نعم, لا, موافق)
   */
  vocabulary?: Vocabulary | false;
}

export class Recognizer {
  private readonly templates = new Map<string, Template>();
  readonly maxCost: number;
  private readonly maxTemplates: number;
  private readonly vocabulary: Vocabulary | undefined;

  constructor(opts: RecognizerOptions = {}) {
    this.maxCost = opts.maxCost ?? 24;
    this.maxTemplates = opts.maxTemplates ?? 3000;
    this.vocabulary = opts.vocabulary === false ? undefined : (opts.vocabulary ?? builtInVocabulary());
  }

  get size(): number {
    return this.templates.size;
  }

  /** Whether `add` would add nothing for this phrase (known already, or nothing to match). */
  knows(text: string, voiceKey = ''): boolean {
    const norm = normalizeForMatch(text);
    return !norm || this.templates.has(`${voiceKey}|${norm}`);
  }

  /**
   * Adds a phrase from 16 kHz audio and its word times. Re-adding the same audio is a no-op.
   * `mel`: the audio's `melPower`, when the caller has it already (mel-cache.ts).
   */
  add(text: string, samples16k: Int16Array, words: TemplateWord[], voiceKey = '', mel?: MelFrames): void {
    if (this.knows(text, voiceKey)) return;
    const key = `${voiceKey}|${normalizeForMatch(text)}`;
    const { power, energy } = mel ?? melPower(samples16k);
    const [a, b] = speechBounds(energy);
    if (b - a < 10) return;
    const trimmed = power.slice(a, b);
    if (this.templates.size >= this.maxTemplates) this.templates.delete(this.templates.keys().next().value!);
    this.templates.set(key, {
      text: text.trim(),
      key,
      frames: frameMatrix(cepstra(trimmed)),
      power: trimmed,
      meanPower: trimmed.reduce((n, f) => n + totalPower(f), 0) / trimmed.length,
      offset: a,
      words: words.map((w) => ({
        word: w.word,
        startFrame: Math.max(0, Math.round(w.start / HOP_S) - a),
        endFrame: Math.max(0, Math.round(w.end / HOP_S) - a),
      })),
    });
  }

  /**
   * Recognizes 16 kHz speech. `partial`: the speaker is still talking, so the audio is matched
   * against the beginnings of phrases and only the words already spoken are returned.
   * Times are seconds from the start of `samples16k`. `band`: 'phone' when the audio came at
   * 8 kHz (the vocabulary's words are then matched over the telephone band).
   */
  recognize(samples16k: Int16Array, partial = false, band?: WordBand): Recognition | undefined {
    return this.matchPhrase(samples16k, partial) ?? this.matchWords(samples16k, partial, band);
  }

  /** The words of the vocabulary, one per stretch of speech, when every stretch is one. */
  private matchWords(samples16k: Int16Array, partial: boolean, band: WordBand | undefined): Recognition | undefined {
    const words = this.vocabulary?.recognize(samples16k, partial, band);
    if (!words?.length) return undefined;
    const confidence = round(Math.min(...words.map((w) => w.confidence)));
    return {
      text: words.map((w) => w.word).join(' '),
      words: words.map(({ word, start, end, confidence }) => ({ word, start, end, confidence })),
      cost: round(words.reduce((n, w) => n + w.cost, 0) / words.length),
      confidence,
    };
  }

  /** The phrase the sandbox voiced or was given that this audio is. */
  private matchPhrase(samples16k: Int16Array, partial: boolean): Recognition | undefined {
    const { power, energy } = melPower(samples16k);
    const [a, b] = partial ? [speechBounds(energy)[0], energy.length] : speechBounds(energy);
    if (b - a < 10) return undefined;
    const speech = power.slice(a, b);
    const query = frameMatrix(cepstra(speech));
    // Templates are clean; the caller may not be. Each template is compared as it would sound
    // in the noise measured on this audio, at this audio's speech level.
    const noise = noiseFloor(power);
    const noisePower = totalPower(noise);
    const speechPower = speech.reduce((n, f) => n + totalPower(f), 0) / speech.length - noisePower;
    const noisy = noisePower > 1e-3 * speechPower;
    let best: { t: Template; cost: number; map: Int32Array; end: number } | undefined;
    let second = Number.POSITIVE_INFINITY;
    for (const t of this.templates.values()) {
      if (partial && t.frames.count < query.count * 0.4) continue;
      if (!partial && (query.count > 2.5 * t.frames.count || t.frames.count > 2.5 * query.count)) continue;
      const frames = noisy ? frameMatrix(cepstra(t.power, noise, Math.max(speechPower, 1e-9) / t.meanPower)) : t.frames;
      const r = dtw(query, frames, partial);
      if (!r) continue;
      // A phrase that is only part of a template (لا vs لا شكرا) warps cheaply but not evenly:
      // a duration mismatch costs extra, more than any speaking-rate difference would.
      const cost = partial ? r.cost : r.cost + LENGTH_PENALTY * Math.abs(Math.log(query.count / t.frames.count));
      if (!best || cost < best.cost) {
        if (best && best.t.text !== t.text) second = best.cost;
        best = { t, cost, map: r.queryToTemplate, end: r.templateEnd };
      } else if (t.text !== best.t.text) second = Math.min(second, cost);
    }
    if (!best || best.cost > this.maxCost) return undefined;
    // Noise makes every template look closer. What tells a real match is how much better it is
    // than the next phrase, and than the same template played backwards (same sounds, wrong
    // order): a phrase that was never voiced is about as close to either.
    const reversed = noisy ? frameMatrix(cepstra([...best.t.power].reverse(), noise, Math.max(speechPower, 1e-9) / best.t.meanPower)) : reversedFrames(best.t.frames);
    const back = dtw(query, reversed, partial);
    const backCost = back ? back.cost + (partial ? 0 : LENGTH_PENALTY * Math.abs(Math.log(query.count / reversed.count))) : Number.POSITIVE_INFINITY;
    const ratio = best.cost / Math.min(second, backCost);
    if (ratio > MAX_RATIO) return undefined;
    const confidence = Math.max(0.05, Math.min(0.99, 1.1 - ratio));
    const words: RecognizedWord[] = [];
    for (const w of best.t.words) {
      if (partial && w.endFrame > best.end + 10) break; // a word counts once nearly all of it is heard
      const first = best.map.findIndex((j) => j >= w.startFrame);
      let last = -1;
      for (let i = best.map.length - 1; i >= 0; i--) {
        if (best.map[i]! <= w.endFrame) {
          last = i;
          break;
        }
      }
      if (first < 0 || last < first) continue;
      words.push({ word: w.word, start: round((first + a) * HOP_S), end: round((last + a + 1) * HOP_S), confidence: round(confidence) });
    }
    if (!words.length) return undefined;
    const text = partial ? words.map((w) => w.word).join(' ') : best.t.text;
    return { text, words, cost: round(best.cost), confidence: round(confidence) };
  }
}

/** A template's frames, last first (the same sounds in the wrong order). */
function reversedFrames({ data, count, dim }: FrameMatrix): FrameMatrix {
  const out = new Float32Array(data.length);
  for (let f = 0; f < count; f++) out.set(data.subarray(f * dim, (f + 1) * dim), (count - 1 - f) * dim);
  return { data: out, count, dim };
}

const LENGTH_PENALTY = 5;
/** Best cost over the cost of the closest alternative; above this the match is not trusted. */
const MAX_RATIO = 0.8;
const round = (v: number) => Math.round(v * 1000) / 1000;


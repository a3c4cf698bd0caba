/**
 * The spoken-word vocabulary (digits, yes, no) on real human recordings, leave-one-speaker-out:
 * templates built without the held-out speaker each time.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resample } from '../src/audio/resample.ts';
import { decodeWav } from '../src/audio/wav.ts';
import { builtInVoices } from '../src/sandbox/catalogue.ts';
import { voiceText } from '../src/sandbox/engines/espeak.ts';
import { VOCABULARY_DEFAULTS, Vocabulary, templatesOf, type HeardStretches, type WordTemplate } from '../src/sandbox/engines/vocabulary.ts';
import type { PerBand } from '../src/sandbox/engines/word-fusion.ts';
import type { WordBand } from '../src/sandbox/engines/word-features.ts';
import { WordNet } from '../src/sandbox/engines/word-model.ts';
import { phoneLine8k } from './telephone-band.ts';
import { BAND_DATA, benchHalf, loadNoises, trainingHalf, trainingSet, trainingSetName, type DATA_DEFAULTS, type WordSample } from '../scripts/word-data.ts';
import type { MlpOptions } from '../scripts/word-mlp.ts';
import { cachedNets } from '../scripts/word-train.ts';
import { choose, nestedChoice, rowsAt, saveCases, weightSweep, type BenchCase, type FoldChoice, type Settings, type WordBenchRow } from './recognizer-choice.ts';

export const KEYWORDS: Record<string, string> = {
  zero: 'صفر', one: 'واحد', two: 'اثنان', three: 'ثلاثة', four: 'أربعة', five: 'خمسة', six: 'ستة',
  seven: 'سبعة', eight: 'ثمانية', nine: 'تسعة', yes: 'نعم', no: 'لا', ok: 'موافق',
};

export interface Clip { word: string; speaker: string; samples: Int16Array }

/** The recordings of a folder named `<keyword>_<speaker>.wav`. */
export function loadClips(dir: string): Clip[] {
  return readdirSync(dir).filter((f) => f.endsWith('.wav')).sort().map((f) => {
    const [key, speaker] = f.replace('.wav', '').split('_') as [string, string];
    const w = decodeWav(readFileSync(join(dir, f)));
    if (w.sampleRate !== 16000) throw new Error(`${f}: expected 16 kHz`);
    return { word: KEYWORDS[key]!, speaker, samples: w.samples };
  });
}

/** The vocabulary's words voiced by every catalogue voice, as templates. */
export async function espeakTemplates(words: string[]): Promise<WordTemplate[]> {
  const out: WordTemplate[] = [];
  for (const v of builtInVoices('')) {
    for (const w of words) {
      const r = await voiceText(w, v.espeak);
      // Silence around the word, as a recording has: the word's edges are found against it.
      const s16 = new Int16Array(Math.round(r.samples.length * (16000 / r.sampleRate)) + 9600);
      s16.set(await resample(r.samples, r.sampleRate, 16000), 4800);
      out.push(...templatesOf(w, `espeak:${v.record.voice_id}`, s16, await phoneLine(s16)));
    }
  }
  return out;
}

/** 16 kHz speech as heard through a phone line: 8 kHz, 300–3400 Hz, line noise (20 dB SNR unless told), mu-law. */
export async function phoneLine(s16: Int16Array, noise8k?: Int16Array, offset = 0, snrDb = 20): Promise<Int16Array> {
  return resample(phoneLine8k(await resample(s16, 16000, 8000), noise8k, offset, snrDb), 8000, 16000);
}

/** Templates of recordings, the telephone band's from the recording through a clean phone line. */
export async function humanTemplates(clips: Clip[]): Promise<WordTemplate[]> {
  const out: WordTemplate[] = [];
  for (const c of clips) out.push(...templatesOf(c.word, c.speaker, c.samples, await phoneLine(c.samples)));
  return out;
}

/** Words voiced by the sandbox that are not in the vocabulary. */
const ESPEAK_UNKNOWN = ['مرحبا', 'شكرا', 'عشرة', 'سبعين', 'كلا', 'ربما', 'الرصيد', 'بطاقة', 'أحد عشر', 'مئة', 'صباح الخير', 'طيب'];

const KNOWN: PerBand<string> = { wide: '16 kHz', phone: '8 kHz mu-law, 300–3400 Hz, noise 20 dB' };
const HELD_OUT: PerBand<string> = { wide: 'unknown: human word held out', phone: 'unknown: human word held out, phone line' };
const ESPEAK_OUT = 'unknown: espeak words';
/** Classifier weights tried per held-out speaker. */
const WEIGHTS = [0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5];

/** The bench's figures: rows at the shipped settings, with settings chosen per fold on the others, and curves. */
export interface WordBenchResult {
  rows: WordBenchRow[];
  /** With each fold's weights chosen on the other folds, at the shipped thresholds (and those settings). */
  weightRows: WordBenchRow[];
  weightChoices: FoldChoice[];
  /** With each fold's weight and threshold per band chosen on the other folds (bench/recognizer-choice.ts `choose`), and those settings. */
  nestedRows: WordBenchRow[];
  choices: FoldChoice[];
  /** The settings chosen the same way on all six speakers (the weights are VOCABULARY_DEFAULTS'; the thresholds are set from the trade-off). */
  chosen: Settings;
  /** Rows at a few thresholds (the same for both bands, shipped weights): the accuracy against rejection trade-off. */
  curve: { threshold: number; rows: WordBenchRow[] }[];
  /** Right words with no threshold per classifier weight, all six speakers. */
  sweep: { weight: number; rows: WordBenchRow[] }[];
  /** Every case with its opinions, for deciding at other settings. */
  cases: BenchCase[];
  cpuUsPerS: number;
  trainS: number;
}

/** What a trial of the word bench changes (bench/recognizer-trials.ts); the shipped bench passes none. */
export interface WordBenchOptions {
  /** More templates made of the recordings (each named by its speaker, so a fold leaves its held-out speaker's out), and of the espeak voices. */
  extraTemplates?: (clips: Clip[], words: string[], trainingNoises: Int16Array[]) => Promise<WordTemplate[]>;
  /** The training set's augmentation (scripts/word-data.ts DATA_DEFAULTS). */
  data?: Partial<typeof DATA_DEFAULTS>;
  /** The networks' training (scripts/word-mlp.ts MLP_DEFAULTS). */
  mlp?: MlpOptions;
  /** Also the people's unknown words (two trainings per held-out word); default true. */
  heldOut?: boolean;
  /** Where to keep every case's opinions and the templates' lengths (bench/recognizer-rules.ts decides them again). */
  casesFile?: string;
}

/**
 * Leave-one-speaker-out over the recordings: for each speaker, the classifier trained and the
 * templates taken without anything of theirs (their recordings, and every version or nonword
 * made from them); accuracy at 16 kHz and through a phone line; words outside the set rejected:
 * words of the 13 left out of training altogether (said by the held-out speaker, at 16 kHz and
 * through the phone line), and espeak words that training never voiced. Training noise is the
 * first half of each noise recording, the phone line's noise here the second half. Every case's
 * opinions are kept and decided after (bench/recognizer-choice.ts), so one run gives the rows
 * at any settings.
 */
export async function wordBench(audioDir: string, noiseDir: string, opts: WordBenchOptions = {}): Promise<WordBenchResult> {
  const clips = loadClips(audioDir);
  const words = [...new Set(Object.values(KEYWORDS))];
  const noises16 = existsSync(noiseDir) ? loadNoises(noiseDir) : [];
  const extra = opts.extraTemplates ? await opts.extraTemplates(clips, words, noises16.map(trainingHalf)) : [];
  const speakers = new Set(clips.map((c) => c.speaker));
  const voiced = [...(await espeakTemplates(words)), ...extra.filter((t) => !speakers.has(t.source))];
  const human = [...(await humanTemplates(clips)), ...extra.filter((t) => speakers.has(t.source))];
  const noises = await Promise.all(noises16.map((n) => resample(benchHalf(n), 16000, 8000)));
  const t0 = performance.now();
  // Made once and kept in .tmp/ (minutes of work); the same set the shipped weights come from.
  const cache = fileURLToPath(new URL('../.tmp/', import.meta.url));
  // Each band's network from its own training set (BAND_DATA: the phone band's hears each recording more ways).
  const sets = {} as Record<WordBand, { name: string; samples: WordSample[] }>;
  for (const band of ['wide', 'phone'] as const) {
    const data = { ...BAND_DATA[band], ...opts.data };
    sets[band] = { name: trainingSetName(clips, noises16.map(trainingHalf), words, data), samples: await trainingSet(clips, noises16.map(trainingHalf), words, cache, data) };
  }
  const unknownAudio = await Promise.all(
    builtInVoices('').map(async (v, i) => {
      const r = await voiceText(ESPEAK_UNKNOWN[i % ESPEAK_UNKNOWN.length]!, v.espeak);
      return resample(r.samples, r.sampleRate, 16000);
    }),
  );
  const cases: BenchCase[] = [];
  const hear = (fold: string, condition: string, band: WordBand, heard: HeardStretches, expected: string | undefined) =>
    cases.push({ fold, condition, band, expected, heard });
  // The folds' networks are kept in .tmp/ too: a rerun with other decision settings reuses them.
  // `pair`: both bands trained and kept in one file, as the folds' networks were first (a band of
  // its own training set keeps the pair made of that set, and uses its band).
  const nets = (name: string, keep: (s: WordSample) => boolean, known: string[], pair: boolean) => {
    const out: Partial<Record<WordBand, WordNet>> = {};
    for (const band of ['wide', 'phone'] as const) {
      const { name: set, samples } = sets[band];
      out[band] = new WordNet(cachedNets(`${set} ${name}`, samples.filter(keep), known, pair ? ['wide', 'phone'] : [band], opts.mlp, cache)[band]!);
    }
    return out;
  };
  const line = (samples: Int16Array, k: number) => phoneLine(samples, noises[k % Math.max(1, noises.length)], 7919 * k);
  let cpuMs = 0;
  let audioS = 0;
  let k = 0;
  let speakerIndex = 0;
  let heldK = 0;
  for (const speaker of [...new Set(clips.map((c) => c.speaker))]) {
    const theirs = (s: WordSample) => s.speaker !== speaker;
    const vocab = new Vocabulary([...human.filter((t) => t.source !== speaker), ...voiced], {}, undefined, nets(`without ${speaker}`, theirs, words, true));
    for (const c of clips.filter((c) => c.speaker === speaker)) {
      const t0 = performance.now();
      hear(speaker, KNOWN.wide, 'wide', vocab.hear(c.samples), c.word);
      cpuMs += performance.now() - t0;
      audioS += c.samples.length / 16000;
      hear(speaker, KNOWN.phone, 'phone', vocab.hear(await line(c.samples, k++), false, 'phone'), c.word);
    }
    // Every word left out in turn costs two trainings per word and speaker (156): by default four
    // words per speaker, each speaker other ones (HIWAR_BENCH_HELD_OUT=all: every word).
    const held = opts.heldOut === false ? [] : process.env.HIWAR_BENCH_HELD_OUT === 'all' ? words : [0, 1, 6, 7].map((i) => words[(2 * speakerIndex + i) % words.length]!);
    speakerIndex++;
    for (const word of held) {
      const known = words.filter((w) => w !== word);
      // Each band's network is its own training (and cache file).
      const heldNets = nets(`without ${speaker} and ${word}`, (s) => theirs(s) && !s.from.includes(word), known, false);
      const without = new Vocabulary([...human.filter((t) => t.source !== speaker && t.word !== word), ...voiced.filter((t) => t.word !== word)], {}, undefined, heldNets);
      const clip = clips.find((c) => c.speaker === speaker && c.word === word)!;
      hear(speaker, HELD_OUT.wide, 'wide', without.hear(clip.samples), undefined);
      hear(speaker, HELD_OUT.phone, 'phone', without.hear(await line(clip.samples, 1000 + heldK++), false, 'phone'), undefined);
    }
    for (const audio of unknownAudio) hear(speaker, ESPEAK_OUT, 'wide', vocab.hear(audio), undefined);
  }
  if (opts.casesFile) saveCases(opts.casesFile, { cases, lengths: [...human, ...voiced].map((t) => ({ word: t.word, source: t.source, band: t.band, frames: t.statics.length })) });
  const { modelWeight, minScore, temperature, surenessWeight, surenessTemperature } = VOCABULARY_DEFAULTS;
  const sureness = { wide: { weight: surenessWeight.wide, temperature: surenessTemperature.wide }, phone: { weight: surenessWeight.phone, temperature: surenessTemperature.phone } };
  const shipped: Settings = { weight: modelWeight, threshold: minScore, temperature, sureness };
  const choice = { grid: WEIGHTS, temperature, target: 0.9, known: KNOWN, unknown: HELD_OUT, sureness };
  const choices = nestedChoice(cases, choice);
  const perFold = new Map(choices.map((c) => [c.fold, c.settings]));
  const weightChoices = nestedChoice(cases, choice, minScore);
  const weightPerFold = new Map(weightChoices.map((c) => [c.fold, c.settings]));
  return {
    rows: rowsAt(cases, () => shipped),
    weightRows: rowsAt(cases, (c) => weightPerFold.get(c.fold)!),
    weightChoices,
    nestedRows: rowsAt(cases, (c) => perFold.get(c.fold)!),
    choices,
    chosen: choose(cases, choice),
    curve: [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9].map((t) => ({ threshold: t, rows: rowsAt(cases, () => ({ ...shipped, threshold: { wide: t, phone: t } })) })),
    sweep: weightSweep(cases, WEIGHTS, temperature),
    cases,
    cpuUsPerS: (1000 * cpuMs) / audioS,
    trainS: (performance.now() - t0) / 1000,
  };
}

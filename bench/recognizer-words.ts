/**
 * The spoken-word vocabulary (digits, yes, no) on real human recordings, leave-one-speaker-out:
 * templates built without the held-out speaker each time.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mulaw } from '../src/audio/g711.ts';
import { mixAtSnr } from '../src/audio/pcm.ts';
import { resample } from '../src/audio/resample.ts';
import { decodeWav } from '../src/audio/wav.ts';
import { builtInVoices } from '../src/sandbox/catalogue.ts';
import { voiceText } from '../src/sandbox/engines/espeak.ts';
import { Vocabulary, templatesOf, type VocabularyOptions, type WordTemplate } from '../src/sandbox/engines/vocabulary.ts';
import type { WordBand } from '../src/sandbox/engines/word-features.ts';
import { WordNet } from '../src/sandbox/engines/word-model.ts';
import { telephoneBand } from './telephone-band.ts';
import { benchHalf, loadNoises, trainingHalf, trainingSet, type WordSample } from '../scripts/word-data.ts';
import { trainNets } from '../scripts/word-train.ts';

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
  let s8 = telephoneBand(await resample(s16, 16000, 8000), 8000);
  if (noise8k) s8 = mixAtSnr(s8, noise8k.subarray(offset % Math.max(1, noise8k.length - s8.length)), snrDb);
  return resample(mulaw.decode(mulaw.encode(s8)), 8000, 16000);
}

/** Templates of recordings, the telephone band's from the recording through a clean phone line. */
export async function humanTemplates(clips: Clip[]): Promise<WordTemplate[]> {
  const out: WordTemplate[] = [];
  for (const c of clips) out.push(...templatesOf(c.word, c.speaker, c.samples, await phoneLine(c.samples)));
  return out;
}

/** Words voiced by the sandbox that are not in the vocabulary. */
const ESPEAK_UNKNOWN = ['مرحبا', 'شكرا', 'عشرة', 'سبعين', 'كلا', 'ربما', 'الرصيد', 'بطاقة', 'أحد عشر', 'مئة', 'صباح الخير', 'طيب'];

export interface WordBenchRow {
  condition: string;
  right: number;
  total: number;
  /** Said nothing (rather than a wrong word). */
  silent: number;
}

/**
 * Leave-one-speaker-out over the recordings: for each speaker, the classifier trained and the
 * templates taken without anything of theirs (their recordings, and every version or nonword
 * made from them); accuracy at 16 kHz and through a phone line; words outside the set rejected:
 * each of the 13 in turn left out of training altogether (said by the held-out speaker), and
 * espeak words that training never voiced. Training noise is the first half of each noise
 * recording, the phone line's noise here the second half.
 */
export async function wordBench(audioDir: string, noiseDir: string, opts: VocabularyOptions = {}): Promise<{ rows: WordBenchRow[]; cpuUsPerS: number; trainS: number }> {
  const clips = loadClips(audioDir);
  const words = [...new Set(Object.values(KEYWORDS))];
  const voiced = await espeakTemplates(words);
  const human = await humanTemplates(clips);
  const noises16 = existsSync(noiseDir) ? loadNoises(noiseDir) : [];
  const noises = await Promise.all(noises16.map((n) => resample(benchHalf(n), 16000, 8000)));
  const t0 = performance.now();
  // Made once and kept in .tmp/ (minutes of work); the same set the shipped weights come from.
  const samples = await trainingSet(clips, noises16.map(trainingHalf), words, fileURLToPath(new URL('../.tmp/', import.meta.url)));
  const unknownAudio = await Promise.all(
    builtInVoices('').map(async (v, i) => {
      const r = await voiceText(ESPEAK_UNKNOWN[i % ESPEAK_UNKNOWN.length]!, v.espeak);
      return resample(r.samples, r.sampleRate, 16000);
    }),
  );
  const rows: Record<string, WordBenchRow> = {};
  const row = (condition: string) => (rows[condition] ??= { condition, right: 0, total: 0, silent: 0 });
  const score = (condition: string, heard: { word: string }[] | undefined, expected: string | undefined) => {
    const r = row(condition);
    r.total++;
    if (expected === undefined ? !heard : heard?.length === 1 && heard[0]!.word === expected) r.right++;
    if (!heard) r.silent++;
  };
  const nets = (train: WordSample[], known: string[], bands?: WordBand[]) =>
    Object.fromEntries(Object.entries(trainNets(train, known, bands)).map(([b, n]) => [b, new WordNet(n)]));
  let cpuMs = 0;
  let audioS = 0;
  let k = 0;
  let speakerIndex = 0;
  for (const speaker of [...new Set(clips.map((c) => c.speaker))]) {
    const train = samples.filter((s) => s.speaker !== speaker);
    const vocab = new Vocabulary([...human.filter((t) => t.source !== speaker), ...voiced], opts, undefined, nets(train, words));
    for (const c of clips.filter((c) => c.speaker === speaker)) {
      const t0 = performance.now();
      score('16 kHz', vocab.recognize(c.samples), c.word);
      cpuMs += performance.now() - t0;
      audioS += c.samples.length / 16000;
      const line = await phoneLine(c.samples, noises[k % Math.max(1, noises.length)], 7919 * k++);
      score(`8 kHz mu-law, 300–3400 Hz${noises.length ? ', noise 20 dB' : ''}`, vocab.recognize(line, false, 'phone'), c.word);
    }
    // Every word left out in turn costs one training per word and speaker (78): by default two
    // words per speaker, a different pair each time (HIWAR_BENCH_HELD_OUT=all: every word).
    const held = process.env.HIWAR_BENCH_HELD_OUT === 'all' ? words : [0, 1].map((i) => words[(2 * speakerIndex + i) % words.length]!);
    speakerIndex++;
    for (const word of held) {
      const known = words.filter((w) => w !== word);
      const rest = train.filter((s) => !s.from.includes(word));
      const without = new Vocabulary([...human.filter((t) => t.source !== speaker && t.word !== word), ...voiced.filter((t) => t.word !== word)], opts, undefined, nets(rest, known, ['wide']));
      const clip = clips.find((c) => c.speaker === speaker && c.word === word)!;
      score('unknown: human word held out', without.recognize(clip.samples), undefined);
    }
    for (const audio of unknownAudio) score('unknown: espeak words', vocab.recognize(audio), undefined);
  }
  return { rows: Object.values(rows), cpuUsPerS: (1000 * cpuMs) / audioS, trainS: (performance.now() - t0) / 1000 };
}

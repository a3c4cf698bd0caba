/**
 * The spoken-word vocabulary (digits, yes, no) on real human recordings, leave-one-speaker-out:
 * templates built without the held-out speaker each time.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mulaw } from '../src/audio/g711.ts';
import { mixAtSnr } from '../src/audio/pcm.ts';
import { resample } from '../src/audio/resample.ts';
import { decodeWav } from '../src/audio/wav.ts';
import { builtInVoices } from '../src/sandbox/catalogue.ts';
import { voiceText } from '../src/sandbox/engines/espeak.ts';
import { Vocabulary, templatesOf, type VocabularyOptions, type WordTemplate } from '../src/sandbox/engines/vocabulary.ts';

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

/** Butterworth biquads: 300 Hz high-pass then 3400 Hz low-pass, at `rate`. */
export function telephoneBand(x: Int16Array, rate: number): Int16Array {
  const biquad = (input: Float64Array, f0: number, high: boolean) => {
    const w = (2 * Math.PI * f0) / rate;
    const alpha = Math.sin(w) / Math.SQRT2;
    const cos = Math.cos(w);
    const b0 = high ? (1 + cos) / 2 : (1 - cos) / 2;
    const b1 = high ? -(1 + cos) : 1 - cos;
    const a0 = 1 + alpha;
    const a1 = -2 * cos;
    const a2 = 1 - alpha;
    const out = new Float64Array(input.length);
    let [x1, x2, y1, y2] = [0, 0, 0, 0];
    for (let i = 0; i < input.length; i++) {
      const y = (b0 * input[i]! + b1 * x1 + b0 * x2 - a1 * y1 - a2 * y2) / a0;
      [x2, x1, y2, y1] = [x1, input[i]!, y1, y];
      out[i] = y;
    }
    return out;
  };
  let s = Float64Array.from(x);
  for (let k = 0; k < 2; k++) s = biquad(s, 300, true);
  for (let k = 0; k < 2; k++) s = biquad(s, 3400, false);
  return Int16Array.from(s, (v) => Math.max(-32768, Math.min(32767, Math.round(v))));
}

/** 16 kHz speech as heard through a phone line: 8 kHz, 300–3400 Hz, line noise at 20 dB SNR, mu-law. */
export async function phoneLine(s16: Int16Array, noise8k?: Int16Array, offset = 0): Promise<Int16Array> {
  let s8 = telephoneBand(await resample(s16, 16000, 8000), 8000);
  if (noise8k) s8 = mixAtSnr(s8, noise8k.subarray(offset % (noise8k.length - s8.length)), 20);
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
 * Leave-one-speaker-out over the recordings: for each speaker, templates from the other
 * speakers and the sandbox's voices; accuracy at 16 kHz and through a phone line; held-out
 * words (one word's templates removed at a time) and espeak words outside the set rejected.
 */
export async function wordBench(audioDir: string, noiseDir: string, opts: VocabularyOptions = {}): Promise<{ rows: WordBenchRow[]; cpuUsPerS: number }> {
  const clips = loadClips(audioDir);
  const words = [...new Set(Object.values(KEYWORDS))];
  const voiced = await espeakTemplates(words);
  const human = await humanTemplates(clips);
  const noises = existsSync(noiseDir)
    ? await Promise.all(readdirSync(noiseDir).filter((f) => f.endsWith('.wav')).sort().map(async (f) => resample(decodeWav(readFileSync(join(noiseDir, f))).samples, 16000, 8000)))
    : [];
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
  let cpuMs = 0;
  let audioS = 0;
  let k = 0;
  for (const speaker of [...new Set(clips.map((c) => c.speaker))]) {
    const vocab = new Vocabulary([...human.filter((t) => t.source !== speaker), ...voiced], opts);
    for (const c of clips.filter((c) => c.speaker === speaker)) {
      const t0 = performance.now();
      score('16 kHz', vocab.recognize(c.samples), c.word);
      cpuMs += performance.now() - t0;
      audioS += c.samples.length / 16000;
      const line = await phoneLine(c.samples, noises[k % Math.max(1, noises.length)], 7919 * k++);
      score(`8 kHz mu-law, 300–3400 Hz${noises.length ? ', noise 20 dB' : ''}`, vocab.recognize(line, false, 'phone'), c.word);
    }
    for (const word of words) {
      const without = new Vocabulary([...human.filter((t) => t.source !== speaker && t.word !== word), ...voiced.filter((t) => t.word !== word)], opts);
      const clip = clips.find((c) => c.speaker === speaker && c.word === word)!;
      score('unknown: human word held out', without.recognize(clip.samples), undefined);
    }
    for (const audio of unknownAudio) score('unknown: espeak words', vocab.recognize(audio), undefined);
  }
  return { rows: Object.values(rows), cpuUsPerS: (1000 * cpuMs) / audioS };
}

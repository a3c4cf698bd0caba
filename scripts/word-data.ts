/**
 * For maintainers: the spoken-word classifier's training set. Each recording of a person is
 * heard many ways (faster and slower, through a longer or shorter vocal tract, in real noise,
 * through a phone line); the sandbox's espeak-ng voices and their variants say the words too;
 * and an "unknown" class holds words outside the vocabulary (voiced by espeak-ng) and nonwords
 * made of the people's own recordings (played backwards, two words' halves joined).
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPolyphaseResampler } from '../src/audio/polyphase.ts';
import { decodeWav } from '../src/audio/wav.ts';
import { builtInVoices } from '../src/sandbox/catalogue.ts';
import { voiceText, type EspeakVoice } from '../src/sandbox/engines/espeak.ts';
import { convertVoice } from '../src/sandbox/engines/render-cache.ts';
import { wordStatics } from '../src/sandbox/engines/vocabulary.ts';
import { UNKNOWN_CLASS, WORD_MODEL, wordVector } from '../src/sandbox/engines/word-model.ts';
import type { WordBand } from '../src/sandbox/engines/word-features.ts';
import type { Clip } from '../bench/recognizer-words.ts';
import { phoneLine8k } from '../bench/telephone-band.ts';
import { seeded } from './word-mlp.ts';

/** How much of everything the training set holds. */
export const DATA_DEFAULTS = {
  /** Versions of each recording (the first as recorded). */
  perClip: 24,
  speed: [0.85, 1.15] as const,
  warp: [0.88, 1.12] as const,
  /** SNR of real noise mixed in (half the versions), and of a phone line's noise, in dB. */
  snr: [5, 30] as const,
  lineSnr: [12, 35] as const,
  seed: 29,
};

/**
 * What each band's training set changes from DATA_DEFAULTS: the phone band's network hears each
 * recording twice as many ways (docs/sandbox.md#words-in-anyones-voice, the fourth round).
 */
export const BAND_DATA: Record<WordBand, Partial<typeof DATA_DEFAULTS>> = { wide: {}, phone: { perClip: 48 } };

/** One training example: its label, where it came from, and its vector in each band. */
export interface WordSample {
  label: string;
  /** A person's id, or 'espeak' (never held out). */
  speaker: string;
  /** The vocabulary words this example was made from (a nonword made of halves names both). */
  from: string[];
  /** Heard as recorded (no speed, warp, gain or noise changes; a phone line at 20 dB). */
  clean: boolean;
  wide: Float32Array;
  phone: Float32Array;
}

/**
 * Words outside the vocabulary for the unknown class, voiced by espeak-ng. Kept apart from the
 * bench's own list of unknown words (bench/recognizer-words.ts), which must stay unseen.
 */
export const OOV_WORDS = [
  'أهلا', 'سلام', 'كيف', 'حالك', 'بيت', 'سيارة', 'كتاب', 'قلم', 'ماء', 'خبز', 'شمس', 'قمر', 'ليل', 'نهار',
  'اليوم', 'غدا', 'أمس', 'دقيقة', 'رقم', 'حساب', 'هاتف', 'عنوان', 'اسم', 'من فضلك', 'عفوا', 'آسف', 'ممكن',
  'أريد', 'تمام', 'أكيد', 'أبدا', 'صحيح', 'خطأ', 'ثلاثون', 'خمسون', 'ستون', 'ثمانون', 'تسعون', 'عشرون',
  'أول', 'ثالث', 'خامس', 'سادس', 'لماذا', 'متى', 'أين', 'موظف', 'مساعدة', 'فاتورة', 'دفع', 'سفر', 'مدينة',
  'شارع', 'طبيب', 'مدرسة', 'سوق', 'عمل', 'وقت', 'صديق', 'كبير', 'صغير', 'جديد', 'قديم', 'بارد', 'حار',
];

/** espeak-ng variants that say the words besides the catalogue voices. */
export const ESPEAK_VARIANTS: EspeakVoice[] = ['ar', ...[1, 2, 3, 4, 5, 6, 7].map((n) => `ar+m${n}`), ...[1, 2, 3, 4, 5].map((n) => `ar+f${n}`)].flatMap((name) =>
  [30, 65].flatMap((pitch) => [135, 175].map((wpm) => ({ name, pitch, wpm }))),
);

/** The noise recordings, 16 kHz; training uses the first half of each, the bench the second. */
export function loadNoises(dir: string): Int16Array[] {
  return readdirSync(dir).filter((f) => f.endsWith('.wav')).sort().map((f) => decodeWav(readFileSync(join(dir, f))).samples);
}
export const trainingHalf = (noise: Int16Array) => noise.subarray(0, noise.length >> 1);
export const benchHalf = (noise: Int16Array) => noise.subarray(noise.length >> 1);

type Rnd = () => number;
const at8k = new WeakMap<Int16Array, Int16Array>();
/** A noise recording at 8 kHz for phone lines (converted once). */
export function noise8k(noise: Int16Array): Int16Array {
  let r = at8k.get(noise);
  if (!r) at8k.set(noise, (r = convert(noise, 16000, 8000)));
  return r;
}

// Training converts thousands of clips: the polyphase filter (16 ↔ 8 kHz) and linear
// interpolation (speed) are many times faster than libsamplerate and plenty for augmentation.
function convert(x: Int16Array, from: number, to: number): Int16Array {
  const r = createPolyphaseResampler(from, to);
  const a = r.push(x);
  const tail = r.push(new Int16Array(128));
  const out = new Int16Array(a.length + tail.length);
  out.set(a);
  out.set(tail, a.length);
  return out;
}

/** The audio played `speed` times faster (pitch rises with it, as with a tape). */
export function faster(x: Int16Array, speed: number): Int16Array {
  return Int16Array.from({ length: Math.floor((x.length - 1) / speed) }, (_, i) => {
    const t = i * speed;
    const k = Math.floor(t);
    return Math.round(x[k]! + (t - k) * (x[k + 1]! - x[k]!));
  });
}

/** The bench's phone line (phoneLine8k), through the polyphase conversions. */
export function line(s16: Int16Array, noise: Int16Array | undefined, offset: number, snrDb: number): Int16Array {
  return convert(phoneLine8k(convert(s16, 16000, 8000), noise, offset, snrDb), 8000, 16000);
}
const between = (rnd: Rnd, [a, b]: readonly [number, number]) => a + (b - a) * rnd();

export function mix(speech: Int16Array, noise: Int16Array, snrDb: number, offset: number): Int16Array {
  let s = 0;
  let n = 0;
  for (const v of speech) if (Math.abs(v) > 50) (s += v * v), n++;
  const speechRms = Math.sqrt(s / Math.max(1, n)) || 1;
  const at = offset % Math.max(1, noise.length - speech.length);
  let e = 0;
  for (let i = 0; i < speech.length; i++) e += noise[(at + i) % noise.length]! ** 2;
  const gain = speechRms / (Math.sqrt(e / speech.length) || 1) / 10 ** (snrDb / 20);
  return Int16Array.from(speech, (v, i) => Math.max(-32768, Math.min(32767, Math.round(v + gain * noise[(at + i) % noise.length]!))));
}

/** One version of a recording, and its vectors through both bands (undefined: no speech found). */
function version(samples: Int16Array, rnd: Rnd, noises: Int16Array[], clean: boolean, o: typeof DATA_DEFAULTS = DATA_DEFAULTS): { wide: Float32Array; phone: Float32Array } | undefined {
  let audio = samples;
  let warp = 1;
  if (!clean) {
    const speed = between(rnd, o.speed);
    audio = faster(audio, speed);
    warp = between(rnd, o.warp);
    const gain = 10 ** ((rnd() * 24 - 12) / 20);
    audio = Int16Array.from(audio, (v) => Math.max(-32768, Math.min(32767, Math.round(v * gain))));
    if (noises.length && rnd() < 0.5) audio = mix(audio, noises[Math.floor(rnd() * noises.length)]!, between(rnd, o.snr), Math.floor(rnd() * 1e7));
  }
  const line8k = noises.length ? noise8k(noises[Math.floor(rnd() * noises.length)]!) : undefined;
  const phoneAudio = line(audio, line8k, Math.floor(rnd() * 1e6), clean ? 20 : between(rnd, o.lineSnr));
  const wide = wordStatics(audio, 'wide', warp);
  const phone = wordStatics(phoneAudio, 'phone', warp);
  if (!wide || !phone) return undefined;
  return { wide: wordVector(wide), phone: wordVector(phone) };
}

/** The recording cut to its word (with 0.1 s either side), for joining halves and reversing. */
function cutWord(samples: Int16Array): Int16Array {
  const s = wordStatics(samples, 'wide');
  if (!s) return samples;
  // wordStatics does not say where; find the loud span again by frame energy.
  let peak = 0;
  const e: number[] = [];
  for (let f = 0; f + 400 <= samples.length; f += 160) {
    let x = 0;
    for (let i = 0; i < 400; i++) x += samples[f + i]! ** 2;
    e.push(x);
    peak = Math.max(peak, x);
  }
  const loud = e.map((x, f) => [x, f] as const).filter(([x]) => x > peak / 1000).map(([, f]) => f);
  const a = Math.max(0, loud[0]! * 160 - 1600);
  const b = Math.min(samples.length, loud.at(-1)! * 160 + 400 + 1600);
  return samples.subarray(a, b);
}

/** Versions of people's recordings, with nonwords made of them. */
export async function humanSamples(clips: Clip[], noises: Int16Array[], opts: Partial<typeof DATA_DEFAULTS> = {}): Promise<WordSample[]> {
  const o = { ...DATA_DEFAULTS, ...opts };
  const rnd = seeded(o.seed);
  const out: WordSample[] = [];
  for (const c of clips) {
    for (let k = 0; k < o.perClip; k++) {
      const v = version(c.samples, rnd, noises, k === 0, o);
      if (v) out.push({ label: c.word, speaker: c.speaker, from: [c.word], clean: k === 0, ...v });
    }
  }
  // Nonwords in the same voices: each recording backwards, and joined halves of two words.
  for (const c of clips) {
    const cut = cutWord(c.samples);
    const others = clips.filter((d) => d.speaker === c.speaker && d.word !== c.word);
    const d = others[Math.floor(rnd() * others.length)]!;
    const dcut = cutWord(d.samples);
    const joined = new Int16Array((cut.length >> 1) + dcut.length - (dcut.length >> 1));
    joined.set(cut.subarray(0, cut.length >> 1));
    joined.set(dcut.subarray(dcut.length >> 1), cut.length >> 1);
    const made: [Int16Array, string[]][] = [[cut.slice().reverse(), [c.word]], [joined, [c.word, d.word]]];
    for (const [audio, from] of made) {
      for (let k = 0; k < 3; k++) {
        const v = version(audio, rnd, noises, k === 0, o);
        if (v) out.push({ label: UNKNOWN_CLASS, speaker: c.speaker, from, clean: k === 0, ...v });
      }
    }
  }
  return out;
}

/** The words (and OOV_WORDS, as unknown) voiced by the catalogue voices and ESPEAK_VARIANTS. */
export async function espeakSamples(words: string[], noises: Int16Array[], opts: Partial<typeof DATA_DEFAULTS> = {}): Promise<WordSample[]> {
  const o = { ...DATA_DEFAULTS, ...opts };
  const rnd = seeded(o.seed + 1);
  const voices = [...builtInVoices('').map((v) => v.espeak), ...ESPEAK_VARIANTS];
  const out: WordSample[] = [];
  const say = async (text: string, voice: EspeakVoice, label: string, from: string[], clean: boolean) => {
    const r = await voiceText(text, voice);
    const s16 = new Int16Array(Math.round(r.samples.length * (16000 / r.sampleRate)) + 9600);
    s16.set(await convertVoice(r.samples, r.sampleRate, 16000), 4800);
    const v = version(s16, rnd, noises, clean, o);
    if (v) out.push({ label, speaker: 'espeak', from, clean, ...v });
  };
  for (const [i, voice] of voices.entries()) {
    const catalogue = i < 5;
    for (const w of words) await say(w, voice, w, [w], catalogue);
    // The catalogue voices also heard a little off, as a browser or a line may change them.
    if (catalogue) for (const w of words) await say(w, voice, w, [w], false);
    for (let k = 0; k < (catalogue ? OOV_WORDS.length : 6); k++) {
      const w = catalogue ? OOV_WORDS[k]! : OOV_WORDS[Math.floor(rnd() * OOV_WORDS.length)]!;
      await say(w, voice, UNKNOWN_CLASS, [], catalogue);
    }
  }
  return out;
}

/**
 * The whole training set (people's versions and nonwords, then the espeak voices), kept in
 * `cacheDir` once made: making it takes minutes, and the bench and the build need the same one.
 * The cache's name changes with everything that shapes it.
 */
export async function trainingSet(clips: Clip[], noises: Int16Array[], words: string[], cacheDir?: string, opts: Partial<typeof DATA_DEFAULTS> = {}): Promise<WordSample[]> {
  const file = cacheDir && join(cacheDir, trainingSetName(clips, noises, words, opts));
  if (file && existsSync(`${file}.bin`)) {
    const { D, meta } = JSON.parse(readFileSync(`${file}.json`, 'utf8')) as { D: number; meta: [string, string, string[], boolean][] };
    const raw = readFileSync(`${file}.bin`);
    const buf = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
    return meta.map(([label, speaker, from, clean], i) => ({ label, speaker, from, clean, wide: buf.subarray(2 * i * D, (2 * i + 1) * D), phone: buf.subarray((2 * i + 1) * D, (2 * i + 2) * D) }));
  }
  const all = [...(await humanSamples(clips, noises, opts)), ...(await espeakSamples(words, noises, opts))];
  if (file) {
    const D = all[0]!.wide.length;
    const buf = new Float32Array(all.length * 2 * D);
    all.forEach((s, i) => {
      buf.set(s.wide, 2 * i * D);
      buf.set(s.phone, (2 * i + 1) * D);
    });
    mkdirSync(cacheDir!, { recursive: true });
    writeFileSync(`${file}.bin`, Buffer.from(buf.buffer));
    writeFileSync(`${file}.json`, JSON.stringify({ D, meta: all.map((s) => [s.label, s.speaker, s.from, s.clean]) }));
  }
  return all;
}

/** The cache's file name (without .bin/.json) for these inputs. */
export function trainingSetName(clips: Clip[], noises: Int16Array[], words: string[], opts: Partial<typeof DATA_DEFAULTS> = {}): string {
  const parts = [{ ...DATA_DEFAULTS, ...opts }, WORD_MODEL, OOV_WORDS, ESPEAK_VARIANTS, words, clips.map((c) => [c.word, c.speaker, c.samples.length]), noises.map((n) => n.length)];
  return `word-samples-${createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 12)}`;
}

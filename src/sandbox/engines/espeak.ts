import { decodeWav } from '../../audio/wav.ts';
import { concatPcm, silence } from '../../audio/pcm.ts';
import { tokenize } from './tokenize.ts';
import { runEspeakProcess } from './espeak-process.ts';

/** espeak-ng speaks at this rate; callers resample to what they need. */
export const ESPEAK_RATE = 22050;

export interface EspeakVoice {
  /** espeak-ng voice name: 'ar', or a variant such as 'ar+f3'. */
  name: string;
  /** 0..99 */
  pitch: number;
  /** Words per minute at speed 1.0. */
  wpm: number;
}

export interface TimedWord {
  word: string;
  /** Seconds in the voiced audio. */
  start: number;
  end: number;
  /** Character range in the text. */
  charStart: number;
  charEnd: number;
}

export interface Voiced {
  samples: Int16Array;
  sampleRate: number;
  words: TimedWord[];
  /** Every piece of the text with its time span, for character alignment. */
  spans: { start: number; end: number; charStart: number; charEnd: number }[];
}

export class EspeakMissingError extends Error {
  override name = 'EspeakMissingError';
}

/** The text would voice more audio than one request may produce. */
export class AudioTooLongError extends Error {
  override name = 'AudioTooLongError';
  constructor(limitS: number) {
    super(`Text too long: one request may produce at most ${limitS} s of audio`);
  }
}

/** No word is voiced shorter than this: a floor used to refuse long text before voicing it. */
const MIN_WORD_S = 0.12;

const WORD_GAP_S = 0.04;
const cache = new Map<string, Promise<Int16Array>>();
const CACHE_MAX = 5000;
let running = 0;
const waiting: (() => void)[] = [];
const MAX_PARALLEL = 4;

async function limited<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= MAX_PARALLEL) await new Promise<void>((r) => waiting.push(r));
  running++;
  try {
    return await fn();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

function runEspeak(text: string, voice: EspeakVoice, speed: number): Promise<Int16Array> {
  const args = ['-v', voice.name, '-p', String(voice.pitch), '-s', String(Math.round(voice.wpm * speed)), '--stdout', '--', text];
  return limited(async () => {
    // An espeak-ng that exits 0 with no readable WAV was seen once in a busy test run (cause not
    // found; the same word voiced fine before and after), so such a voicing is tried once more.
    for (let attempt = 1; ; attempt++) {
      const run = await runEspeakProcess(args);
      if (run.missing) throw new EspeakMissingError('espeak-ng is not installed (apt-get install espeak-ng)');
      if (run.code !== 0) throw new Error(`espeak-ng failed (${run.code}): ${run.err.trim()}`);
      try {
        return trim(decodeWav(run.out).samples);
      } catch (e) {
        if (attempt >= 2) throw new Error(`espeak-ng gave no readable audio (${run.out.length} bytes): ${(e as Error).message}`);
      }
    }
  });
}

/** Drops the silence espeak-ng leaves around a word, keeping 10 ms either side. */
function trim(s: Int16Array): Int16Array {
  const pad = Math.round(0.01 * ESPEAK_RATE);
  let a = 0;
  let b = s.length - 1;
  while (a < s.length && Math.abs(s[a]!) < 300) a++;
  while (b > a && Math.abs(s[b]!) < 300) b--;
  if (a >= b) return new Int16Array(0);
  return s.slice(Math.max(0, a - pad), Math.min(s.length, b + pad + 1));
}

/**
 * Voiced words kept beyond this process (render-cache.ts keeps them beside the voiced lines):
 * processes that share it spawn espeak-ng once per word, not once each. Voicing is deterministic,
 * so a kept word is the very audio espeak-ng would give again.
 */
export interface WordStore {
  get(key: string): Promise<Int16Array | undefined>;
  put(key: string, samples: Int16Array): Promise<void>;
}

function voiceWord(raw: string, voice: EspeakVoice, speed: number, store?: WordStore): Promise<Int16Array> {
  // Control characters (a NUL above all) cannot go into a process argument, and are not speech.
  const word = raw.replace(/\p{Cc}/gu, '');
  if (!word) return Promise.resolve(new Int16Array(0));
  const key = `${voice.name}|${voice.pitch}|${voice.wpm}|${speed}|${word}`;
  let hit = cache.get(key);
  if (!hit) {
    if (cache.size >= CACHE_MAX) cache.delete(cache.keys().next().value!);
    hit = store
      ? store.get(key).then(async (kept) => {
          if (kept) return kept;
          const made = await runEspeak(word, voice, speed);
          await store.put(key, made);
          return made;
        })
      : runEspeak(word, voice, speed);
    hit.catch(() => cache.delete(key));
    cache.set(key, hit);
  }
  return hit;
}

/**
 * Voices text word by word so that every word's time span is known exactly; punctuation and
 * break tags become pauses. Returns PCM16 at 22.05 kHz. `store`: where voiced words are also
 * kept for other processes (see WordStore).
 */
export async function voiceText(text: string, voice: EspeakVoice, speed = 1, maxSeconds = Infinity, store?: WordStore): Promise<Voiced> {
  const pieces = tokenize(text);
  // Refuse before spawning espeak or allocating anything when even the shortest voicing of the
  // words plus the pauses (break tags) would pass the limit; the exact length is checked below.
  let floor = 0;
  for (const p of pieces) floor += p.kind === 'pause' ? p.seconds : p.kind === 'word' ? MIN_WORD_S / speed : 0;
  if (floor > maxSeconds) throw new AudioTooLongError(maxSeconds);
  const audio = await Promise.all(pieces.map((p) => (p.kind === 'word' ? voiceWord(p.text, voice, speed, store) : undefined)));
  const parts: Int16Array[] = [];
  const words: TimedWord[] = [];
  const spans: Voiced['spans'] = [];
  let t = 0;
  pieces.forEach((p, k) => {
    const start = t;
    if (p.kind === 'word') {
      const pcm = audio[k]!;
      if (words.length) {
        parts.push(silence(WORD_GAP_S, ESPEAK_RATE));
        t += Math.round(WORD_GAP_S * ESPEAK_RATE) / ESPEAK_RATE;
      }
      const wordStart = t;
      parts.push(pcm);
      t += pcm.length / ESPEAK_RATE;
      words.push({ word: p.text, start: wordStart, end: t, charStart: p.start, charEnd: p.end });
      spans.push({ start: wordStart, end: t, charStart: p.start, charEnd: p.end });
      return;
    }
    if (p.kind === 'pause') {
      const n = Math.round(p.seconds * ESPEAK_RATE);
      parts.push(new Int16Array(n));
      t += n / ESPEAK_RATE;
    }
    spans.push({ start, end: t, charStart: p.start, charEnd: p.end });
  });
  if (t > maxSeconds) throw new AudioTooLongError(maxSeconds);
  return { samples: concatPcm(parts), sampleRate: ESPEAK_RATE, words, spans };
}

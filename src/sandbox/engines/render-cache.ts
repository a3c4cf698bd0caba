import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { rationalSupported, resampleRational } from '../../audio/rational-resample.ts';
import { resample } from '../../audio/resample.ts';
import { lineDirOf, lineWritten, touchLine } from '../line-dir.ts';
import { espeakFingerprint } from './espeak-version.ts';
import { AudioTooLongError, voiceText, type EspeakVoice, type TimedWord, type Voiced, type WordStore } from './espeak.ts';

/**
 * Lines the sandbox has voiced, kept by what they are (text, voice, speed, sample rate), so that
 * a line voiced again costs nothing: no espeak-ng process per word, no resampling (libsamplerate
 * in WebAssembly, most of the CPU a sandboxed call spends). Voicing is deterministic, so a kept
 * line is the very audio a new voicing would give.
 *
 * Two levels: the lines of this process in memory, and, when a directory is given, the lines of
 * every process that shares it on disk (`npm test` gives its test files one, so that the lines
 * every file's calls say are voiced once per run instead of once per file). Files are written
 * under a temporary name and renamed into place, so processes reading and writing the same line
 * at once each see a whole file or none; a file that cannot be read or written is voiced anew.
 */
export const RENDER_CACHE_DEFAULTS = {
  /** Audio kept in memory, in bytes; the least recently used line goes first. @default 64 MiB */
  memoryBytes: 64 * 2 ** 20,
  /**
   * A directory shared by processes, created if missing (readable by its owner only). The CLI
   * and `createAgentServer` set one in the user's cache by default (src/sandbox/voiced-lines.ts).
   * @default the environment's HIWAR_SANDBOX_RENDER_CACHE (`off`: none), or none (memory only)
   */
  dir: lineDirOf(process.env.HIWAR_SANDBOX_RENDER_CACHE),
  /**
   * The directory's bound; past it the least recently used lines go (line-dir.ts). A demo's
   * start voices about 1 MiB; a reply of a few seconds at 24 kHz is about 150 KiB. @default 128 MiB
   */
  diskBytes: 128 * 2 ** 20,
};

/** A line voiced at one sample rate, with its words' times (the same at every rate). */
export interface Rendered {
  samples: Int16Array;
  sampleRate: number;
  words: TimedWord[];
  spans: Voiced['spans'];
  /** Length of the voicing, as the synthesis limit counts it. */
  seconds: number;
}

/** Bump when what a key voices changes (the voicing, the resampler, the file layout). */
const FORMAT = 'hiwar-render-2';
/** The same for a voiced word (espeak.ts's key: voice, pitch, words per minute, speed, word). */
const WORD_FORMAT = 'hiwar-word-1';

const memory = new Map<string, Rendered>();
let memoryBytes = 0;
/** Voicings under way, by key and limit: one request with a lower limit must not fail another. */
const pending = new Map<string, Promise<Rendered>>();

/**
 * `text` voiced with `voice` at `speed`, at `sampleRate`: from memory, from the shared directory,
 * or voiced now. Throws AudioTooLongError past `maxSeconds` (refused before voicing when even the
 * shortest voicing of the text is too long, as `voiceText` does).
 */
export async function renderLine(text: string, voice: EspeakVoice, speed: number, sampleRate: number, maxSeconds = Infinity): Promise<Rendered> {
  const key = await lineKey(text, voice, speed, sampleRate);
  const kept = memory.get(key) ?? (await fromDisk(key));
  if (kept) {
    keep(key, kept);
    if (kept.seconds > maxSeconds) throw new AudioTooLongError(maxSeconds);
    return kept;
  }
  const job = `${key}|${maxSeconds}`;
  let p = pending.get(job);
  if (!p) {
    p = voiceAt(text, voice, speed, sampleRate, maxSeconds).then(async (r) => {
      keep(key, r);
      await toDisk(key, r);
      return r;
    });
    pending.set(job, p);
    const done = () => pending.delete(job);
    p.then(done, done);
  }
  return p;
}

/** The key of a voiced line: what it is, and which espeak-ng voices it (espeak-version.ts). */
export async function lineKey(text: string, voice: EspeakVoice, speed: number, sampleRate: number): Promise<string> {
  return sha256([FORMAT, await espeakFingerprint(), voice.name, voice.pitch, voice.wpm, speed, sampleRate, text]);
}

/** The file of a voiced word (espeak.ts's key: voice, pitch, words per minute, speed, word), for this espeak-ng. */
export async function wordFile(key: string): Promise<string> {
  return `${sha256([WORD_FORMAT, await espeakFingerprint(), key])}.word`;
}

const sha256 = (parts: unknown[]) => createHash('sha256').update(JSON.stringify(parts)).digest('hex');

/**
 * Voiced audio at another rate: the rational filter of rational-resample.ts (about a third of
 * libsamplerate's CPU, no converter to create) for the rates a call asks for, libsamplerate for
 * a ratio too fine for it.
 */
export async function convertVoice(samples: Int16Array, fromRate: number, toRate: number): Promise<Int16Array> {
  return rationalSupported(fromRate, toRate) ? resampleRational(samples, fromRate, toRate) : resample(samples, fromRate, toRate);
}

async function voiceAt(text: string, voice: EspeakVoice, speed: number, sampleRate: number, maxSeconds: number): Promise<Rendered> {
  const v = await voiceText(text, voice, speed, maxSeconds, sharedWords);
  const samples = await convertVoice(v.samples, v.sampleRate, sampleRate);
  return { samples, sampleRate, words: v.words, spans: v.spans, seconds: v.samples.length / v.sampleRate };
}

function keep(key: string, r: Rendered): void {
  if (memory.delete(key)) memoryBytes -= r.samples.byteLength;
  if (r.samples.byteLength > RENDER_CACHE_DEFAULTS.memoryBytes) return;
  memory.set(key, r);
  memoryBytes += r.samples.byteLength;
  for (const [k, old] of memory) {
    if (memoryBytes <= RENDER_CACHE_DEFAULTS.memoryBytes) break;
    memory.delete(k);
    memoryBytes -= old.samples.byteLength;
  }
}

// On disk: a 4-byte length, the JSON of everything but the samples, then the samples (PCM16 LE).

async function fromDisk(key: string): Promise<Rendered | undefined> {
  const dir = RENDER_CACHE_DEFAULTS.dir;
  if (!dir) return undefined;
  try {
    const file = join(dir, `${key}.line`);
    const buf = await readFile(file);
    void touchLine(file);
    const headLength = buf.readUInt32LE(0);
    const head = JSON.parse(buf.subarray(4, 4 + headLength).toString('utf8')) as Omit<Rendered, 'samples'>;
    const body = buf.subarray(4 + headLength);
    // A copy: the file's bytes need not sit at an even offset, as an Int16Array's must.
    const samples = new Int16Array(body.length >> 1);
    Buffer.from(samples.buffer).set(body.subarray(0, samples.byteLength));
    return { ...head, samples };
  } catch {
    return undefined; // not there yet (or unreadable): voiced anew
  }
}

async function toDisk(key: string, r: Rendered): Promise<void> {
  const { samples, ...rest } = r;
  const head = Buffer.from(JSON.stringify(rest), 'utf8');
  const length = Buffer.alloc(4);
  length.writeUInt32LE(head.length, 0);
  await writeShared(`${key}.line`, Buffer.concat([length, head, Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength)]));
}

/** `bytes` as `name` in the shared directory, whole or not at all (written aside, renamed into place). */
async function writeShared(name: string, bytes: Buffer): Promise<void> {
  const dir = RENDER_CACHE_DEFAULTS.dir;
  if (!dir) return;
  const file = join(dir, name);
  const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.partial`;
  try {
    // The lines may say what a test call's caller or agent said: the owner's alone.
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(partial, bytes, { mode: 0o600 });
    await rename(partial, file);
    await lineWritten(dir, bytes.length, RENDER_CACHE_DEFAULTS.diskBytes);
  } catch {
    // A full or read-only disk loses only the sharing: the line stays in memory.
  }
}

/**
 * The words espeak-ng voiced (22.05 kHz, trimmed), kept in the shared directory beside the lines
 * (`.word`, PCM16 LE): a line no process voiced yet is often made of words another one did.
 */
const sharedWords: WordStore = {
  async get(key) {
    const dir = RENDER_CACHE_DEFAULTS.dir;
    if (!dir) return undefined;
    try {
      const file = join(dir, await wordFile(key));
      const buf = await readFile(file);
      void touchLine(file);
      // A copy: the file's bytes need not sit at an even offset, as an Int16Array's must.
      const samples = new Int16Array(buf.length >> 1);
      Buffer.from(samples.buffer).set(buf.subarray(0, samples.byteLength));
      return samples;
    } catch {
      return undefined; // not there yet (or unreadable): voiced anew
    }
  },
  put: async (key, samples) => writeShared(await wordFile(key), Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength)),
};

import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { lineWritten, touchLine } from '../line-dir.ts';
import { melPower, type MelFrames } from './features.ts';
import { RENDER_CACHE_DEFAULTS } from './render-cache.ts';

/**
 * The mel features of audio the recognizer learns (a phrase, each of its clauses, in each voice),
 * kept by the audio's own bytes beside the voiced lines (render-cache.ts's directory, bounded with
 * them): a sandbox that starts learns the same phrases as the one before it, and their features
 * were a fifth of a `hiwar serve`'s start. The features are kept as the 32-bit floats
 * `melPower` returned, so a kept one is the very features computing them again would give.
 */
const FORMAT = 'hiwar-mel-1';
/** Features kept in memory, in bytes (a second of audio is about 10 KB of them). */
const MEMORY_BYTES = 16 * 2 ** 20;
const BANDS = 26;

const memory = new Map<string, MelFrames>();
let memoryBytes = 0;

/** `melPower(samples)`: from memory, from the shared directory, or computed now (and kept). */
export async function learnedMelPower(samples: Int16Array): Promise<MelFrames> {
  const key = createHash('sha256').update(FORMAT).update(new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength)).digest('hex');
  const kept = memory.get(key) ?? (await fromDisk(key));
  if (kept) {
    keep(key, kept);
    return kept;
  }
  const made = melPower(samples);
  keep(key, made);
  await toDisk(key, made);
  return made;
}

const bytesOf = (m: MelFrames) => m.energy.byteLength * (1 + BANDS);

function keep(key: string, m: MelFrames): void {
  if (memory.delete(key)) memoryBytes -= bytesOf(m);
  memory.set(key, m);
  memoryBytes += bytesOf(m);
  for (const [k, old] of memory) {
    if (memoryBytes <= MEMORY_BYTES) break;
    memory.delete(k);
    memoryBytes -= bytesOf(old);
  }
}

// On disk: the frame count (4 bytes), the energies, then each frame's bands (32-bit floats, the machine's byte order).

async function fromDisk(key: string): Promise<MelFrames | undefined> {
  const dir = RENDER_CACHE_DEFAULTS.dir;
  if (!dir) return undefined;
  try {
    const file = join(dir, `${key}.mel`);
    const buf = await readFile(file);
    const n = buf.readUInt32LE(0);
    if (buf.length !== 4 + 4 * n * (1 + BANDS)) return undefined;
    void touchLine(file);
    // A copy: the file's bytes need not sit at an offset a Float32Array can start at.
    const floats = new Float32Array(n * (1 + BANDS));
    Buffer.from(floats.buffer).set(buf.subarray(4));
    const power = Array.from({ length: n }, (_, f) => floats.slice(n + f * BANDS, n + (f + 1) * BANDS));
    return { energy: floats.slice(0, n), power };
  } catch {
    return undefined; // not there yet (or unreadable): computed anew
  }
}

async function toDisk(key: string, m: MelFrames): Promise<void> {
  const dir = RENDER_CACHE_DEFAULTS.dir;
  if (!dir) return;
  const n = m.energy.length;
  const floats = new Float32Array(n * (1 + BANDS));
  floats.set(m.energy);
  m.power.forEach((bands, f) => floats.set(bands, n + f * BANDS));
  const head = Buffer.alloc(4);
  head.writeUInt32LE(n, 0);
  const file = join(dir, `${key}.mel`);
  const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.partial`;
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const bytes = Buffer.concat([head, Buffer.from(floats.buffer)]);
    await writeFile(partial, bytes, { mode: 0o600 });
    await rename(partial, file);
    await lineWritten(dir, bytes.length, RENDER_CACHE_DEFAULTS.diskBytes);
  } catch {
    // A full or read-only disk loses only the sharing.
  }
}

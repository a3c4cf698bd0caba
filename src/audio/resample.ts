import type libsamplerate from '@alexanderolsen/libsamplerate-js';
import { createPolyphaseResampler, integerFactor } from './polyphase.ts';

/**
 * Sample-rate conversion through libsamplerate (compiled to WebAssembly): band-limited sinc
 * interpolation, so 8 kHz telephony audio and 22.05/24/48 kHz voices convert without aliasing.
 *
 * Audio goes through the converter in bounded blocks: the library's own large-input path builds
 * intermediate arrays as large as the audio, and a rate outside its range aborts the
 * WebAssembly module (a crash of the whole process), so rates are checked first.
 */
export interface StreamResampler {
  readonly fromRate: number;
  readonly toRate: number;
  /** Converts the next piece of a stream; the filter keeps its state between pieces. */
  push(samples: Int16Array): Int16Array;
  close(): void;
}

/** Sample rates accepted anywhere in hiwar (telephony 8 kHz to studio 192 kHz). */
export const MIN_RATE = 4000;
export const MAX_RATE = 192_000;
/** Samples per call into the converter: bounds the memory one call holds beyond the output. */
const BLOCK = 16_384;
/** Zeros pushed after the last block so the filter releases the tail (covers its delay). */
const FLUSH = 4096;

export function isSupportedRate(rate: number): boolean {
  return Number.isInteger(rate) && rate >= MIN_RATE && rate <= MAX_RATE;
}

function checkRates(fromRate: number, toRate: number): void {
  for (const r of [fromRate, toRate]) {
    if (!isSupportedRate(r)) throw new RangeError(`unsupported sample rate ${r}: use an integer from ${MIN_RATE} to ${MAX_RATE} Hz`);
  }
}

type Src = Awaited<ReturnType<typeof libsamplerate.create>>;

/**
 * libsamplerate, loaded by the first conversion that needs it: its module is 2 MB of JavaScript
 * (compiling it costs about a quarter of a second of CPU), which a process that converts only at
 * integer factors, or not at all, never needs.
 */
let library: Promise<typeof libsamplerate> | undefined;
// CommonJS: on plain Node its exports arrive as the default; through tsx, as the namespace itself.
const loadLibrary = () => (library ??= import('@alexanderolsen/libsamplerate-js').then((m) => (m as { default?: typeof libsamplerate }).default ?? (m as unknown as typeof libsamplerate)));

/**
 * Converters at rest, by rates. Each `lsr.create` instantiates a new copy of libsamplerate's
 * module (26 MB of memory, its filter tables decoded from base64: 20 to 70 ms of CPU), which was
 * most of what a short line's resampling cost; a converter that is done is reset instead (its
 * filter state made anew, as a new one's is: the same output sample for sample) and given to the
 * next conversion at the same rates. At most IDLE_MAX are kept, the oldest released first.
 */
const idle = new Map<string, Src[]>();
let idleCount = 0;
const IDLE_MAX = 4;

async function acquire(fromRate: number, toRate: number): Promise<Src> {
  const kept = idle.get(`${fromRate}>${toRate}`)?.pop();
  if (kept) {
    idleCount--;
    return kept;
  }
  const lsr = await loadLibrary();
  return lsr.create(1, fromRate, toRate, { converterType: lsr.ConverterType.SRC_SINC_MEDIUM_QUALITY });
}

function release(src: Src): void {
  // The setter frees the converter's state and builds a new one at the same settings.
  src.inputSampleRate = src.inputSampleRate;
  const key = `${src.inputSampleRate}>${src.outputSampleRate}`;
  const kept = idle.get(key);
  if (kept) kept.push(src);
  else idle.set(key, [src]);
  if (++idleCount <= IDLE_MAX) return;
  // Over the limit: the first kept of the fullest rates goes (its module's memory with it).
  const [, fullest] = [...idle].reduce((a, b) => (b[1].length > a[1].length ? b : a));
  fullest.shift()!.destroy();
  idleCount--;
}

/** One block in, its converted samples appended to `out` from `at`; returns the new end. */
function convertBlock(src: Src, block: Int16Array, input: Float32Array, output: Float32Array, out: Int16Array, at: number): number {
  const n = block.length;
  const inView = input.subarray(0, n);
  for (let i = 0; i < n; i++) inView[i] = block[i]! / 32768;
  const frames = { frames: 0 };
  src.full(inView, output, frames);
  const m = Math.min(frames.frames, out.length - at);
  for (let i = 0; i < m; i++) out[at + i] = Math.max(-32768, Math.min(32767, Math.round(output[i]! * 32768)));
  return at + m;
}

function buffersFor(src: Src, fromRate: number, toRate: number) {
  return { input: new Float32Array(BLOCK), output: new Float32Array(Math.ceil((BLOCK * toRate) / fromRate) + 64), src };
}

export interface ResamplerOptions {
  /**
   * `auto`: the rates as they are when equal, a polyphase filter (WebAssembly SIMD, JavaScript
   * where SIMD is missing) at an integer factor up to 6 (8↔16 kHz, 16↔48 kHz, 24→48 kHz: one
   * shared 128 KB memory, a fraction of the CPU), libsamplerate otherwise. `libsamplerate`: always the general converter (the resampling
   * bench's comparison).
   * @default 'auto'
   */
  engine?: 'auto' | 'libsamplerate';
}

/** A streaming resampler (libsamplerate) from one rate to another; a pass-through when they are equal. */
export async function createResampler(fromRate: number, toRate: number, opts: ResamplerOptions = {}): Promise<StreamResampler> {
  checkRates(fromRate, toRate);
  if (fromRate === toRate) {
    return { fromRate, toRate, push: (s) => s, close: () => {} };
  }
  if ((opts.engine ?? 'auto') === 'auto' && integerFactor(fromRate, toRate)) return createPolyphaseResampler(fromRate, toRate);
  const src = await acquire(fromRate, toRate);
  const { input, output } = buffersFor(src, fromRate, toRate);
  let closed = false;
  return {
    fromRate,
    toRate,
    push: (s) => {
      if (!s.length || closed) return new Int16Array(0);
      const out = new Int16Array(Math.ceil((s.length * toRate) / fromRate) + 64);
      let end = 0;
      for (let at = 0; at < s.length; at += BLOCK) end = convertBlock(src, s.subarray(at, at + BLOCK), input, output, out, end);
      return out.subarray(0, end);
    },
    close: () => {
      if (!closed) release(src);
      closed = true;
    },
  };
}

/** Converts a whole buffer (no streaming state, no lost tail), block by block. */
export async function resample(samples: Int16Array, fromRate: number, toRate: number): Promise<Int16Array> {
  checkRates(fromRate, toRate);
  if (fromRate === toRate || samples.length === 0) return samples;
  const src = await acquire(fromRate, toRate);
  try {
    const { input, output } = buffersFor(src, fromRate, toRate);
    const out = new Int16Array(Math.round((samples.length * toRate) / fromRate));
    let end = 0;
    for (let at = 0; at < samples.length && end < out.length; at += BLOCK) {
      end = convertBlock(src, samples.subarray(at, at + BLOCK), input, output, out, end);
    }
    const zeros = new Int16Array(FLUSH);
    for (let k = 0; k < 16 && end < out.length; k++) end = convertBlock(src, zeros, input, output, out, end);
    return out;
  } finally {
    release(src);
  }
}

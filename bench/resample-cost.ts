/**
 * What resampling costs per 20 ms frame at the WebRTC rates (16 kHz ↔ 48 kHz) and on the phone
 * line (8 kHz ↔ 16 kHz), through the resampler hiwar picks (`createResampler`, engine auto: the
 * polyphase filter at integer factors, its WebAssembly SIMD kernel), through the same filter's
 * JavaScript kernel (the fallback where SIMD is missing) and through libsamplerate (`engine: 'libsamplerate'`, the
 * WebAssembly converter), on a speech-like signal: CPU µs per frame, best of ${PASSES} passes of 500
 * frames (the cheapest pass is the one least disturbed by other work on the machine).
 *
 * Usage: npm run bench -- resample [--quick] [frames=500]
 */
import { createPolyphaseResampler } from '../src/audio/polyphase.ts';
import { createResampler, type ResamplerOptions, type StreamResampler } from '../src/audio/resample.ts';
import { loadNote } from './conditions.ts';
import { table, type BenchArgs } from './harness.ts';

const PASSES = 9;
const PAIRS: [number, number][] = [[16000, 48000], [48000, 16000], [8000, 16000], [16000, 8000]];

function speechLike(rate: number, samples: number): Int16Array {
  const out = new Int16Array(samples);
  for (let i = 0; i < samples; i++) {
    const t = i / rate;
    out[i] = Math.round(6000 * Math.sin(2 * Math.PI * 180 * t) + 3000 * Math.sin(2 * Math.PI * 1100 * t) + 1500 * Math.sin(2 * Math.PI * 2900 * t));
  }
  return out;
}

/** `js`: the polyphase filter's JavaScript kernel (what runs where WebAssembly SIMD is missing). */
type Engine = NonNullable<ResamplerOptions['engine']> | 'js';

async function perFrame(from: number, to: number, frames: number, engine: Engine): Promise<number> {
  const r: StreamResampler = engine === 'js' ? createPolyphaseResampler(from, to, { kernel: 'js' }) : await createResampler(from, to, { engine });
  const frame = speechLike(from, from / 50);
  let best = Infinity;
  try {
    // One unmeasured pass: the code compiled before the measured ones.
    for (let i = 0; i < frames; i++) r.push(frame);
    for (let pass = 0; pass < PASSES; pass++) {
      const c0 = process.cpuUsage();
      for (let i = 0; i < frames; i++) r.push(frame);
      const c = process.cpuUsage(c0);
      best = Math.min(best, (c.user + c.system) / frames);
    }
  } finally {
    r.close();
  }
  return Math.round(best * 10) / 10;
}

/** The resampling bench: µs of CPU per 20 ms frame, both engines, both directions. */
export async function resampleCost({ quick, rest }: BenchArgs): Promise<Record<string, unknown>> {
  const named = Object.fromEntries(rest.filter((a) => a.includes('=')).map((a) => a.split('=') as [string, string]));
  const frames = Number(named.frames ?? (quick ? 200 : 500));
  const before = loadNote();
  const rows: { from: number; to: number; auto: number; js: number; libsamplerate: number }[] = [];
  // hiwar's engines for every pair first, then libsamplerate: the WebAssembly converter's runs
  // between them made the JavaScript filter's passes read up to twice as dear (measured).
  const auto = [];
  const js = [];
  for (const [from, to] of PAIRS) auto.push(await perFrame(from, to, frames, 'auto'));
  for (const [from, to] of PAIRS) js.push(await perFrame(from, to, frames, 'js'));
  for (const [k, [from, to]] of PAIRS.entries()) rows.push({ from, to, auto: auto[k]!, js: js[k]!, libsamplerate: await perFrame(from, to, frames, 'libsamplerate') });
  const after = loadNote();
  table(`resampling: CPU µs per 20 ms frame, best of ${PASSES} passes of ${frames} frames, one stream; ${before} before, ${after} after`, [
    ...rows.map((r): [string, string, string] => [`${r.from / 1000}k → ${r.to / 1000}k: hiwar (SIMD) / hiwar (JS kernel) / libsamplerate`, `${r.auto} / ${r.js} / ${r.libsamplerate}`, r.from === 48000 || r.to === 48000 ? '≤ 45 µs' : '']),
  ]);
  return { bench: 'resample', frames, loadBefore: before, loadAfter: after, rows, target: { usPerFrame16k48k: 45 } };
}

// src/audio/resample.ts's libsamplerate path: a converter that is done is reset and kept for the
// next conversion at the same rates (a new one costs a module of 26 MB and 20 to 70 ms of CPU);
// what it gives must be, sample for sample, what a new converter gives.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import lsr from '@alexanderolsen/libsamplerate-js';
import { createResampler, resample } from '../../src/audio/resample.ts';

/** A chirp with some noise: every filter state shows in it. */
function signal(n: number, seed = 1): Int16Array {
  let s = seed;
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    out[i] = Math.round(8000 * Math.sin((i * i) / 40_000) + ((s >>> 16) % 2000) - 1000);
  }
  return out;
}

/** The same conversion on a converter made for it alone, as resample() did before it kept converters. */
async function fresh(samples: Int16Array, fromRate: number, toRate: number): Promise<Int16Array> {
  const src = await lsr.create(1, fromRate, toRate, { converterType: lsr.ConverterType.SRC_SINC_MEDIUM_QUALITY });
  try {
    const input = Float32Array.from(samples, (v) => v / 32768);
    const output = new Float32Array(Math.ceil((samples.length * toRate) / fromRate) + 4096 * 16);
    const frames = { frames: 0 };
    src.full(input, output, frames);
    let end = frames.frames;
    const zeros = new Float32Array(4096);
    for (let k = 0; k < 16; k++) {
      src.full(zeros, output.subarray(end), frames);
      end += frames.frames;
    }
    const want = Math.round((samples.length * toRate) / fromRate);
    return Int16Array.from(output.subarray(0, want), (v) => Math.max(-32768, Math.min(32767, Math.round(v * 32768))));
  } finally {
    src.destroy();
  }
}

test('a kept converter gives what a new one gives: whole buffers one after another, at the same and at other rates', async () => {
  const a = signal(11_025, 1);
  const b = signal(9_000, 2);
  const expectA = await fresh(a, 22_050, 16_000);
  const expectB = await fresh(b, 22_050, 16_000);
  // The second and third conversions at 22.05 → 16 kHz get the converter the one before left.
  assert.deepEqual(await resample(a, 22_050, 16_000), expectA);
  assert.deepEqual(await resample(b, 22_050, 16_000), expectB);
  assert.deepEqual(await resample(a, 22_050, 16_000), expectA, 'the same buffer again: no state left from the one before');
  // Other rates in between, then these again.
  assert.deepEqual(await resample(b, 22_050, 11_000), await fresh(b, 22_050, 11_000));
  assert.deepEqual(await resample(b, 22_050, 16_000), expectB);
});

test('a stream closed halfway leaves nothing in the converter the next stream at its rates gets', async () => {
  const a = signal(16_000, 3);
  const whole = async () => {
    const r = await createResampler(8000, 22_050, { engine: 'libsamplerate' });
    const out = [r.push(a.subarray(0, 7000)), r.push(a.subarray(7000))];
    r.close();
    return Int16Array.from(out.flatMap((o) => [...o]));
  };
  const first = await whole();
  // A stream that stops with its filter full of audio, closed without its tail.
  const cut = await createResampler(8000, 22_050, { engine: 'libsamplerate' });
  assert.ok(cut.push(signal(5000, 4)).length > 0);
  cut.close();
  assert.deepEqual(await whole(), first, 'the next stream at these rates converts as the first did');
  assert.equal(cut.push(a).length, 0, 'a closed stream converts nothing (its converter may be another stream’s now)');
});

test('many streams at once each get a converter of their own, and every one converts as a lone one does', async () => {
  const a = signal(8000, 5);
  const alone = await createResampler(8000, 22_050, { engine: 'libsamplerate' });
  const expected = alone.push(a);
  alone.close();
  const streams = await Promise.all(Array.from({ length: 6 }, () => createResampler(8000, 22_050, { engine: 'libsamplerate' })));
  const outs = streams.map((s) => s.push(a));
  for (const s of streams) s.close();
  for (const o of outs) assert.deepEqual(o, expected);
});

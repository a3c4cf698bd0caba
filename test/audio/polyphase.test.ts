/** The integer-factor resampler: speech band kept, aliases removed, pieces convert as the whole. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SIMD_BLOCK, simdKernel } from '../../src/audio/polyphase-simd.ts';
import { createPolyphaseResampler, integerFactor } from '../../src/audio/polyphase.ts';
import { createResampler } from '../../src/audio/resample.ts';

const tone = (hz: number, rate: number, seconds: number, amp = 10_000) =>
  Int16Array.from({ length: Math.round(rate * seconds) }, (_, i) => Math.round(amp * Math.sin((2 * Math.PI * hz * i) / rate)));

/** Amplitude of `hz` in `x` (a single-bin DFT over the middle, away from the edges). */
function level(x: Int16Array, hz: number, rate: number): number {
  const from = Math.floor(x.length / 4);
  const to = Math.floor((3 * x.length) / 4);
  let re = 0;
  let im = 0;
  for (let i = from; i < to; i++) {
    re += x[i]! * Math.cos((2 * Math.PI * hz * i) / rate);
    im += x[i]! * Math.sin((2 * Math.PI * hz * i) / rate);
  }
  return (2 * Math.hypot(re, im)) / (to - from);
}

const run = (from: number, to: number, x: Int16Array, piece: number) => {
  const r = createPolyphaseResampler(from, to);
  const parts: Int16Array[] = [];
  for (let at = 0; at < x.length; at += piece) parts.push(r.push(x.subarray(at, at + piece)));
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) out.set(p, (o += p.length) - p.length);
  return out;
};

test('integer factors only, 2 to 6', () => {
  assert.deepEqual(integerFactor(8000, 16000), { up: true, factor: 2 });
  assert.deepEqual(integerFactor(48000, 16000), { up: false, factor: 3 });
  assert.equal(integerFactor(22050, 48000), undefined);
  assert.equal(integerFactor(8000, 96000), undefined);
  assert.throws(() => createPolyphaseResampler(16000, 22050), RangeError);
});

for (const [from, to] of [[8000, 16000], [16000, 8000], [48000, 16000], [24000, 48000], [8000, 48000]] as const) {
  test(`${from} → ${to} Hz: a 1 kHz tone keeps its level, the length follows the ratio, pieces equal the whole`, () => {
    const x = tone(1000, from, 1);
    const whole = run(from, to, x, x.length);
    assert.equal(whole.length, Math.round((x.length * to) / from));
    assert.ok(Math.abs(level(whole, 1000, to) - 10_000) < 150, `level ${level(whole, 1000, to)}`);
    // Frames of 20 ms and odd-sized pieces give the same samples as one push.
    assert.deepEqual(run(from, to, x, (from * 20) / 1000), whole);
    assert.deepEqual(run(from, to, x, 77), whole);
  });
}

test('down-sampling removes what the lower rate cannot hold (no alias of a 6 kHz tone at 8 kHz)', () => {
  const out = run(16000, 8000, tone(6000, 16000, 1), 320);
  // 6 kHz would fold to 2 kHz: it must be more than 60 dB down.
  assert.ok(level(out, 2000, 8000) < 10, `alias level ${level(out, 2000, 8000)}`);
});

test('up-sampling leaves no image of the band above the old Nyquist', () => {
  const out = run(8000, 16000, tone(3000, 8000, 1), 160);
  // The image of 3 kHz at 16 kHz is 5 kHz.
  assert.ok(level(out, 5000, 16000) < 10, `image level ${level(out, 5000, 16000)}`);
});

test('createResampler takes the polyphase filter for integer factors, libsamplerate when asked', async () => {
  const x = tone(1000, 8000, 0.1);
  const auto = await createResampler(8000, 16000);
  const lsr = await createResampler(8000, 16000, { engine: 'libsamplerate' });
  assert.deepEqual(auto.push(x), createPolyphaseResampler(8000, 16000).push(x));
  assert.notDeepEqual(lsr.push(x), createPolyphaseResampler(8000, 16000).push(x));
  auto.close();
  lsr.close();
  assert.equal(auto.push(x).length, 0, 'closed');
});

/** Frequency from zero crossings over the middle half (a sine crosses zero twice a period). */
function frequency(x: Int16Array, rate: number): number {
  const from = Math.floor(x.length / 4);
  const to = Math.floor((3 * x.length) / 4);
  let first = -1;
  let last = -1;
  let n = 0;
  for (let i = from + 1; i < to; i++) {
    if ((x[i - 1]! < 0) !== (x[i]! < 0)) {
      // The crossing between the two samples, by linear interpolation.
      const at = i - 1 + x[i - 1]! / (x[i - 1]! - x[i]!);
      if (first < 0) first = at;
      else n++;
      last = at;
    }
  }
  return (n / 2) * (rate / (last - first));
}

test('16 → 48 → 16 kHz (WebRTC): a 1 kHz tone keeps its frequency within 0.1 % and its level within 1.5 %', () => {
  const x = tone(1000, 16000, 1);
  const up = run(16000, 48000, x, 320);
  const back = run(48000, 16000, up, 960);
  for (const [y, rate] of [[up, 48000], [back, 16000]] as const) {
    assert.ok(Math.abs(frequency(y, rate) - 1000) < 1, `frequency ${frequency(y, rate)} Hz at ${rate}`);
    assert.ok(Math.abs(level(y, 1000, rate) - 10_000) < 150, `level ${level(y, 1000, rate)} at ${rate}`);
  }
});

test('16 → 48 kHz: the image of a 7 kHz tone (at 9 kHz) is 60 dB down; 48 → 16 kHz: a 9 kHz tone does not fold onto 7 kHz', () => {
  const up = run(16000, 48000, tone(7000, 16000, 1), 320);
  assert.ok(level(up, 9000, 48000) < 10, `image level ${level(up, 9000, 48000)} (−60 dB is 10)`);
  const down = run(48000, 16000, tone(9000, 48000, 1), 960);
  assert.ok(level(down, 7000, 16000) < 10, `alias level ${level(down, 7000, 16000)} (−60 dB is 10)`);
  // 7 kHz itself is near the band edge (the filter is flat to 90 % of 8 kHz, 7.2 kHz): kept within 3 dB.
  assert.ok(level(up, 7000, 48000) > 7070, `7 kHz level ${level(up, 7000, 48000)}`);
});

test('the WebAssembly SIMD kernel runs here and equals the JavaScript kernel within 1 at every factor, in pieces of any size', () => {
  assert.ok(simdKernel(), 'Node 20 has WebAssembly SIMD: the kernel must assemble and validate');
  // Speech-like and noisy, at full scale so the clamp is reached too.
  const signal = (rate: number) =>
    Int16Array.from({ length: rate }, (_, i) => Math.max(-32768, Math.min(32767, Math.round(30_000 * Math.sin((2 * Math.PI * 180 * i) / rate) + 4000 * Math.sin((2 * Math.PI * 2900 * i) / rate) + ((i * 7919) % 2001) - 1000))));
  for (const [from, to] of [[8000, 16000], [16000, 8000], [16000, 48000], [48000, 16000], [24000, 48000], [8000, 32000], [40000, 8000], [8000, 48000], [48000, 8000]] as const) {
    const x = signal(from);
    for (const piece of [x.length, 320, 77, SIMD_BLOCK + 3]) {
      const simd = createPolyphaseResampler(from, to);
      const js = createPolyphaseResampler(from, to, { kernel: 'js' });
      let differ = 0;
      for (let at = 0; at < x.length; at += piece) {
        const a = simd.push(x.subarray(at, at + piece));
        const b = js.push(x.subarray(at, at + piece));
        assert.equal(a.length, b.length, `${from} → ${to}, pieces of ${piece}: lengths`);
        for (let i = 0; i < a.length; i++) {
          const d = Math.abs(a[i]! - b[i]!);
          assert.ok(d <= 1, `${from} → ${to}, pieces of ${piece}: sample ${i} differs by ${d}`);
          if (d) differ++;
        }
      }
      assert.ok(differ < x.length / 100, `${from} → ${to}: ${differ} samples differ by 1 (float32 rounding only)`);
    }
  }
});

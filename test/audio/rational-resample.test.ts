// src/audio/rational-resample.ts: the sandbox voice's conversion from espeak-ng's 22.05 kHz,
// checked against the signal itself (tones computed at the output's own sample times) and against
// libsamplerate's best-quality converter.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import lsr from '@alexanderolsen/libsamplerate-js';
import { rationalSupported, resampleRational } from '../../src/audio/rational-resample.ts';

const FROM = 22050;
const tone = (n: number, rate: number, hz: number, amplitude = 10_000) => Int16Array.from({ length: n }, (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / rate)));
/** Signal-to-error ratio (dB) of `got` against `want` over the middle (the edges see silence beyond the buffer). */
function snr(got: ArrayLike<number>, want: ArrayLike<number>): number {
  const edge = Math.floor(got.length / 10);
  let [s, e] = [0, 0];
  for (let i = edge; i < got.length - edge; i++) {
    s += want[i]! ** 2;
    e += (got[i]! - want[i]!) ** 2;
  }
  return 10 * Math.log10(s / Math.max(e, 1e-9));
}
const rms = (x: Int16Array) => Math.sqrt(x.reduce((n, v) => n + v * v, 0) / x.length);

test('a tone in the band comes out at the output rate as that tone, sample for sample, with round(n × to / from) samples', () => {
  for (const to of [8000, 16000, 24000, 44100, 48000]) {
    const input = tone(FROM, FROM, 1000);
    const out = resampleRational(input, FROM, to);
    assert.equal(out.length, Math.round((input.length * to) / FROM), `${to} Hz length`);
    const expected = tone(out.length, to, 1000);
    assert.ok(snr(out, expected) > 60, `${to} Hz: ${snr(out, expected).toFixed(1)} dB against the tone at the output's times`);
  }
});

test("what lies above the output's band is filtered out, not folded into it", () => {
  // 6 kHz into 8 kHz (its Nyquist is 4 kHz) would alias to 2 kHz; 10 kHz into 16 kHz to 6 kHz.
  for (const [to, hz] of [[8000, 6000], [16000, 10_000]] as const) {
    const out = resampleRational(tone(FROM, FROM, hz), FROM, to);
    const level = 20 * Math.log10(rms(out.subarray(out.length / 10, -out.length / 10)) / (10_000 / Math.SQRT2));
    assert.ok(level < -60, `${hz} Hz at ${to} Hz output: ${level.toFixed(1)} dB`);
  }
});

test('a click stays where it was in time', () => {
  const input = new Int16Array(FROM);
  input[12_345] = 30_000;
  for (const to of [8000, 16000, 24000]) {
    const out = resampleRational(input, FROM, to);
    const peak = out.reduce((best, v, i) => (Math.abs(v) > Math.abs(out[best]!) ? i : best), 0);
    assert.ok(Math.abs(peak - (12_345 * to) / FROM) <= 1, `${to} Hz: peak at ${peak}, the click at ${((12_345 * to) / FROM).toFixed(1)}`);
  }
});

test("on a chirp with noise it is as close to libsamplerate's best converter as libsamplerate's medium one is", async () => {
  let s = 7;
  const input = Int16Array.from({ length: FROM * 2 }, (_, i) => {
    s = (s * 1103515245 + 12345) >>> 0;
    return Math.round(8000 * Math.sin((i * i) / 400_000) + ((s >>> 16) % 2000) - 1000);
  });
  const float = Float32Array.from(input, (v) => v / 32768);
  const via = async (type: (typeof lsr.ConverterType)[keyof typeof lsr.ConverterType]) => {
    const src = await lsr.create(1, FROM, 16000, { converterType: type });
    try {
      return Float32Array.from(src.full(float), (v) => v * 32768);
    } finally {
      src.destroy();
    }
  };
  const best = await via(lsr.ConverterType.SRC_SINC_BEST_QUALITY);
  const medium = await via(lsr.ConverterType.SRC_SINC_MEDIUM_QUALITY);
  const ours = resampleRational(input, FROM, 16000);
  const n = Math.min(best.length, ours.length);
  const [oursDb, mediumDb] = [snr(ours.subarray(0, n), best.subarray(0, n)), snr(medium.subarray(0, n), best.subarray(0, n))];
  assert.ok(oursDb >= mediumDb - 1, `against the best converter: ours ${oursDb.toFixed(1)} dB, libsamplerate's medium ${mediumDb.toFixed(1)} dB`);
});

test('a ratio of terms too large for a table is refused, and said to be', () => {
  assert.equal(rationalSupported(FROM, 16000), true);
  assert.equal(rationalSupported(FROM, 47_999), false);
  assert.throws(() => resampleRational(new Int16Array(10), FROM, 47_999), RangeError);
  const same = new Int16Array([1, 2, 3]);
  assert.equal(resampleRational(same, FROM, FROM), same);
});

/**
 * The one phone line the recognizer's bench and its training data share (bench/telephone-band.ts):
 * what a telephone passes and what it adds.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { phoneLine8k } from '../../bench/telephone-band.ts';

const tone = (hz: number, n = 8000, amp = 8000) => Int16Array.from({ length: n }, (_, i) => Math.round(amp * Math.sin((2 * Math.PI * hz * i) / 8000)));
/** RMS past the filters' first 100 ms (their start-up). */
const rms = (x: Int16Array) => {
  const tail = x.subarray(800);
  return Math.sqrt(tail.reduce((s, v) => s + v * v, 0) / tail.length);
};
const db = (a: number, b: number) => 20 * Math.log10(a / b);

test('the line passes speech frequencies and cuts below 300 Hz, through mu-law', () => {
  const speech = tone(1000);
  const hum = tone(60);
  assert.ok(Math.abs(db(rms(phoneLine8k(speech, undefined, 0, 20)), rms(speech))) < 1, '1 kHz passes within 1 dB');
  assert.ok(db(rms(phoneLine8k(hum, undefined, 0, 20)), rms(hum)) < -30, 'mains hum is cut by more than 30 dB');
  const out = phoneLine8k(speech, undefined, 0, 20);
  assert.ok(out.some((v, i) => v !== speech[i]), 'mu-law and the filters change the samples');
});

test('line noise is mixed at the SNR asked for, from the offset given', () => {
  const speech = tone(1000);
  const noise = tone(2000, 16000, 3000);
  const clean = phoneLine8k(speech, undefined, 0, 20);
  for (const snrDb of [10, 20]) {
    const noisy = phoneLine8k(speech, noise, 0, snrDb);
    const added = Int16Array.from(noisy, (v, i) => v - clean[i]!);
    assert.ok(Math.abs(db(rms(clean), rms(added)) - snrDb) < 1.5, `about ${snrDb} dB below the speech`);
  }
  assert.notDeepEqual(phoneLine8k(speech, noise, 0, 10), phoneLine8k(speech, noise, 3, 10), 'another offset, another stretch of noise');
});

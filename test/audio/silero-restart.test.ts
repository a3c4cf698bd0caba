// Silero VAD on digital silence: past `restartAfterZeroWindows` windows of zeros the stream starts
// again as a new stream that heard that much silence, and scores the zeros at 0 without its model
// (src/audio/silero-vad.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readAudioFile } from '../../src/audio/decode.ts';
import { SileroStream } from '../../src/audio/silero-vad.ts';

const RECORDING = new URL('./fixtures/speech_sil_16k.opus', import.meta.url).pathname;
const WINDOW = 512;

const concat = (...parts: Int16Array[]): Int16Array => {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) (out.set(p, at), (at += p.length));
  return out;
};

test('past the limit of zero windows, what follows is scored exactly as by a new stream after that much silence; the zeros at 0 without the model', async () => {
  const { samples } = await readAudioFile(RECORDING, 16000);
  const speech = samples.subarray(0, 48 * WINDOW); // whole windows, so both streams cut the next part alike
  const next = samples.subarray(48 * WINDOW, 96 * WINDOW);
  const limit = 8;
  const zeros = new Int16Array((limit + 5) * WINDOW);

  const restarting = await SileroStream.create({ restartAfterZeroWindows: limit });
  const before = await restarting.push(concat(speech, zeros));
  assert.ok(before.slice(0, 48).some((w) => w.p > 0.5), 'the first part has speech');
  const silence = before.slice(48);
  assert.equal(silence.length, limit + 5);
  assert.equal(restarting.skippedWindows, 5, 'the windows past the limit skip the model');
  assert.deepEqual(silence.slice(limit).map((w) => w.p), [0, 0, 0, 0, 0]);
  assert.ok(silence.slice(0, limit).every((w) => w.p > 0), 'the windows up to the limit run the model (its scores are never exactly 0)');
  const after = await restarting.push(next);

  const reference = await SileroStream.create();
  await reference.push(new Int16Array(limit * WINDOW));
  const fresh = await reference.push(next);
  assert.deepEqual(after.map((w) => w.p), fresh.map((w) => w.p), 'the part after the silence scored as by a new stream after the same silence');
  assert.equal(after[0]!.start, (48 + limit + 5) * WINDOW / 16000, "the stream's clock counts the skipped windows");

  // Without the restart the state carries the first part and the zeros: a different score.
  const plain = await SileroStream.create();
  const plainAfter = (await plain.push(concat(speech, zeros, next))).slice(48 + limit + 5);
  assert.equal(plain.skippedWindows, 0);
  assert.notDeepEqual(plainAfter.map((w) => w.p), fresh.map((w) => w.p));
});

test('a zero window inside speech, or fewer than the limit in a row, changes nothing', async () => {
  const { samples } = await readAudioFile(RECORDING, 16000);
  const audio = concat(samples.subarray(0, 40 * WINDOW), new Int16Array(3 * WINDOW), samples.subarray(40 * WINDOW, 80 * WINDOW));
  const restarting = await SileroStream.create({ restartAfterZeroWindows: 3 });
  const plain = await SileroStream.create();
  // Fed in 20 ms frames, as a socket feeds it.
  const a: number[] = [];
  const b: number[] = [];
  for (let off = 0; off < audio.length; off += 320) {
    for (const w of await restarting.push(audio.subarray(off, off + 320))) a.push(w.p);
    for (const w of await plain.push(audio.subarray(off, off + 320))) b.push(w.p);
  }
  assert.equal(restarting.skippedWindows, 0);
  assert.deepEqual(a, b);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReplyPlayout } from '../../src/pipeline/playout.ts';
import { VirtualClock } from '../../src/transport/clock.ts';
import { PacedOutput } from '../../src/transport/paced-output.ts';
import { ResamplingOutput } from '../../src/transport/resampling-output.ts';

const RATE = 16000;
const ms = (n: number, rate = RATE) => new Int16Array((rate * n) / 1000).fill(700);

function setup() {
  const clock = new VirtualClock();
  let sentSamples = 0;
  const output = new PacedOutput(RATE, clock, (s) => (sentSamples += s.length));
  const playout = new ReplyPlayout(output, clock);
  return { clock, output, playout, sent: () => sentSamples };
}

test('playout: keeps only the lead in the transport, finishes when the end mark is played', async () => {
  const { clock, output, playout, sent } = setup();
  playout.beginSegment('واحد اثنان ثلاثة أربعة');
  playout.append(ms(1000), RATE);
  playout.end();
  let how: string | undefined;
  void playout.finished.then((h) => (how = h));
  assert.ok(output.pending() <= 0.2 + 1e-9, `queued ${output.pending()} s`);
  await clock.advance(500);
  assert.ok(output.pending() <= 0.2 + 1e-9);
  assert.equal(playout.speaking, true);
  assert.equal(how, undefined);
  await clock.advance(600);
  assert.equal(how, 'done');
  assert.equal(sent(), RATE, 'every sample went out once');
  assert.equal(playout.heardText(), 'واحد اثنان ثلاثة أربعة');
  assert.equal(clock.pending, 0, 'nothing polls');
});

test('playout: pause stops the voice at once and resume continues from the heard position', async () => {
  const { clock, output, playout, sent } = setup();
  playout.beginSegment('نص');
  playout.append(ms(1000), RATE);
  playout.end();
  await clock.advance(300);
  await playout.pause();
  const atPause = sent();
  assert.equal(output.pending(), 0, 'the transport queue was dropped');
  assert.equal(playout.speaking, false);
  await clock.advance(2000);
  assert.equal(sent(), atPause, 'silent while paused');
  assert.ok(Math.abs(playout.played() - atPause / RATE) < 1e-9);
  playout.resume();
  await clock.advance(1000);
  assert.equal(await playout.finished, 'done');
  assert.equal(sent(), RATE, 'no sample twice, none lost');
});

test('playout: stop returns the heard words and ignores later audio; first-sent time comes from playback', async () => {
  const { clock, playout, sent } = setup();
  let first: number | undefined;
  playout.onFirstSent((t) => (first = t));
  await clock.advance(50);
  playout.beginSegment('أهلا بك', 'أهلا بك');
  playout.append(ms(600), RATE);
  playout.closeSegment();
  playout.beginSegment('كيف حالك اليوم', 'كيف حالك اليوم');
  playout.append(ms(900), RATE);
  assert.equal(first, 50);
  await clock.advance(600 + 500);
  const heard = await playout.stop();
  assert.equal(heard, 'أهلا بك كيف حالك', 'the first segment whole, then the words that fit in the played share');
  assert.equal(await playout.finished, 'stopped');
  const after = sent();
  playout.append(ms(500), RATE);
  await clock.advance(1000);
  assert.equal(sent(), after);
});

test('playout: pieces at different rates mix; the edge converts them to the transport rate', async () => {
  const clock = new VirtualClock();
  let out = 0;
  const output = new ResamplingOutput(new PacedOutput(48000, clock, (s) => (out += s.length)));
  await output.prepare(24000);
  const playout = new ReplyPlayout(output, clock);
  playout.beginSegment('a');
  playout.append(ms(200, 24000), 24000);
  playout.append(ms(200, 48000), 48000);
  playout.end();
  await clock.advance(1000);
  assert.equal(await playout.finished, 'done');
  assert.ok(Math.abs(out - 0.4 * 48000) <= 48 * 12, `${out} samples at 48 kHz`);
});

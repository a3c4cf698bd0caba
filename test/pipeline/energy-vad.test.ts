import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ENERGY_VAD_DEFAULTS, EnergyVad } from '../../src/pipeline/energy-vad.ts';
import { createLocalVad, LocalVad, type LocalSpeech } from '../../src/pipeline/local-vad.ts';
import { VirtualClock } from '../../src/transport/clock.ts';

const RATE = 8000;
/** One 20 ms frame whose samples alternate ±amplitude (mean absolute level = amplitude). */
const frame = (amplitude: number, rate = RATE) => ({ samples: new Int16Array((rate * 20) / 1000).map((_, i) => (i % 2 ? -amplitude : amplitude)), sampleRate: rate, time: 0 });

function detector(opts = {}) {
  const clock = new VirtualClock(1000);
  const vad = new EnergyVad(clock, opts);
  const events: LocalSpeech[] = [];
  vad.speech$.subscribe((e) => events.push(e));
  /** Pushes `n` frames of `amplitude`, the clock moving 20 ms per frame. */
  const feed = async (amplitude: number, n: number) => {
    for (let i = 0; i < n; i++) {
      vad.push(frame(amplitude));
      await clock.advance(20);
    }
  };
  return { clock, vad, events, feed };
}

test('energy VAD: speech starts on minSpeechMs of loud frames in a row, stamped on the session clock', async () => {
  const { events, feed } = detector();
  await feed(0, 10);
  assert.deepEqual(events, []);
  await feed(2000, 1);
  assert.deepEqual(events, [], 'one loud frame (20 ms) is under minSpeechMs (40)');
  await feed(2000, 1);
  assert.deepEqual(events, [{ type: 'start', at: 1000 + 11 * 20 }], 'the second loud frame starts speech, at the time it arrived');
  await feed(2000, 20);
  assert.equal(events.length, 1, 'one start for one stretch of speech');
});

test('energy VAD: a click, or a level at the threshold, is not speech; quiet in between resets the count', async () => {
  const { events, feed } = detector();
  for (let i = 0; i < 5; i++) {
    await feed(3000, 1);
    await feed(0, 1);
  }
  await feed(ENERGY_VAD_DEFAULTS.level, 10);
  assert.deepEqual(events, []);
});

test('energy VAD: speech ends after hangoverMs of quiet; a short pause inside speech does not end it', async () => {
  const { events, feed } = detector({ hangoverMs: 100 });
  await feed(2000, 3);
  await feed(0, 4); // 80 ms: a pause between words
  await feed(2000, 2);
  assert.deepEqual(events.map((e) => e.type), ['start']);
  await feed(0, 5);
  assert.deepEqual(events.map((e) => e.type), ['start', 'end']);
  await feed(2000, 2);
  assert.deepEqual(events.map((e) => e.type), ['start', 'end', 'start'], 'speech again starts again');
});

test('energy VAD: the threshold and durations are options, at any rate', async () => {
  const { events, vad } = detector({ level: 100, minSpeechMs: 60 });
  for (let i = 0; i < 2; i++) vad.push(frame(200, 16000));
  assert.deepEqual(events, []);
  vad.push(frame(200, 16000));
  assert.equal(events.length, 1);
  vad.close();
});

test('createLocalVad: none by default, energy on request, Silero for true or "silero" (not started: no model is loaded)', () => {
  const clock = new VirtualClock();
  assert.equal(createLocalVad(undefined, RATE, clock), undefined);
  assert.equal(createLocalVad({ localVad: false }, RATE, clock), undefined);
  assert.ok(createLocalVad({ localVad: 'energy', energyVad: { level: 900 } }, RATE, clock) instanceof EnergyVad);
  assert.ok(createLocalVad({ localVad: true }, RATE, clock) instanceof LocalVad);
  assert.ok(createLocalVad({ localVad: 'silero' }, RATE, clock) instanceof LocalVad);
});

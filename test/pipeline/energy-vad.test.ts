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
  await feed(0, 1); // line silence first: the first frame sets the floor
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
  vad.push(frame(0, 16000)); // the first frame sets the noise floor: line silence
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

test('energy VAD: in steady noise above the fixed level it hears the onset above the noise and the end of speech (the fixed level could not)', async () => {
  // Washing-machine-like noise at 1500 (over the 500 level) from the first frame, speech at 8000
  // (15.6 dB above it) for 400 ms, then the noise alone again.
  const run = async (opts: object) => {
    const { events, feed } = detector(opts);
    await feed(1500, 100);
    const beforeSpeech = events.length;
    await feed(8000, 20);
    await feed(1500, 50);
    return { beforeSpeech, types: events.map((e) => e.type), events };
  };
  const fixed = await run({ adaptive: false });
  assert.equal(fixed.beforeSpeech, 1, 'the fixed level takes the noise for speech at once');
  assert.deepEqual(fixed.types, ['start'], 'and never hears it end, nor the real onset');
  const adaptive = await run({});
  assert.equal(adaptive.beforeSpeech, 0, 'the noise is the floor: no start');
  assert.deepEqual(adaptive.types, ['start', 'end'], 'the onset above the floor starts speech; the noise after it ends it');
  assert.equal(adaptive.events[0]!.at, 1000 + 101 * 20, 'heard on the second frame of the onset');
});

test('energy VAD: a noise that starts and stays becomes the floor: the speech it started ends, and a voice above it is heard', async () => {
  const { events, feed } = detector();
  await feed(0, 10);
  await feed(2000, 1);
  await feed(2000, 1);
  assert.deepEqual(events.map((e) => e.type), ['start'], 'a new noise is loud at first');
  const started = events[0]!.at;
  await feed(2000, 500); // 10 s of it
  assert.deepEqual(events.map((e) => e.type), ['start', 'end']);
  assert.ok(events[1]!.at - started <= 10_000, `ended ${events[1]!.at - started} ms after it started`);
  await feed(2000 * 8, 5);
  assert.deepEqual(events.map((e) => e.type), ['start', 'end', 'start'], 'a voice 18 dB above the noise');
});

test("energy VAD: the agent's own voice coming back down the line is not the caller; a caller louder than its echo is", async () => {
  const { events, feed, vad, clock } = detector();
  await feed(0, 5);
  /** Caller frames of `amplitude` while the agent plays 8000 (78 dB) frames, 20 ms each. */
  const overAgent = async (amplitude: number, n: number) => {
    for (let i = 0; i < n; i++) {
      vad.playing(frame(8000));
      vad.push(frame(amplitude));
      await clock.advance(20);
    }
  };
  await overAgent(1500, 50); // echo 14.5 dB down: above the level (and at first the floor), under agent − 12 dB
  assert.equal(events.length, 0, 'echo 14.5 dB down starts nothing');
  await overAgent(6000, 3); // the caller talks over the agent, 2.5 dB under it
  assert.deepEqual(events.map((e) => e.type), ['start']);
  await overAgent(0, 20);
  assert.deepEqual(events.map((e) => e.type), ['start', 'end']);
  // The same level with the agent quiet for longer than echoWindowMs is the caller.
  await feed(0, ENERGY_VAD_DEFAULTS.echoWindowMs / 20 + 1);
  await feed(1500, 2);
  assert.deepEqual(events.map((e) => e.type), ['start', 'end', 'start']);
});

test('energy VAD: an option that is not a number ≥ 0 is a clear error', () => {
  assert.throws(() => new EnergyVad(new VirtualClock(), { marginDb: -1 }), /energyVad\.marginDb must be a number ≥ 0, got -1/);
  assert.throws(() => new EnergyVad(new VirtualClock(), { echoWindowMs: Number.NaN }), /energyVad\.echoWindowMs/);
});

/**
 * The energy-vad bench's counting (bench/energy-vad-ab.ts): starts heard in a piece of 8 kHz
 * audio, on the audio's own clock. Synthetic audio, so the counts are exact.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { energyStarts } from '../../bench/energy-vad-ab.ts';

const RATE = 8000;
const tone = (ms: number, amp: number) => Int16Array.from({ length: (RATE * ms) / 1000 }, (_, i) => Math.round(amp * Math.sin((2 * Math.PI * 220 * i) / RATE)));
const join = (...xs: Int16Array[]) => Int16Array.from(xs.flatMap((x) => [...x]));

test('a start is heard minSpeechMs into loud audio, once per burst; a burst shorter than that is not heard', () => {
  const audio = join(tone(500, 0), tone(200, 3000), tone(500, 0), tone(20, 3000), tone(500, 0), tone(200, 3000));
  assert.deepEqual(energyStarts(audio, { minSpeechMs: 40 }), [0.54, 1.76]);
  // One frame is enough at 20 ms: the 20 ms click counts too.
  assert.deepEqual(energyStarts(audio, { minSpeechMs: 20 }), [0.52, 1.22, 1.74]);
});

test('audio under the level starts nothing, whatever its length', () => {
  assert.deepEqual(energyStarts(join(tone(20, 0), tone(2000, 500)), { level: 500, minSpeechMs: 40 }), []);
});

test("with the agent's audio as a reference, its echo 300 ms later starts nothing; without it, it does", () => {
  const agent = join(tone(1000, 0), tone(1000, 12000));
  const echo = join(tone(300, 0), tone(1000, 0), tone(1000, 12000 / 8)); // 18 dB down, 300 ms later
  assert.deepEqual(energyStarts(echo, {}), [1.34]);
  assert.deepEqual(energyStarts(echo, {}, agent), []);
});

// The session's local Silero VAD (interruption.localVad: true) hears the caller after a long
// digital silence as after a short one: it restarts on zeros (src/audio/silero-vad.ts) instead of
// running its model through them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readAudioFile } from '../../src/audio/decode.ts';
import { SileroStream, DIGITAL_SILENCE_RESTART_WINDOWS } from '../../src/audio/silero-vad.ts';
import { LocalVad, type LocalSpeech } from '../../src/pipeline/local-vad.ts';

const RECORDING = new URL('../audio/fixtures/speech_sil_16k.opus', import.meta.url).pathname;

/** The speech events of a local VAD fed `audio` in 20 ms frames, stamped with the audio's own time. */
async function speechOf(audio: Int16Array): Promise<LocalSpeech[]> {
  let now = 0;
  const vad = new LocalVad(16000, { now: () => now, sleep: async () => {}, speed: 1 });
  await vad.start();
  const events: LocalSpeech[] = [];
  vad.speech$.subscribe((e) => events.push(e));
  for (let off = 0; off + 320 <= audio.length; off += 320) {
    now = (off / 16000) * 1000;
    vad.push({ samples: audio.subarray(off, off + 320), sampleRate: 16000, time: now });
    await (vad as unknown as { chain: Promise<void> }).chain; // each frame scored before the next, as on a line
  }
  vad.close();
  return events;
}

const WINDOW = 512;

test('a word after ten seconds of digital silence is heard as after one second (the restart), and the silence between costs no model runs', async () => {
  const { samples } = await readAudioFile(RECORDING, 16000);
  // Whole windows and whole 20 ms frames, so the second word meets the same windows after either silence.
  const word = samples.subarray(0, 90 * WINDOW);
  const join = (silenceWindows: number) => {
    const out = new Int16Array(word.length * 2 + silenceWindows * WINDOW);
    out.set(word);
    out.set(word, word.length + silenceWindows * WINDOW);
    return out;
  };
  const [shortGap, longGap] = [DIGITAL_SILENCE_RESTART_WINDOWS + 9, 320]; // 1.28 s and 10.24 s
  const short = await speechOf(join(shortGap));
  const long = await speechOf(join(longGap));
  const startsIn = (events: LocalSpeech[]) => events.filter((e) => e.type === 'start').length;
  assert.equal(startsIn(short), startsIn(long));
  assert.ok(startsIn(short) >= 2, `both words heard: ${JSON.stringify(short)}`);
  // The second word's events, in ms from its own start: the same after either silence.
  const rel = (events: LocalSpeech[], gap: number) => {
    const at = ((word.length + gap * WINDOW) / 16000) * 1000;
    return events.filter((e) => e.at >= at).map((e) => ({ type: e.type, at: Math.round(e.at - at) }));
  };
  assert.ok(rel(short, shortGap).length >= 2);
  assert.deepEqual(rel(long, longGap), rel(short, shortGap));

  const stream = await SileroStream.create({ restartAfterZeroWindows: DIGITAL_SILENCE_RESTART_WINDOWS });
  await stream.push(join(longGap));
  assert.equal(stream.skippedWindows, longGap - DIGITAL_SILENCE_RESTART_WINDOWS, 'the silence past the restart runs no model');
});

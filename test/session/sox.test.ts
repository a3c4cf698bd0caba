import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { firstValueFrom, toArray } from '../helpers/rx.ts';
import { concatPcm } from '../../src/audio/pcm.ts';
import { decodeWav, encodeWav } from '../../src/audio/wav.ts';
import { ScaledClock } from '../../src/transport/clock.ts';
import { RAW, SoxTransport } from '../../transports/local/sox.ts';

test('sox transport: audio in from a sox process, agent audio out to another, paced', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hiwar-sox-'));
  const tone = Int16Array.from({ length: 8000 }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 16000)));
  writeFileSync(join(dir, 'mic.wav'), encodeWav(tone, 16000));
  const out = join(dir, 'speaker.wav');
  // sox stands in for the sound card: a file as the microphone, a file as the loudspeaker.
  const transport = new SoxTransport(16000, new ScaledClock(4), {
    rec: ['sox', join(dir, 'mic.wav'), ...RAW(16000), '-'],
    play: ['sox', ...RAW(16000), '-', out],
  });
  const heard = firstValueFrom(transport.audio$.pipe(toArray()));
  const reply = Int16Array.from({ length: 4800 }, (_, i) => (i % 40 < 20 ? 3000 : -3000));
  transport.output.write({ samples: reply, sampleRate: 16000, time: 0 });
  await transport.output.mark('end');
  assert.ok(Math.abs(transport.output.position() - 0.3) < 0.03, `played ${transport.output.position()} s`);
  const frames = await heard; // the microphone (a file here) ends, and so does audio$
  assert.deepEqual(concatPcm(frames.map((f) => f.samples)).slice(0, 8000), tone);
  await transport.close();
  const played = decodeWav(readFileSync(out)).samples;
  assert.deepEqual(played.slice(0, 4800), reply);
});

/**
 * Regenerates the sample files the examples' README lines use (they are committed, so a fresh
 * clone runs every line as written): the examples' sentence voiced by the sandbox, the same as
 * MP3, and with noise mixed in for the denoise example.
 *   npx tsx examples/audio/make-samples.ts
 */
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { mixAtSnr } from '../../src/audio/pcm.ts';
import { encodeWav } from '../../src/audio/wav.ts';
import { startSandbox } from '../../src/sandbox/index.ts';
import { collectPcm, ServiceClient } from '../../src/service/index.ts';
import { EXAMPLE_SENTENCE } from '../_connect.ts';

const dir = new URL('.', import.meta.url).pathname;
const sandbox = await startSandbox({ port: 0 });
try {
  const client = new ServiceClient({ apiKey: sandbox.keys[0]!.key, baseUrl: sandbox.url });
  const stream = await client.synthesizeStream(client.config.models.tts, { voice_id: 'ar-najdi-male-2', text: EXAMPLE_SENTENCE, sample_rate: 16000 });
  const speech = await collectPcm(stream);
  // Half a second of silence either side, as a recording would have.
  const padded = new Int16Array(speech.length + 16000);
  padded.set(speech, 8000);
  await writeFile(`${dir}greeting.wav`, encodeWav(padded, 16000));
  const mp3 = spawnSync('ffmpeg', ['-y', '-loglevel', 'error', '-i', `${dir}greeting.wav`, '-ar', '44100', '-ac', '2', '-b:a', '64k', `${dir}greeting.mp3`]);
  if (mp3.status !== 0) throw new Error(`ffmpeg: ${mp3.stderr}`);
  // Noise: a mains hum with its harmonics and a seeded hiss, 5 dB below the speech.
  let seed = 1;
  const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff) * 2 - 1;
  const noise = Int16Array.from({ length: padded.length }, (_, i) => 3000 * (Math.sin((2 * Math.PI * 100 * i) / 16000) + 0.5 * Math.sin((2 * Math.PI * 200 * i) / 16000)) + 2500 * rand());
  await writeFile(`${dir}noisy.wav`, encodeWav(mixAtSnr(padded, noise, 5), 16000));
  console.log(`wrote greeting.wav, greeting.mp3 (44.1 kHz stereo) and noisy.wav in ${dir}`);
} finally {
  await sandbox.close();
}

/** Synthesizes an Arabic sentence over HTTP streaming and writes it to a WAV file (default out/tts.wav). */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { encodeWav } from '../src/audio/wav.ts';
import { collectPcm } from '../src/service/index.ts';
import { EXAMPLE_SENTENCE, fail, withService } from './_connect.ts';

const out = process.argv[2] ?? 'out/tts.wav';
// Checked first: a path that cannot be written fails before anything is synthesized.
await mkdir(dirname(out), { recursive: true }).catch(fail);
await withService(async ({ client }) => {
  const stream = await client.synthesizeStream(client.config.models.tts, {
    voice_id: 'ar-najdi-male-2',
    text: EXAMPLE_SENTENCE,
    sample_rate: 16000,
  });
  const pcm = await collectPcm(stream);
  await writeFile(out, encodeWav(pcm, stream.sampleRate));
  console.log(`${out}: ${(pcm.length / stream.sampleRate).toFixed(2)} s at ${stream.sampleRate} Hz (model ${client.config.models.tts})`);
});

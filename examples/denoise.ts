/** Uploads a noisy file for denoising, follows the job's progress and saves the result under out/. */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, extname, join } from 'node:path';
import { audioArgument, withService } from './_connect.ts';

const { path } = await audioArgument('FILE (WAV, MP3, OGG, M4A…)', 16000);
const data = await readFile(path);
const out = join('out', `${basename(path, extname(path))}-denoised.wav`);
await mkdir('out', { recursive: true });
await withService(async ({ client }) => {
  const job = await client.denoise({ data, filename: basename(path) });
  console.log(`job ${job.denoiseId} queued`);
  process.stdout.write('processing:');
  const url = await client.waitForDenoise(job.denoiseId, (e) => {
    if (e.stage === 'processing' && e.progress !== undefined) process.stdout.write(` ${e.progress}%`);
  });
  process.stdout.write('\n');
  // Saved at once: the result's URL may expire (and the in-process sandbox ends with this script).
  const res = await fetch(url);
  if (!res.ok) throw new Error(`downloading the result failed: HTTP ${res.status}`);
  await writeFile(out, Buffer.from(await res.arrayBuffer()));
  console.log(`done: ${out}`);
});

/** Uploads a noisy file for denoising and follows the job's progress until done. */
import { readFile } from 'node:fs/promises';
import { connect } from './_connect.ts';

const path = process.argv[2];
if (!path) {
  console.error('usage: examples/denoise.ts FILE');
  process.exit(2);
}
const { client, close } = await connect();
try {
  const job = await client.denoise({ data: await readFile(path), filename: path });
  console.log(`job ${job.denoiseId} queued`);
  const url = await client.waitForDenoise(job.denoiseId, (e) => {
    if (e.stage === 'processing') console.log(`processing ${e.progress ?? ''}`);
  });
  console.log(`done: ${url}`);
} finally {
  await close();
}

// Silero VAD runs on onnxruntime-node where it is installed (this repository) and on
// onnxruntime-web (WebAssembly) everywhere else (a package install with no optional peer): both
// must hear the same speech in a real recording (test/audio/fixtures/README.md).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runNode } from '../helpers/processes.ts';
import { readAudioFile } from '../../src/audio/decode.ts';
import { onnxRuntime } from '../../src/audio/onnx.ts';
import { SileroStream } from '../../src/audio/silero-vad.ts';

const RECORDING = new URL('./fixtures/speech_sil_16k.opus', import.meta.url).pathname;

const PROBE = `
import { readAudioFile } from './src/audio/decode.ts';
import { onnxRuntime } from './src/audio/onnx.ts';
import { SileroStream } from './src/audio/silero-vad.ts';
const { samples } = await readAudioFile(${JSON.stringify(RECORDING)}, 16000);
const windows = await (await SileroStream.create()).push(samples);
console.log(JSON.stringify({ engine: (await onnxRuntime()).engine, p: windows.map((w) => w.p) }));
`;

test('Silero VAD gives the same probabilities on onnxruntime-web as on onnxruntime-node', async () => {
  const { samples } = await readAudioFile(RECORDING, 16000);
  assert.equal((await onnxRuntime()).engine, 'onnxruntime-node', 'the repository installs the native runtime');
  const native = (await (await SileroStream.create()).push(samples)).map((w) => w.p);

  const child = await runNode(['--import', 'tsx', '--input-type=module', '-e', PROBE], { HIWAR_ONNX: 'web' }, 120_000);
  assert.equal(child.code, 0, child.stderr);
  const web = JSON.parse(child.stdout.trim().split('\n').pop()!) as { engine: string; p: number[] };
  assert.equal(web.engine, 'onnxruntime-web');
  assert.equal(web.p.length, native.length);
  assert.ok(native.some((p) => p > 0.9) && native.some((p) => p < 0.1), 'the recording has speech and silence');
  const worst = Math.max(...web.p.map((p, i) => Math.abs(p - native[i]!)));
  assert.ok(worst < 1e-4, `largest difference ${worst}`);
});

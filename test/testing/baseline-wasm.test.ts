/**
 * A test process compiles the VAD's WebAssembly with V8's baseline compiler only: with the
 * default tiering, Node waited at exit for V8 to finish optimizing it in the background, and a
 * user's `node --test` file stayed up after its last test with no handle to show for it.
 * What is asserted is a V8 setting of this process, hence a process of its own.
 * hiwar-test: own-process
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { baselineWasm, wasmCompilation } from '../../src/audio/onnx.ts';
import { sileroLoaded } from '../../src/audio/silero-vad.ts';
import { startTestSandbox } from '../../src/testing/index.ts';

test('startTestSandbox sets the baseline compiler before the VAD runtime loads', async () => {
  assert.equal(wasmCompilation(), 'tiered', 'a process starts with V8 tiering');
  const sandbox = await startTestSandbox({ progress: false });
  try {
    assert.equal(sileroLoaded(), true, 'the sandbox loaded the VAD');
    assert.equal(wasmCompilation(), 'baseline', 'and it was compiled by the baseline compiler only');
  } finally {
    await sandbox.close();
  }
});

test('once the runtime is loaded the setting is not changed any more', () => {
  assert.equal(baselineWasm(), true, 'still baseline (said, not set again)');
});

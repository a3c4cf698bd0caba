/**
 * A sandbox that takes calls loads the voice activity model when it starts, not in the middle of
 * the first call: a newcomer's first call to `createAgentServer` on the embedded sandbox heard
 * the greeting stop for 2 s after its first words while the model loaded on the event loop.
 * What is asserted is whether the model is loaded in this process, hence a process of its own.
 * hiwar-test: own-process
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { wasmCompilation } from '../../src/audio/onnx.ts';
import { sileroLoaded } from '../../src/audio/silero-vad.ts';
import { startSandbox } from '../../src/sandbox/index.ts';
import { createAgentServer } from '../../src/server/index.ts';
import { createLogger } from '../../src/session/logger.ts';
import type { Agent } from '../../src/session/agent.ts';

const agent: Agent = { name: 'warm', instructions: 'x', greeting: 'أهلًا', voice: { voice_id: 'ar-hijazi-female-1' }, outOfServiceLine: 'الخدمة غير متاحة.' };

test('a sandbox without warmUp leaves the model alone (one used only for synthesis never needs it)', async () => {
  const sandbox = await startSandbox({ port: 0 });
  await sandbox.close();
  assert.equal(sileroLoaded(), false);
});

test("createAgentServer's embedded sandbox has the model loaded before the first call, not by it", async () => {
  assert.equal(process.env.HIWAR_API_KEY, undefined, 'this test needs the embedded sandbox');
  const app = await createAgentServer({ agent, logger: createLogger('silent') });
  try {
    assert.equal(sileroLoaded(), true, 'loaded by the start, before any call could arrive');
    assert.equal(wasmCompilation(), 'tiered', 'a server runs for hours: V8 keeps optimizing its WebAssembly');
  } finally {
    await app.close();
  }
});

/**
 * The TTS socket's wait for `connectionInitialized` counts the process's run time, as its other
 * watchdogs do: a service that answered while this process stalled past the timeout (a
 * synchronous task, here in the fake service's own handler, in this process) is read, not taken
 * for one that never answered. A service that never answers still times out.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { WebSocket } from 'ws';
import { ProtocolError } from '../../src/service/index.ts';
import { startFake, type Fake } from '../helpers/fake-service.ts';
import { stall } from '../helpers/stall.ts';

const TIMEOUT_MS = 200;
/** Longer than the timeout: the process is off the CPU while the answer waits. */
const STALL_MS = 3 * TIMEOUT_MS;

let silent = false;
function peer(ws: WebSocket): void {
  ws.on('message', (data) => {
    if (JSON.parse(data.toString()).type !== 'initConnection' || silent) return;
    ws.send(JSON.stringify({ type: 'connectionInitialized' }));
    stall(STALL_MS);
  });
}

let fake: Fake;
before(async () => {
  fake = await startFake({}, { '/websocket/text-to-speech': peer });
});
after(() => fake.close());

test('a connectionInitialized that came while the process stalled past the timeout is read', async () => {
  silent = false;
  const tts = await fake.client().openTts({ voice_id: 'v', timeoutMs: TIMEOUT_MS });
  await tts.close();
});

test('a service that never initializes still times out', async () => {
  silent = true;
  await assert.rejects(fake.client().openTts({ voice_id: 'v', timeoutMs: TIMEOUT_MS }), (e: unknown) => e instanceof ProtocolError && /no connectionInitialized within 200 ms/.test(e.message));
});

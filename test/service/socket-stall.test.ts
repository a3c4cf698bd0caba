/**
 * The service sockets' opening counts the process's run time, as their other watchdogs do: the
 * WebSocket handshake, and the TTS socket's `connectionInitialized`, answered while this process
 * stalled past the timeout (a synchronous task, here in the fake service's own handler, in this
 * process), are read, not taken for a service that never answered. A service that never answers
 * still times out.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { after, before, test } from 'node:test';
import type { WebSocket } from 'ws';
import { ProtocolError, TransportError } from '../../src/service/index.ts';
import { startFake, type Fake } from '../helpers/fake-service.ts';
import { stall } from '../helpers/stall.ts';

const TIMEOUT_MS = 200;
/** Longer than the timeout: the process is off the CPU while the answer waits. */
const STALL_MS = 3 * TIMEOUT_MS;

/** How the fake's TTS socket behaves: stalls once the upgrade is answered, once initialized, or never initializes. */
let mode: 'stall-open' | 'stall-init' | 'silent' = 'stall-init';
function peer(ws: WebSocket): void {
  if (mode === 'stall-open') stall(STALL_MS);
  ws.on('message', (data) => {
    const type = JSON.parse(data.toString()).type;
    if (type === 'closeConnection') return ws.close(1000);
    if (type !== 'initConnection' || mode === 'silent') return;
    ws.send(JSON.stringify({ type: 'connectionInitialized' }));
    if (mode === 'stall-init') stall(STALL_MS);
  });
}

let fake: Fake;
before(async () => {
  fake = await startFake({}, { '/websocket/text-to-speech': peer });
});
after(() => fake.close());

test('a handshake answered while the process stalled past the timeout is read', async () => {
  mode = 'stall-open';
  const tts = await fake.client().openTts({ voice_id: 'v', timeoutMs: TIMEOUT_MS });
  await tts.close();
});

test('a connectionInitialized that came while the process stalled past the timeout is read', async () => {
  mode = 'stall-init';
  const tts = await fake.client().openTts({ voice_id: 'v', timeoutMs: TIMEOUT_MS });
  await tts.close();
});

test('a service that never initializes still times out', async () => {
  mode = 'silent';
  await assert.rejects(fake.client().openTts({ voice_id: 'v', timeoutMs: TIMEOUT_MS }), (e: unknown) => e instanceof ProtocolError && /no connectionInitialized within 200 ms/.test(e.message));
});

test('a server that never answers the upgrade still times out, as a timeout', async () => {
  const mute = createServer((s) => s.on('error', () => {}));
  await new Promise<void>((r) => mute.listen(0, '127.0.0.1', () => r()));
  const port = (mute.address() as { port: number }).port;
  try {
    const client = fake.client({ baseUrl: `http://127.0.0.1:${port}/api/v1` });
    await assert.rejects(client.openTts({ voice_id: 'v', timeoutMs: TIMEOUT_MS }), (e: unknown) => e instanceof TransportError && e.kind === 'timeout' && /connection timed out/.test(e.message));
  } finally {
    mute.close();
  }
});

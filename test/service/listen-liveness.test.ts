import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { filter, firstValueFrom } from '../helpers/rx.ts';
import { WebSocketServer } from 'ws';
import { ServiceClient, type ListenEvent } from '../../src/service/index.ts';
import { runSandbox, type Running } from '../helpers/sandbox.ts';

let sb: Running;
before(async () => {
  sb = await runSandbox();
});
after(() => sb.close());

type Closed = Extract<ListenEvent, { type: 'Closed' }>;

/**
 * Sends `seconds` of noise in 100 ms frames: quiet (a phone line's silence, the default) or at
 * speech level (`amplitude` 6000), at `speed` times real-time pace (the service allows a minute ahead).
 */
async function stream(listen: { sendAudio(p: Int16Array): void; isOpen: boolean }, seconds: number, { amplitude = 50, speed = 1 } = {}): Promise<void> {
  for (let i = 0; i < seconds * 10 && listen.isOpen; i++) {
    const frame = new Int16Array(1600);
    for (let k = 0; k < frame.length; k++) frame[k] = Math.round((Math.random() - 0.5) * amplitude);
    listen.sendAudio(frame);
    await new Promise((r) => setTimeout(r, 100 / speed));
  }
}

test('a black-holed /listen is noticed by ping/pong and reported as a dropped, retryable close', async () => {
  sb.sandbox.state.faults.listenBlackhole = { afterAudioS: 0.5, times: 1 };
  const listen = await sb.client.openListen({ liveness: { pingIntervalMs: 200, pongTimeoutMs: 400, eventTimeoutMs: 0 } });
  await listen.opened();
  const closed = firstValueFrom(listen.events$.pipe(filter((e): e is Closed => e.type === 'Closed')));
  await stream(listen, 6);
  const { close } = await closed;
  assert.equal(close.kind, 'dropped');
  assert.equal(close.retryable, true);
  assert.match(close.reason, /no pong/);
});

test('speech sent with no event back for too long is a dead connection too (pings off)', async () => {
  sb.sandbox.state.faults.listenBlackhole = { afterAudioS: 0.3, times: 1 };
  const listen = await sb.client.openListen({ liveness: { pingIntervalMs: 0, eventTimeoutMs: 800 } });
  await listen.opened();
  const closed = firstValueFrom(listen.events$.pipe(filter((e): e is Closed => e.type === 'Closed')));
  await stream(listen, 6, { amplitude: 6000 });
  const { close } = await closed;
  assert.equal(close.kind, 'dropped');
  assert.match(close.reason, /speech sent with no event back/);
});

test('a long silence is not a dead connection: the sandbox sends nothing, and nothing reconnects', async () => {
  // 40 s of a silent line at 20x (2 s of wall time), against a watchdog that gives up after one
  // second of unanswered speech: silence never counts. Pings stay on and are answered.
  const listen = await sb.client.openListen({ liveness: { pingIntervalMs: 100, pongTimeoutMs: 2000, eventTimeoutMs: 1000 } });
  await listen.opened();
  const events: ListenEvent[] = [];
  listen.events$.subscribe((e) => events.push(e));
  await stream(listen, 40, { speed: 20 });
  assert.equal(listen.isOpen, true);
  assert.deepEqual(events.filter((e) => e.type !== 'Metadata').map((e) => e.type), [], 'the service says nothing in silence');
  assert.ok(await listen.finish(), 'closing Metadata');
});

test('behind a proxy that answers pings for a backend that is gone: silence keeps the socket, speech finds it dead', async () => {
  // The proxy: a real WebSocket server that answers pings (ws does) and opens like the service,
  // then forwards nothing.
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await once(wss, 'listening');
  wss.on('connection', (ws) => ws.send(JSON.stringify({ type: 'Metadata', session_id: 'gone', model: 'munsit', channels: 1, sample_rate: 16000 })));
  const base = `http://127.0.0.1:${(wss.address() as AddressInfo).port}/api/v1`;
  try {
    const client = new ServiceClient({ apiKey: sb.key, baseUrl: base, maxRetries: 0 });
    const listen = await client.openListen({ liveness: { pingIntervalMs: 100, pongTimeoutMs: 2000, eventTimeoutMs: 1500 } });
    await listen.opened();
    const closed = firstValueFrom(listen.events$.pipe(filter((e): e is Closed => e.type === 'Closed')));
    await stream(listen, 30, { speed: 20 });
    assert.equal(listen.isOpen, true, 'thirty seconds of silence: still open');
    await stream(listen, 10, { amplitude: 6000, speed: 5 });
    const { close } = await closed;
    assert.equal(close.kind, 'dropped');
    assert.equal(close.retryable, true);
    assert.match(close.reason, /1\.\d s of speech sent with no event back/);
  } finally {
    for (const c of wss.clients) c.terminate();
    wss.close();
  }
});

test('a healthy /listen answers its pings and is not closed by the watchdog', async () => {
  const listen = await sb.client.openListen({ liveness: { pingIntervalMs: 100, pongTimeoutMs: 1000, eventTimeoutMs: 0 } });
  await listen.opened();
  await stream(listen, 1.5);
  assert.equal(listen.isOpen, true);
  const meta = await listen.finish();
  assert.ok(meta, 'closing Metadata');
});

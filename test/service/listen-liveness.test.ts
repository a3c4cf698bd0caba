import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { filter, firstValueFrom } from 'rxjs';
import type { ListenEvent } from '../../src/service/index.ts';
import { runSandbox, type Running } from '../helpers/sandbox.ts';

let sb: Running;
before(async () => {
  sb = await runSandbox();
});
after(() => sb.close());

type Closed = Extract<ListenEvent, { type: 'Closed' }>;

/** Sends `seconds` of quiet noise in 100 ms frames, at about real-time pace. */
async function stream(listen: { sendAudio(p: Int16Array): void; isOpen: boolean }, seconds: number): Promise<void> {
  for (let i = 0; i < seconds * 10 && listen.isOpen; i++) {
    const frame = new Int16Array(1600);
    for (let k = 0; k < frame.length; k++) frame[k] = Math.round((Math.random() - 0.5) * 50);
    listen.sendAudio(frame);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('a black-holed /listen is noticed by ping/pong and reported as a dropped, retryable close', { timeout: 30_000 }, async () => {
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

test('audio sent with no event back for too long is a dead connection too (pings off)', { timeout: 30_000 }, async () => {
  sb.sandbox.state.faults.listenBlackhole = { afterAudioS: 0.3, times: 1 };
  const listen = await sb.client.openListen({ liveness: { pingIntervalMs: 0, eventTimeoutMs: 800 } });
  await listen.opened();
  const closed = firstValueFrom(listen.events$.pipe(filter((e): e is Closed => e.type === 'Closed')));
  await stream(listen, 6);
  const { close } = await closed;
  assert.equal(close.kind, 'dropped');
  assert.match(close.reason, /no event back/);
});

test('a healthy /listen answers its pings and is not closed by the watchdog', { timeout: 30_000 }, async () => {
  const listen = await sb.client.openListen({ liveness: { pingIntervalMs: 100, pongTimeoutMs: 1000, eventTimeoutMs: 0 } });
  await listen.opened();
  await stream(listen, 1.5);
  assert.equal(listen.isOpen, true);
  const meta = await listen.finish();
  assert.ok(meta, 'closing Metadata');
});

// The telephony output's pacing on Node's real event loop: a loop that wakes late must read what
// arrived meanwhile (the caller's speech, the service's SpeechStarted) before it sends agent audio
// that became due, so that a barge-in waiting unread stops that audio instead of following it.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { sleepFor, type Clock } from '../../src/transport/clock.ts';
import { MediaStreamOutput } from '../../transports/telephony/media-output.ts';
import type { ProviderConnection, WireMessage } from '../../transports/telephony/provider.ts';

const FORMAT = { codec: 'mulaw', sampleRate: 8000, frameMs: 20 } as const;

/**
 * A clock whose pacing timers are Node timers the test releases: call time moves only when the
 * test says, and the timer fires from the loop's timers phase, as a real one does.
 */
class HeldClock implements Clock {
  readonly speed = 1;
  t = 0;
  private held: (() => void)[] = [];
  now(): number {
    return this.t;
  }
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepFor(ms, signal);
  }
  after(_ms: number, fire: () => void): () => void {
    this.held.push(fire);
    return () => (this.held = this.held.filter((f) => f !== fire));
  }
  /** The held timers fire on the loop's next timers phase (armed now, due in 1 ms). */
  release(): void {
    const due = this.held.splice(0);
    setTimeout(() => due.forEach((fire) => fire()), 0);
  }
}

/** Holds the thread, as a loop busy with other calls' work (or a process off its core) does. */
function busyFor(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

test('a loop that wakes late reads the caller first: no agent frame goes out between the barge-in arriving and its clear', async (t) => {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const caller = connect(port, '127.0.0.1');
  const [peer] = (await once(server, 'connection')) as [Socket];
  t.after(() => {
    caller.destroy();
    peer.destroy();
    server.close();
  });

  const clock = new HeldClock();
  const wire: string[] = [];
  const conn: ProviderConnection = { parse: () => [], encodeAudio: () => ({ text: 'media' }), clear: () => ({ text: 'clear' }) };
  const out = new MediaStreamOutput(FORMAT, conn, { send: (m: WireMessage) => 'text' in m && wire.push(m.text), close: () => {} }, { clock });
  out.write({ samples: new Int16Array(8000 * 2).fill(1000), sampleRate: 8000, time: 0 });
  assert.equal(wire.length, 8, "the lead's 160 ms at once");

  let atRead = -1;
  peer.once('data', () => {
    atRead = wire.length;
    void out.interrupt();
  });
  // The caller speaks (on loopback its bytes are in the socket when write returns) while 60 ms of
  // the reply fall due and the pacing timer is overdue: the loop wakes with both waiting.
  setImmediate(() => {
    caller.write('speech');
    clock.t = 60;
    clock.release();
    busyFor(5);
  });
  while (atRead < 0) await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));

  assert.equal(atRead, 8, `agent frames sent after the caller's speech arrived, before it was read: ${atRead - 8}`);
  assert.deepEqual(wire.slice(8), ['clear'], 'only the clear after the barge-in: the frames that fell due meanwhile were dropped');
  await out.close();
});

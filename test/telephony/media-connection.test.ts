/**
 * A media connection whose platform never sends its `start` (a gateway speaking another protocol,
 * a far end pointed at the wrong route): the log says what came instead, at once and again when
 * the start timeout closes it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLogger } from '../../src/session/logger.ts';
import { MediaConnection } from '../../transports/telephony/connection.ts';
import { telnyx } from '../../transports/telephony/telnyx.ts';
import type { CallHost } from '../../src/server/types.ts';

test('unreadable messages before start are warned of once, and named when the start timeout closes the connection', async () => {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('info', { write: (l: string) => void lines.push(JSON.parse(l)) });
  const host = { runCall: async () => assert.fail('no call should start'), draining: false, publicUrl: () => 'http://x' } as unknown as CallHost;
  let closed = '';
  const c = new MediaConnection({
    provider: 'telnyx',
    conn: telnyx.open({ url: new URL('ws://x/telephony/telnyx') } as never),
    sink: { send: () => {}, close: (why) => void (closed = why ?? '') },
    host,
    logger,
    startTimeoutMs: 100,
    idleTimeoutMs: 60_000,
  });
  c.receive({ text: 'hello, this is not Telnyx' });
  c.receive({ text: '{"event":"begin"}' });
  const warned = lines.filter((l) => l.level === 40).map((l) => String(l.msg));
  assert.deepEqual(warned, ["unreadable media message before the platform's start (is this telnyx's media stream?)"]);
  assert.equal(lines[0]!.reason, 'not a Telnyx JSON event');
  // The watchdog wakes once a second at most.
  await new Promise((r) => setTimeout(r, 1300));
  assert.equal(closed, 'no start message');
  assert.equal(lines.at(-1)!.msg, 'media connection closed: no start message (2 unreadable message(s), the first: not a Telnyx JSON event)');
  assert.equal(await c.done, undefined);
});

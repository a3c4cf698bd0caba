/**
 * A drain and the calls a webhook answer promised media for, on mocked timers: the drain waits
 * for such media a short while (`DRAIN_DEFAULTS.promisedMediaWaitMs`), not for the media token's
 * whole lifetime, and media that does come meanwhile is let in.
 */
import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import { CallManager, DRAIN_DEFAULTS } from '../../src/server/calls.ts';
import { ServerMetrics } from '../../src/server/metrics.ts';
import { createLogger } from '../../src/session/logger.ts';

const TOKEN_TTL_MS = 300_000;

function manager(): CallManager {
  return new CallManager({
    sessions: () => {
      throw new Error('no call runs in this test');
    },
    metrics: new ServerMetrics(),
    logger: createLogger('silent'),
    publicUrl: () => 'http://127.0.0.1',
  });
}

test('a webhook answered whose media never comes holds a drain for the media wait, not for the token lifetime', async () => {
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
  try {
    const calls = manager();
    calls.promise('twilio:CA1', Date.now() + TOKEN_TTL_MS);
    let drained = false;
    const drain = calls.drain().then(() => (drained = true));
    await Promise.resolve();
    mock.timers.tick(DRAIN_DEFAULTS.promisedMediaWaitMs - 1);
    await new Promise((r) => setImmediate(r));
    assert.equal(drained, false, 'still waiting for the promised media');
    mock.timers.tick(2);
    for (let i = 0; i < 5 && !drained; i++) await new Promise((r) => setImmediate(r));
    assert.equal(drained, true, 'the drain ended once the media wait was over, long before the token expired');
    await drain;
  } finally {
    mock.timers.reset();
  }
});

test('during a drain, the promised media is let in (within the token), anything else is refused', async () => {
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
  try {
    const calls = manager();
    calls.promise('twilio:CA2', Date.now() + TOKEN_TTL_MS);
    void calls.drain();
    const kept = calls.hold({ provider: 'twilio', call: 'twilio:CA2' });
    assert.ok(kept, 'the promised call holds a place');
    assert.equal(calls.hold({ provider: 'twilio', call: 'twilio:CA3' }), undefined, 'a call nobody promised is refused');
    kept!.release();
  } finally {
    mock.timers.reset();
  }
});

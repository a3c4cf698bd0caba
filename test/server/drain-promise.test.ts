/**
 * A drain and the calls a webhook answer promised media for, on mocked timers: the drain waits
 * for such media a short while (`DRAIN_DEFAULTS.promisedMediaWaitMs`), not for the media token's
 * whole lifetime, and media that does come meanwhile is let in. A call the server placed waits
 * up to its ring timeout instead, and no longer once it ended unanswered; a connection open
 * before the drain is named in its log, and its call runs when its start comes. With a shared
 * ledger, media spent on another instance ends the wait at the drain's next look at the ledger.
 */
import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import { CallManager, DRAIN_DEFAULTS } from '../../src/server/calls.ts';
import { ServerMetrics } from '../../src/server/metrics.ts';
import { callMediaKey, type TokenLedger } from '../../src/server/token-ledger.ts';
import { createLogger } from '../../src/session/logger.ts';
import type { Transport } from '../../src/transport/types.ts';

const TOKEN_TTL_MS = 300_000;

/** A call manager running no call; `lines` gets its log's messages when given; `ledger`: the shared one. */
function manager(lines?: string[], ledger?: Pick<TokenLedger, 'spent'>): CallManager {
  return new CallManager({
    ...(ledger ? { ledger } : {}),
    sessions: () => {
      throw new Error('no call runs in this test');
    },
    metrics: new ServerMetrics(),
    logger: lines ? createLogger('info', { write: (l: string) => void lines.push(JSON.parse(l).msg) }) : createLogger('silent'),
    publicUrl: () => 'http://127.0.0.1',
  });
}

/** Runs `fn` on mocked `setTimeout` and `Date` (from a fixed epoch), restored after. */
async function onMockedTimers(fn: () => Promise<void>): Promise<void> {
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
  try {
    await fn();
  } finally {
    mock.timers.reset();
  }
}

/** Drains `calls` on the mocked timers: still waiting `ms - 1` after it began, over at `ms + 1`. */
async function drainTakes(calls: CallManager, ms: number, why: string): Promise<void> {
  let drained = false;
  const drain = calls.drain().then(() => (drained = true));
  await Promise.resolve();
  mock.timers.tick(ms - 1);
  await new Promise((r) => setImmediate(r));
  assert.equal(drained, false, `still waiting before ${why}`);
  mock.timers.tick(2);
  for (let i = 0; i < 5 && !drained; i++) await new Promise((r) => setImmediate(r));
  assert.equal(drained, true, `over after ${why}`);
  await drain;
}

test('a webhook answered whose media never comes holds a drain for the media wait, not for the token lifetime', () =>
  onMockedTimers(async () => {
    const calls = manager();
    calls.promise('twilio:CA1', Date.now() + TOKEN_TTL_MS);
    await drainTakes(calls, DRAIN_DEFAULTS.promisedMediaWaitMs, 'the media wait, long before the token expired');
  }));

test('during a drain, the promised media is let in (within the token), anything else is refused', () =>
  onMockedTimers(async () => {
    const calls = manager();
    calls.promise('twilio:CA2', Date.now() + TOKEN_TTL_MS);
    void calls.drain();
    const kept = calls.hold({ provider: 'twilio', call: 'twilio:CA2' });
    assert.ok(kept, 'the promised call holds a place');
    assert.equal(calls.hold({ provider: 'twilio', call: 'twilio:CA3' }), undefined, 'a call nobody promised is refused');
    kept!.release();
  }));

test('a placed call still ringing holds a drain up to its own wait (the ring timeout), and stops holding it once it ends unanswered', () =>
  onMockedTimers(async () => {
    const calls = manager();
    const RING_MS = 30_000;
    calls.promise('twilio:out-a', Date.now() + RING_MS + TOKEN_TTL_MS, { placed: true, waitMs: RING_MS + DRAIN_DEFAULTS.promisedMediaWaitMs });
    calls.promise('twilio:out-b', Date.now() + RING_MS + TOKEN_TTL_MS, { placed: true, waitMs: RING_MS + DRAIN_DEFAULTS.promisedMediaWaitMs });
    const w = calls.waitingFor();
    assert.deepEqual(w.ringing, ['twilio:out-a', 'twilio:out-b']);
    assert.deepEqual(w.media, [], 'placed calls are not answered webhooks');
    let drained = false;
    const drain = calls.drain().then(() => (drained = true));
    await Promise.resolve();
    mock.timers.tick(DRAIN_DEFAULTS.promisedMediaWaitMs + 1);
    await new Promise((r) => setImmediate(r));
    assert.equal(drained, false, 'a ringing call is waited for beyond the answered-webhook wait');
    // a ends unanswered (its final callback); b is answered and its media comes during the drain.
    calls.withdraw('twilio:out-a');
    const media = calls.hold({ provider: 'twilio', call: 'twilio:out-b' });
    assert.ok(media, "the answered placed call's media is let in during the drain");
    assert.equal(calls.hold({ provider: 'twilio', call: 'twilio:out-a' }), undefined, 'a withdrawn call is no longer let in');
    media!.release();
    for (let i = 0; i < 5 && !drained; i++) await new Promise((r) => setImmediate(r));
    assert.equal(drained, true, 'nothing left to wait for');
    await drain;
  }));

test('a placed call that neither ends nor is answered holds a drain no longer than its wait', () =>
  onMockedTimers(async () => {
    const calls = manager();
    const waitMs = 30_000 + DRAIN_DEFAULTS.promisedMediaWaitMs;
    calls.promise('telnyx:out-c', Date.now() + 30_000 + TOKEN_TTL_MS, { placed: true, waitMs });
    await drainTakes(calls, waitMs, 'the ring timeout plus the media wait');
  }));

// Answered: a person may be on the line. The drain waits for the call's media as for a webhook
// answer's, a media wait from the answer, past the ring wait if it must; it does not hang it up
// as a call still ringing (it was said "no longer ringing" and its media, coming after the ring
// wait, was refused).
test('a placed call answered during the drain: its media is waited for a media wait from the answer, past its ring wait, and let in; never cancelled', () =>
  onMockedTimers(async () => {
    const calls = manager();
    const RING_MS = 1_000;
    let cancels = 0;
    const cancel = async () => (cancels++, true);
    calls.promise('twilio:out-d', Date.now() + RING_MS + TOKEN_TTL_MS, { placed: true, waitMs: RING_MS + DRAIN_DEFAULTS.promisedMediaWaitMs, cancel });
    let drained = false;
    const drain = calls.drain().then(() => (drained = true));
    await Promise.resolve();
    // Answered near the end of its ring wait; its media comes after that wait, within a media wait of the answer.
    mock.timers.tick(RING_MS + DRAIN_DEFAULTS.promisedMediaWaitMs - 1_000);
    calls.answered('twilio:out-d');
    assert.deepEqual([calls.waitingFor().ringing, calls.waitingFor().media], [[], ['twilio:out-d']], 'named as answered, its media awaited');
    mock.timers.tick(2_000);
    await new Promise((r) => setImmediate(r));
    assert.equal(drained, false, 'still waiting for the answered call\'s media');
    const media = calls.hold({ provider: 'twilio', call: 'twilio:out-d' });
    assert.ok(media, 'its media is let in');
    media!.release();
    for (let i = 0; i < 5 && !drained; i++) await new Promise((r) => setImmediate(r));
    assert.equal(drained, true);
    await drain;
    assert.equal(cancels, 0, 'an answered call is not cancelled');
  }));

test('a placed call answered whose media never comes: the drain stops a media wait after the answer, says so, and does not cancel it', () =>
  onMockedTimers(async () => {
    const lines: string[] = [];
    const calls = manager(lines);
    const RING_MS = 30_000;
    let cancels = 0;
    calls.promise('twilio:out-e', Date.now() + RING_MS + TOKEN_TTL_MS, { placed: true, waitMs: RING_MS + DRAIN_DEFAULTS.promisedMediaWaitMs, cancel: async () => (cancels++, false) });
    let drained = false;
    const drain = calls.drain().then(() => (drained = true));
    await Promise.resolve();
    mock.timers.tick(1_000);
    calls.answered('twilio:out-e');
    mock.timers.tick(DRAIN_DEFAULTS.promisedMediaWaitMs - 1);
    await new Promise((r) => setImmediate(r));
    assert.equal(drained, false, 'its media is waited for');
    mock.timers.tick(2);
    for (let i = 0; i < 5 && !drained; i++) await new Promise((r) => setImmediate(r));
    assert.equal(drained, true, 'a media wait after the answer, not the rest of its ring timeout');
    await drain;
    assert.equal(cancels, 0, 'not cancelled as ringing');
    assert.ok(lines.some((l) => l.includes('no media came for 1 answered call(s) (twilio:out-e)')), lines.join('\n'));
    assert.ok(!lines.some((l) => /ringing when the drain stopped/.test(l)), lines.join('\n'));
  }));

test("a promised call let in during a drain is told to the admission as promised (a cluster's closed admission still runs it)", async () => {
  const seen: unknown[] = [];
  const calls = new CallManager({
    sessions: () => {
      throw new Error('no session runs in this test');
    },
    metrics: new ServerMetrics(),
    logger: createLogger('silent'),
    publicUrl: () => 'http://127.0.0.1',
    admission: { admit: async (_t, _h, o) => (seen.push(o), undefined) },
  });
  const transport = (callId: string) => ({ call: { callId, provider: 'twilio' } }) as unknown as Transport;
  const before = await calls.runCall(transport('CA0'));
  assert.equal(before, 'refused');
  calls.promise('twilio:CA1', Date.now() + TOKEN_TTL_MS, { placed: true, waitMs: 1 });
  const drain = calls.drain();
  calls.hold({ provider: 'twilio', call: 'twilio:CA1' })!.release();
  assert.equal(await calls.runCall(transport('CA1')), 'refused');
  assert.deepEqual(seen, [undefined, { promised: true }]);
  await drain;
});

test("a connection open before the drain whose start has not come: the drain's log names it and its start-timeout bound, and its start during the drain is let in", async () => {
  const lines: string[] = [];
  const seen: unknown[] = [];
  const calls = new CallManager({
    sessions: () => {
      throw new Error('no session runs in this test');
    },
    metrics: new ServerMetrics(),
    logger: createLogger('info', { write: (s: string) => void lines.push(JSON.parse(s).msg) }),
    publicUrl: () => 'http://127.0.0.1',
    admission: { admit: async (_t, _h, o) => (seen.push(o), undefined) },
  });
  const tokened = calls.hold({ provider: 'twilio', call: 'twilio:CA5', until: Date.now() + 16_000 })!;
  const tokenless = calls.hold({ provider: 'pcm', until: Date.now() + 16_000 })!;
  const drain = calls.drain();
  assert.match(lines.join('\n'), /drain: waiting for 2 connection\(s\) whose call has not started \(twilio:CA5, pcm; no start message yet, each closed by its start timeout within 1[56]\.\d s\)/);
  assert.deepEqual(calls.waitingFor().connections, ['twilio:CA5', 'pcm']);
  // Its start comes now: the call it was waited for runs (here the admission has the last word), not refused as draining.
  tokened.release();
  assert.equal(await calls.runCall({ call: { callId: 'CA5', provider: 'twilio' } } as unknown as Transport), 'refused');
  assert.deepEqual(seen, [{ promised: true }], 'asked of the admission, as a call let in');
  // The other never starts: its adapter closes it at the start timeout, and the drain ends.
  tokenless.release();
  await drain;
});

test("media the shared ledger has spent (it reached another instance): the drain stops waiting at its next look at the ledger, not at the media's bound", () =>
  onMockedTimers(async () => {
    const lines: string[] = [];
    const spent = new Set<string>();
    const asked: string[] = [];
    const calls = manager(lines, { spent: async (k) => (asked.push(k), spent.has(k)) });
    calls.promise('twilio:CA-elsewhere', Date.now() + TOKEN_TTL_MS);
    // Its media connected to another instance: the token is spent there.
    spent.add(callMediaKey('twilio:CA-elsewhere'));
    await drainTakes(calls, DRAIN_DEFAULTS.mediaCheckMs, 'the ledger said where the media went');
    assert.ok(DRAIN_DEFAULTS.mediaCheckMs < DRAIN_DEFAULTS.promisedMediaWaitMs);
    assert.deepEqual(asked, ['call:twilio:CA-elsewhere']);
    assert.ok(lines.some((l) => l === 'drain: the media of 1 call(s) connected to another instance (twilio:CA-elsewhere); not waiting for it here (the shared ledger has its token spent)'), lines.join('\n'));
  }));

test('a ledger that has not seen the media: the drain waits for it to its bound, asking on the way', () =>
  onMockedTimers(async () => {
    let asks = 0;
    const calls = manager(undefined, { spent: async () => (asks++, false) });
    calls.promise('twilio:CA-nowhere', Date.now() + TOKEN_TTL_MS);
    await drainTakes(calls, DRAIN_DEFAULTS.promisedMediaWaitMs, 'the media bound');
    assert.ok(asks >= 1, `asked ${asks} times`);
  }));

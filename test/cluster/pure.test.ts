import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkLeaseTiming, CLUSTER_DEFAULTS, resolveClusterOptions } from '../../src/cluster/options.ts';
import { readiness } from '../../src/cluster/readiness.ts';
import { decideAdmission, WaitQueue } from '../../src/cluster/wait-queue.ts';
import { formatStatus } from '../../src/cli/status.ts';
import { CLUSTER_MAX_MS, clusterOptionsOf } from '../../src/cli/serve-cluster.ts';

describe('admission decisions', () => {
  it('admits only when a slot is free and nobody waits before the call', () => {
    assert.equal(decideAdmission({ slotFree: true, waiting: 0, queueSize: 2 }), 'admit');
    assert.equal(decideAdmission({ slotFree: true, waiting: 1, queueSize: 2 }), 'wait', 'first come, first served');
    assert.equal(decideAdmission({ slotFree: false, waiting: 1, queueSize: 2 }), 'wait');
    assert.equal(decideAdmission({ slotFree: false, waiting: 2, queueSize: 2 }), 'busy');
    assert.equal(decideAdmission({ slotFree: false, waiting: 0, queueSize: 0 }), 'busy', 'queue size 0: never wait');
  });
});

describe('wait queue on a virtual clock', () => {
  it('keeps arrival order, refuses past its size and expires each caller at its own deadline', () => {
    const q = new WaitQueue<string>(2, 1_000);
    assert.equal(q.join('a', 0), 'queued');
    assert.equal(q.join('b', 400), 'queued');
    assert.equal(q.join('c', 500), 'full');
    assert.equal(q.head(), 'a');
    assert.deepEqual(q.expire(999), []);
    assert.deepEqual(q.expire(1_000), ['a']);
    assert.equal(q.head(), 'b');
    assert.equal(q.join('c', 1_000), 'queued');
    assert.deepEqual(q.expire(1_400), ['b']);
    assert.equal(q.shift(), 'c');
    assert.equal(q.length, 0);
  });

  it('lets a caller who hung up leave from the middle, and empties on drain', () => {
    const q = new WaitQueue<string>(3, 10_000);
    for (const [i, x] of ['a', 'b', 'c'].entries()) q.join(x, i);
    assert.equal(q.leave('b'), true);
    assert.equal(q.leave('b'), false);
    assert.deepEqual(q.clear(), ['a', 'c']);
    assert.equal(q.head(), undefined);
  });
});

describe('lease arithmetic', () => {
  it('needs the heartbeat to fit three times in a lease, and fills the documented defaults', () => {
    assert.doesNotThrow(() => checkLeaseTiming(15_000, 5_000));
    assert.throws(() => checkLeaseTiming(1_000, 400), /at most a third/);
    const o = resolveClusterOptions({ redisUrl: 'redis://x', keySessions: 10, queueSize: undefined });
    assert.equal(o.leaseMs, CLUSTER_DEFAULTS.leaseMs);
    assert.equal(o.queueSize, CLUSTER_DEFAULTS.queueSize);
    assert.equal(o.sessionsPerCall, 3, 'a call: its two sockets and one more for a moment');
    assert.ok(o.heartbeatMs * 3 <= o.leaseMs);
    assert.throws(() => resolveClusterOptions({ redisUrl: 'redis://x', keySessions: 1 }), /cannot hold one call/);
    assert.throws(() => resolveClusterOptions({ redisUrl: 'redis://x', keySessions: 4, queueSize: -1 }), /queueSize/);
  });
});

describe('readiness from the instance\'s own load', () => {
  const load = { calls: 1, maxCalls: 4, waiting: 0, loopDelayMs: 10, draining: false };
  it('is ready under load, not when draining, full (waiting callers count) or with a delayed event loop', () => {
    assert.deepEqual(readiness(load, 250), { ready: true });
    assert.deepEqual(readiness({ ...load, draining: true }, 250), { ready: false, reason: 'draining' });
    assert.deepEqual(readiness({ ...load, calls: 3, waiting: 1 }, 250), { ready: false, reason: 'full' });
    assert.deepEqual(readiness({ ...load, loopDelayMs: 400 }, 250), { ready: false, reason: 'event loop delayed' });
    assert.deepEqual(readiness({ ...load, redisDown: true }, 250), { ready: false, reason: 'Redis unreachable' });
  });
});

describe('cluster configuration of hiwar serve', () => {
  it('is off without REDIS_URL, asks for the key\'s sessions with a real key, reads flags over the environment', () => {
    assert.equal(clusterOptionsOf({}, 'usage', undefined, {}), undefined);
    assert.throws(() => clusterOptionsOf({}, 'usage', undefined, { REDIS_URL: 'redis://r' }), /--key-sessions/);
    const o = clusterOptionsOf({ 'queue-size': '3' }, 'usage', undefined, { REDIS_URL: 'redis://r', HIWAR_KEY_SESSIONS: '40', HIWAR_QUEUE_SIZE: '9' })!;
    assert.equal(o.keySessions, 40);
    assert.equal(o.queueSize, 3);
    assert.equal(clusterOptionsOf({}, 'usage', 24, { REDIS_URL: 'redis://r' })!.keySessions, 24, 'the embedded sandbox\'s own limit');
    assert.throws(() => clusterOptionsOf({ 'queue-wait-ms': 'soon' }, 'usage', 8, { REDIS_URL: 'redis://r' }), /--queue-wait-ms/);
  });

  it('takes each timing up to CLUSTER_MAX_MS and refuses one more, naming the variable (there is no such flag)', () => {
    const env = { REDIS_URL: 'redis://r', HIWAR_KEY_SESSIONS: '9' };
    const at = (name: string, ms: number) => clusterOptionsOf({}, 'usage', undefined, { ...env, [name]: String(ms) })!;
    assert.equal(at('HIWAR_QUEUE_WAIT_MS', CLUSTER_MAX_MS.queueWaitMs).queueWaitMs, 3_600_000);
    assert.equal(at('HIWAR_CLUSTER_LEASE_MS', CLUSTER_MAX_MS.leaseMs).leaseMs, 600_000);
    assert.equal(at('HIWAR_CLUSTER_HEARTBEAT_MS', CLUSTER_MAX_MS.heartbeatMs).heartbeatMs, 200_000);
    assert.equal(at('HIWAR_CLUSTER_RELEASE_DELAY_MS', CLUSTER_MAX_MS.releaseDelayMs).releaseDelayMs, 60_000);
    // What a test at load 45 on two cores asked for: said as the variable, not as a flag "--HIWAR_…".
    assert.throws(() => at('HIWAR_CLUSTER_RELEASE_DELAY_MS', 67_000), (err: Error) => err.message === 'HIWAR_CLUSTER_RELEASE_DELAY_MS must be a whole number from 0 to 60000, got "67000"');
    assert.throws(() => at('HIWAR_CLUSTER_LEASE_MS', 600_001), (err: Error) => err.message.startsWith('HIWAR_CLUSTER_LEASE_MS must be a whole number from 100 to 600000,'));
  });

  it('takes the wait line and how often it is said from the environment: off, every N ms, 0 for once; the default is CLUSTER_DEFAULTS', () => {
    const env = { REDIS_URL: 'redis://r', HIWAR_KEY_SESSIONS: '9' };
    const o = clusterOptionsOf({}, 'usage', undefined, { ...env, HIWAR_WAIT_LINE: 'off', HIWAR_WAIT_LINE_EVERY_MS: '30000' })!;
    assert.equal(o.waitLine, false);
    assert.equal(o.waitLineEveryMs, 30_000);
    assert.equal(clusterOptionsOf({}, 'usage', undefined, { ...env, HIWAR_WAIT_LINE_EVERY_MS: '0' })!.waitLineEveryMs, 0, 'said once');
    assert.throws(() => clusterOptionsOf({}, 'usage', undefined, { ...env, HIWAR_WAIT_LINE_EVERY_MS: 'often' }), /HIWAR_WAIT_LINE_EVERY_MS/);
    assert.equal(resolveClusterOptions(clusterOptionsOf({}, 'usage', undefined, env)!).waitLineEveryMs, CLUSTER_DEFAULTS.waitLineEveryMs);
    assert.ok(CLUSTER_DEFAULTS.waitLineEveryMs > 0 && CLUSTER_DEFAULTS.waitLineEveryMs < CLUSTER_DEFAULTS.queueWaitMs, 'a caller waiting the whole default wait hears it more than once');
  });
});

describe('hiwar status table', () => {
  it('lists each instance and the key\'s sessions once, from the freshest record', () => {
    const rec = (id: string, used: number, updatedAt: string) => ({
      id, address: `http://${id}:8080`, calls: 2, maxCalls: 10, waiting: 1, loopDelayMs: 12, draining: id === 'b',
      slots: { key: 'k1', used, limit: 8, held: 4 }, startedAt: updatedAt, updatedAt,
    });
    const text = formatStatus([rec('a', 6, '2026-01-01T00:00:01Z'), rec('b', 8, '2026-01-01T00:00:02Z')]);
    assert.match(text, /^a\s+http:\/\/a:8080\s+2\/10\s+1\s+4\s+12 ms\s+serving$/m);
    assert.match(text, /^b\s.*draining$/m);
    assert.match(text, /key k1: 8\/8 sessions in use/);
    assert.equal(formatStatus([]), 'no instances (none has published within its TTL)');
  });
});

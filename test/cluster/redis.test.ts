import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Subject } from '../helpers/rx.ts';
import type { Redis } from 'ioredis';
import { ClusterAdmission } from '../../src/cluster/admission.ts';
import { connectRedis } from '../../src/cluster/redis.ts';
import { InstanceRegistry } from '../../src/cluster/registry.ts';
import { RoomDirectory } from '../../src/cluster/rooms.ts';
import { RedisSemaphore } from '../../src/cluster/semaphore.ts';
import { createLogger } from '../../src/session/logger.ts';
import { VirtualClock } from '../../src/transport/clock.ts';
import type { Transport, TransportEvent } from '../../src/transport/types.ts';
import { until } from '../helpers/deadline.ts';
import { startRedis, type TestRedis } from '../helpers/redis.ts';

let server: TestRedis;
let redis: Redis;
before(async () => {
  server = await startRedis();
  redis = connectRedis(server.url);
  await redis.connect();
});
after(async () => {
  redis.disconnect();
  await server.stop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sem = (key: string, holder: string, limit = 4, leaseMs = 10_000) => new RedisSemaphore({ redis, key, limit, leaseMs, holder });

describe('Redis semaphore', () => {
  it('never hands out more than the limit across holders, weight by weight, and takes slots back on release', async () => {
    const a = sem('t:slots:1', 'a');
    const b = sem('t:slots:1', 'b');
    const attempts = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? a : b).tryAcquire(2)));
    assert.equal(attempts.filter(Boolean).length, 2, 'a limit of 4 holds two calls of 2 sessions');
    assert.equal(await a.used(), 4);
    assert.equal(await a.tryAcquire(1), undefined);
    await attempts.find(Boolean)!.release();
    assert.equal(await b.used(), 2);
    assert.ok(await b.tryAcquire(2));
  });

  it('lets a dead holder\'s slots expire after the lease, while a renewed lease stays', async () => {
    const LEASE = 10_000;
    const dead = sem('t:slots:2', 'dead', 4, LEASE);
    const alive = sem('t:slots:2', 'alive', 4, LEASE);
    assert.ok(await dead.tryAcquire(2));
    assert.ok(await alive.tryAcquire(2));
    const leases = async () => {
      const flat = await redis.zrange('t:slots:2', '0', '-1', 'WITHSCORES');
      return flat.flatMap((m, i) => (i % 2 ? [] : [{ member: m, expires: Number(flat[i + 1]) }]));
    };
    const redisNow = async () => {
      const [sec, micro] = await redis.time();
      return Number(sec) * 1000 + Math.floor(Number(micro) / 1000);
    };
    const now = await redisNow();
    for (const l of await leases()) assert.ok(l.expires <= now + LEASE && l.expires > now - LEASE, 'every lease expires one lease time after it was taken, on Redis\'s clock');
    // The dead holder renews no more: its leases are made due on Redis's clock, as their time
    // running out would (a 400 ms lease renewed every 100 ms of the wall clock was lost on a
    // loaded machine). The live one renews: pushed one lease time past Redis's now.
    for (const l of (await leases()).filter((l) => l.member.startsWith('dead:'))) await redis.zadd('t:slots:2', 'XX', now - 1, l.member);
    const renewedAt = await redisNow();
    await alive.renew();
    const kept = (await leases()).filter((l) => l.member.startsWith('alive:'));
    assert.ok(kept.length === 2 && kept.every((l) => l.expires >= renewedAt + LEASE), `renewed one lease time ahead: ${JSON.stringify(kept)}`);
    assert.equal(await alive.used(), 2, 'only the renewed lease is left');
    assert.ok(await alive.tryAcquire(2), 'the dead holder\'s slots came back');
  });

  it('reports a lease that expired before its renewal', async () => {
    const lost: string[] = [];
    const s = new RedisSemaphore({ redis, key: 't:slots:3', limit: 2, leaseMs: 100, holder: 'slow', onLost: (l) => lost.push(l.id) });
    const lease = (await s.tryAcquire(2))!;
    await sleep(250);
    await s.used();
    await s.renew();
    assert.deepEqual(lost, [lease.id]);
  });
});

describe('instance registry and rooms', () => {
  it('lists published instances, forgets expired ones, removes on leave', async () => {
    const reg = new InstanceRegistry(redis, 'reg');
    const rec = (id: string) => ({ id, address: `http://${id}`, calls: 0, maxCalls: 1, waiting: 0, loopDelayMs: 0, draining: false, slots: { key: 'k', used: 0, limit: 2, held: 0 }, startedAt: '', updatedAt: '' });
    await reg.publish(rec('a'), 10_000);
    await reg.publish(rec('b'), 10_000);
    const ttl = await redis.pttl('reg:instance:b');
    assert.ok(ttl > 0 && ttl <= 10_000, `a published record expires unless republished (PTTL ${ttl})`);
    assert.deepEqual((await reg.list()).map((r) => r.id), ['a', 'b']);
    // b stops republishing: Redis expires its record. Made due now and waited for on Redis's own
    // answer, not on the wall clock (a 150 ms TTL ran out before the first list on a busy CI).
    await redis.pexpire('reg:instance:b', 1);
    await until(async () => !(await redis.exists('reg:instance:b')), "Redis to expire b's record");
    assert.deepEqual((await reg.list()).map((r) => r.id), ['a']);
    assert.deepEqual(await redis.smembers('reg:instances'), ['a']);
    await reg.remove('a');
    assert.deepEqual(await reg.list(), []);
  });

  it('records the first instance to host a room and sends the others to it until it closes', async () => {
    const one = new RoomDirectory(redis, { prefix: 'rm', instance: 'one', address: 'http://one:8080', ttlMs: 10_000 });
    const two = new RoomDirectory(redis, { prefix: 'rm', instance: 'two', address: 'http://two:8080', ttlMs: 10_000 });
    assert.equal(await one.elsewhere('r1'), undefined, 'a new room is hosted where it was first joined');
    assert.equal(await one.elsewhere('r1'), undefined);
    assert.equal(await two.elsewhere('r1'), 'http://one:8080');
    await two.release('r1');
    assert.equal(await two.elsewhere('r1'), 'http://one:8080', 'only the host forgets its room');
    await one.release('r1');
    assert.equal(await two.elsewhere('r1'), undefined);
    assert.equal(await one.elsewhere('r1'), 'http://two:8080');
  });
});

/** The smallest transport an admission needs: events and an output that records what it did. */
function fakeTransport(id: string) {
  const events = new Subject<TransportEvent>();
  const done: string[] = [];
  /** Samples of agent audio written to the call. */
  let written = 0;
  const t = {
    call: { callId: id, provider: 'test', parameters: {} },
    inputRate: 16000,
    audio$: new Subject(),
    events$: events,
    output: {
      sampleRate: 8000,
      write: (f: { samples: Int16Array }) => void (written += f.samples.length),
      interrupt: async () => (done.push('interrupted'), 0),
      close: async () => void done.push('closed'),
    },
    hangup: async (reason?: string) => void done.push(`hangup:${reason}`),
  } as unknown as Transport;
  return {
    t,
    events,
    done,
    get written() {
      return written;
    },
  };
}

describe('cluster admission', () => {
  it('runs, queues in order, turns away past the queue, hands freed slots to the first waiter and drops a caller who hung up', async () => {
    const s = sem('t:slots:adm', 'x', 2);
    const adm = new ClusterAdmission({ semaphore: s, weight: 2, queueSize: 2, queueWaitMs: 60_000, pollMs: 20, busyLine: () => undefined, logger: createLogger('silent') });
    const c1 = fakeTransport('c1');
    const c2 = fakeTransport('c2');
    const c3 = fakeTransport('c3');
    const c4 = fakeTransport('c4');
    const l1 = await adm.admit(c1.t);
    assert.ok(l1);
    const p2 = adm.admit(c2.t);
    const p3 = adm.admit(c3.t);
    // Both queue once each has asked Redis for the slots: on a busy machine that took longer than
    // a fixed 50 ms pause (CI: 0 waiting), so wait for it, with a deadline far above.
    await until(() => adm.waiting >= 2, 'two callers queued');
    assert.equal(adm.waiting, 2);
    assert.equal(await adm.admit(c4.t), undefined, 'the queue is full');
    assert.deepEqual(c4.done, ['hangup:busy', 'closed']);
    c2.events.next({ type: 'hangup' });
    assert.equal(await p2, undefined, 'hung up while waiting');
    await l1.release();
    const l3 = await p3;
    assert.ok(l3, 'the next waiter got the freed slots');
    assert.deepEqual(c3.done, []);
    await l3.release();
    adm.close();
  });

  it('gives a finished call\'s slots back only after the release delay', async () => {
    const s = sem('t:slots:adm3', 'x', 2);
    const adm = new ClusterAdmission({ semaphore: s, weight: 2, queueSize: 0, queueWaitMs: 0, pollMs: 20, releaseDelayMs: 300, busyLine: () => undefined, logger: createLogger('silent') });
    const lease = (await adm.admit(fakeTransport('d').t))!;
    await lease.release();
    assert.equal(await s.used(), 2, 'still held right after the call ended');
    await until(async () => (await s.used()) === 0, 'the slots given back after the delay');
    adm.close();
  });

  it('gives a waiter the busy line once its wait is over, and everyone waiting on drain', async () => {
    const s = sem('t:slots:adm2', 'x', 2);
    const adm = new ClusterAdmission({ semaphore: s, weight: 2, queueSize: 3, queueWaitMs: 100, pollMs: 20, busyLine: () => undefined, logger: createLogger('silent') });
    const held = await adm.admit(fakeTransport('a').t);
    const late = fakeTransport('late');
    assert.equal(await adm.admit(late.t), undefined);
    assert.deepEqual(late.done, ['hangup:busy', 'closed']);
    const adm2 = new ClusterAdmission({ semaphore: s, weight: 2, queueSize: 3, queueWaitMs: 60_000, pollMs: 20, busyLine: () => undefined, logger: createLogger('silent') });
    const w = fakeTransport('w');
    const pending = adm2.admit(w.t);
    // Queued before the drain (a fixed 30 ms was shorter than asking Redis on a loaded machine).
    await queued(adm2, 1);
    adm2.close();
    assert.equal(await pending, undefined);
    assert.deepEqual(w.done, ['hangup:busy', 'closed']);
    await held!.release();
    adm.close();
  });

  it('once closed (draining) still runs a call promised before the drain when a line is free, the busy line when none; any other call is turned away', async () => {
    const s = sem('t:slots:adm5', 'x', 4);
    const adm = new ClusterAdmission({ semaphore: s, weight: 2, queueSize: 3, queueWaitMs: 60_000, pollMs: 20, busyLine: () => undefined, logger: createLogger('silent') });
    const running = (await adm.admit(fakeTransport('running').t))!;
    adm.close();
    const other = fakeTransport('other');
    assert.equal(await adm.admit(other.t), undefined, 'a new call while draining');
    assert.deepEqual(other.done, ['hangup:draining', 'closed']);
    const promised = fakeTransport('promised');
    const lease = await adm.admit(promised.t, undefined, { promised: true });
    assert.ok(lease, 'the promised call takes the free line');
    assert.deepEqual(promised.done, []);
    const late = fakeTransport('late');
    assert.equal(await adm.admit(late.t, undefined, { promised: true }), undefined, 'no line free: it is not queued on a closed admission');
    assert.deepEqual(late.done, ['hangup:busy', 'closed']);
    await lease!.release();
    await running.release();
  });

  it('tells a caller who has to wait: the wait line as the wait starts, cut off when a line frees, and the position to the server', async () => {
    const s = sem('t:slots:adm4', 'x', 2);
    // Half a second at 8 kHz, the rate the transport wants.
    const waitLine = { samples: new Int16Array(4000).fill(1000), sampleRate: 8000 };
    const adm = new ClusterAdmission({ semaphore: s, weight: 2, queueSize: 2, queueWaitMs: 60_000, pollMs: 20, busyLine: () => undefined, waitLine: () => waitLine, logger: createLogger('silent') });
    const first = fakeTransport('first');
    const held = (await adm.admit(first.t))!;
    assert.equal(first.written, 0, 'a call admitted at once hears no wait line');
    const waiter = fakeTransport('waiter');
    const positions: number[] = [];
    const pending = adm.admit(waiter.t, { waiting: (p) => positions.push(p) });
    await queued(adm, 1);
    assert.deepEqual(positions, [1]);
    assert.equal(waiter.written, 4000, 'the wait line, whole, on the waiting call (it waited in silence)');
    await held.release();
    const lease = await pending;
    assert.ok(lease);
    assert.deepEqual(waiter.done, ['interrupted'], "what is left of the wait line is dropped before the agent's greeting");
    await lease.release();
    adm.close();
  });

  /**
   * A line held by a first call and a second caller waiting for it, hearing `seconds` of wait line
   * (8 kHz) every `everyMs` on a virtual clock; `close` ends it all, whatever an assertion did (a
   * queue left polling would keep the file from ending).
   */
  async function waitingCaller(key: string, seconds: number, everyMs: number) {
    const clock = new VirtualClock();
    const waitLine = { samples: new Int16Array(seconds * 8000).fill(1000), sampleRate: 8000 };
    const adm = new ClusterAdmission({ semaphore: sem(key, 'x', 2), weight: 2, queueSize: 2, queueWaitMs: 600_000, pollMs: 20, busyLine: () => undefined, waitLine: () => waitLine, waitLineEveryMs: everyMs, clock, logger: createLogger('silent') });
    const held = (await adm.admit(fakeTransport('first').t))!;
    const waiter = fakeTransport('waiter');
    const pending = adm.admit(waiter.t);
    await queued(adm, 1);
    return { clock, adm, held, waiter, pending, close: async () => (await held.release(), await (await pending)?.release(), adm.close()) };
  }
  const queued = (adm: ClusterAdmission, n: number) => until(() => adm.waiting >= n, `${n} caller(s) queued`);

  it('says the wait line again every waitLineEveryMs while the caller waits (call time, a virtual clock), never over itself, and stops when a line frees or the caller hangs up', async () => {
    // Half a second, said every 15 s.
    const { clock, adm, held, waiter, pending, close } = await waitingCaller('t:slots:adm5', 0.5, 15_000);
    try {
      assert.equal(waiter.written, 4000, 'said as the wait starts');
      await clock.advance(14_999);
      assert.equal(waiter.written, 4000, 'not again before the interval');
      await clock.advance(1);
      assert.equal(waiter.written, 8000, 'again 15 s after the first');
      await clock.advance(15_000);
      assert.equal(waiter.written, 12_000, 'and again');
      // A caller who hangs up while waiting hears nothing more (and is out of the queue).
      const gone = fakeTransport('gone');
      const left = adm.admit(gone.t);
      await queued(adm, 2);
      gone.events.next({ type: 'hangup' } as TransportEvent);
      assert.equal(await left, undefined);
      await held.release();
      assert.ok(await pending);
      assert.deepEqual(waiter.done, ['interrupted'], 'cut off when the line freed');
      await clock.advance(120_000);
      assert.equal(waiter.written, 12_000, 'never again once admitted');
      assert.equal(gone.written, 4000, 'nor to the caller who hung up');
      assert.equal(clock.pending, 0, 'no repeat left armed');
    } finally {
      await close();
    }
  });

  it('repeats a wait line longer than its interval only once it has ended', async () => {
    // 20 s of line, asked for every 5 s.
    const { clock, waiter, close } = await waitingCaller('t:slots:adm6', 20, 5_000);
    try {
      await clock.advance(19_999);
      assert.equal(waiter.written, 160_000, 'not queued over itself');
      await clock.advance(1);
      assert.equal(waiter.written, 320_000, 'again once it has ended');
    } finally {
      await close();
    }
  });
});

// The campaign queue's pieces on real Redis. The 20-contact campaign on BullMQ with real calls and
// a worker killed mid-call: test/campaign/cluster-calls.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { RedisSemaphore } from '../../src/cluster/semaphore.ts';
import { budgetGate } from '../../src/campaign/queue.ts';
import { startRedis } from '../helpers/redis.ts';

test("the key's budget gate lets a call through only while the cluster's slots have room for one more", async () => {
  const redis = await startRedis();
  const client = new Redis(redis.url);
  try {
    const semaphore = new RedisSemaphore({ redis: client, key: 'hiwar:slots:test', limit: 6, leaseMs: 60_000, holder: 'serve-1' });
    const gate = budgetGate(semaphore, 3);
    assert.ok(await gate.tryAcquire('c', 1, 'c:0:1'), 'an empty budget: room');
    const held = await semaphore.tryAcquire(4);
    assert.ok(held);
    assert.equal(await gate.tryAcquire('c', 1, 'c:0:1'), undefined, '4 of 6 taken: no room for a call of 3');
    await held.release();
    assert.ok(await gate.tryAcquire('c', 1, 'c:0:1'));
    assert.equal(await semaphore.used(), 0, 'the gate checks, it holds nothing');
  } finally {
    client.disconnect();
    await redis.stop();
  }
});

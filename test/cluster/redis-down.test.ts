/**
 * `/readyz` of a cluster member whose Redis dies: not ready, saying "Redis unreachable" (no call
 * can be admitted and no token checked without it), then ready again once Redis is back.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { joinCluster, type ClusterMember } from '../../src/cluster/cluster.ts';
import { AgentServer } from '../../src/server/server.ts';
import { createLogger } from '../../src/session/logger.ts';
import { Deadline } from '../helpers/deadline.ts';
import { startRedis, type TestRedis } from '../helpers/redis.ts';

let redis: TestRedis;
let member: ClusterMember;
let server: AgentServer;
let url: string;

before(async () => {
  redis = await startRedis();
  const logger = createLogger('silent');
  member = await joinCluster({
    options: { redisUrl: redis.url, keySessions: 9, heartbeatMs: 200, leaseMs: 2_000 },
    apiKey: 'sk-test-redis-down',
    address: 'http://127.0.0.1:1',
    load: () => ({ calls: 0, maxCalls: 3, draining: false }),
    logger,
  });
  member.startupFinished();
  server = new AgentServer({ port: 0, logger, sessions: () => Promise.reject(new Error('no calls here')), health: () => member.health() });
  ({ url } = await server.listen());
});
after(async () => {
  await server.close();
  await member.leave().catch(() => {});
  await redis.stop();
});

const readyz = async () => {
  const res = await fetch(`${url}/readyz`);
  return { status: res.status, reason: ((await res.json()) as { status: string }).status };
};

test('Redis killed: /readyz says 503 "Redis unreachable"; Redis back on its port: ready again', async () => {
  assert.deepEqual(await readyz(), { status: 200, reason: 'ok' });
  redis.process.kill('SIGKILL');
  let last = await readyz();
  const give = new Deadline(30_000);
  while (last.reason !== 'Redis unreachable' && !give.expired) {
    await new Promise((r) => setTimeout(r, 100));
    last = await readyz();
  }
  assert.deepEqual(last, { status: 503, reason: 'Redis unreachable' }, 'not "event loop delayed"');
  const again = spawn('redis-server', ['--port', String(redis.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  try {
    const back = new Deadline(30_000);
    while ((last = await readyz()).status !== 200 && !back.expired) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(last, { status: 200, reason: 'ok' });
  } finally {
    again.kill('SIGKILL');
  }
});

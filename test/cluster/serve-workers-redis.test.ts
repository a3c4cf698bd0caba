/**
 * `hiwar serve --workers 2` with REDIS_URL: each worker is an instance of the cluster, so the
 * service key's budget (the cluster semaphore in a real redis-server) is shared by the workers as
 * by separate machines. The key allows two calls: two callers are served, by both workers; a third
 * hears the busy line (no queue); a drain takes both workers out of the registry.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { connectRedis } from '../../src/cluster/redis.ts';
import { generateKey, type KeyState } from '../../src/sandbox/keys.ts';
import { realClock } from '../../src/transport/clock.ts';
import { Deadline } from '../helpers/deadline.ts';
import { startRedis, type TestRedis } from '../helpers/redis.ts';
import { runSandbox, type Running } from '../helpers/sandbox.ts';
import { FarEnd } from '../telephony/far-end.ts';
import { waitFor } from '../telephony/serve.ts';
import { pcmGateway } from './pcm-gateway.ts';

const BIN = new URL('../../bin/hiwar.js', import.meta.url).pathname;
const CALLS = 2;

let redis: TestRedis;
let sandbox: Running;
let key: KeyState;
let child: ChildProcess | undefined;
const callers: FarEnd[] = [];

before(async () => {
  redis = await startRedis();
  const k = generateKey();
  sandbox = await runSandbox({ keys: [{ key: k, credits: 100_000_000, concurrency: 3 * CALLS }] });
  key = sandbox.sandbox.state.keys.lookup(k, 'global')!;
});

after(async () => {
  for (const c of callers) c.vanish();
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await sandbox.close();
  await redis.stop();
});

async function until(cond: () => Promise<boolean>, what: string, explain: () => string, ms = 60_000): Promise<void> {
  const deadline = new Deadline(ms);
  while (!(await cond().catch(() => false))) {
    if (deadline.expired) throw new Error(`timed out: ${what}\n${explain().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('hiwar serve --workers 2 on a cluster (REDIS_URL)', () => {
  it('each worker is an instance sharing the key\'s budget: two calls on two workers, the third hears the busy line; a drain takes both out of the registry', async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      HIWAR_LOG_FORMAT: 'json',
      HIWAR_LOG_LEVEL: 'info',
      REDIS_URL: redis.url,
      HIWAR_API_KEY: sandbox.key,
      HIWAR_BASE_URL: sandbox.sandbox.url,
      HIWAR_KEY_SESSIONS: String(3 * CALLS),
      HIWAR_QUEUE_SIZE: '0',
      HIWAR_CLUSTER_HEARTBEAT_MS: '300',
      HIWAR_BUSY_LINE: 'جميع الخطوط مشغولة، يرجى الاتصال لاحقاً.',
    };
    child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--open', '--workers', '2'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const log = () => out;
    await waitFor(() => /workers: 2 processes/.test(out) || child!.exitCode !== null, 'two workers to start', 90_000, log);
    assert.equal(child.exitCode, null, out);
    const url = /at (http:\/\/[\d.]+:\d+)/.exec(out)![1]!;
    const workerPids = [1, 2].map((i) => Number(new RegExp(`worker ${i} pid (\\d+)`).exec(out)![1]));

    const r = connectRedis(redis.url);
    await r.connect();
    try {
      // Each worker registers itself: the registry's ids carry the process id.
      const registered = async () => (await r.smembers('hiwar:instances')).filter((id) => workerPids.some((p) => id.includes(`-${p}-`)));
      await until(async () => (await registered()).length === 2, 'both workers in the registry', log);

      const call = (id: string) => {
        const far = new FarEnd(`${url.replace('http', 'ws')}/telephony/pcm?rate=16000&call_id=${id}`, pcmGateway(), realClock());
        callers.push(far);
        void far.start().catch(() => {});
        return far;
      };
      // node:cluster hands connections to the workers in turn: two calls in a row reach both.
      const a = call('wr-a');
      const b = call('wr-b');
      await waitFor(() => a.agentAudio.length > 0 && b.agentAudio.length > 0, 'both callers hear the agent', 90_000, log);
      const workerOf = (callId: string) => {
        for (const line of out.split('\n')) {
          if (!line.startsWith('{')) continue;
          const rec = JSON.parse(line) as { msg?: string; call?: string; worker?: number };
          if (rec.msg === 'call started' && rec.call === callId) return rec.worker;
        }
        return undefined;
      };
      assert.deepEqual(new Set([workerOf('wr-a'), workerOf('wr-b')]), new Set([1, 2]), 'one call on each worker');

      // The key's budget is spent across the workers: the third call, on either, gets the busy line.
      const c = call('wr-c');
      const busy = () => c.said.some((s) => s.type === 'other' && (s.raw as { type?: string; reason?: string }).type === 'hangup' && (s.raw as { reason?: string }).reason === 'all lines busy');
      await waitFor(busy, 'the third caller hears the busy line and is hung up', 90_000, log);
      assert.ok(key.peak <= 3 * CALLS, `the key never held more than ${3 * CALLS} sessions (peak ${key.peak})`);
      assert.equal(key.refused, 0, 'the service never refused a session (no 429)');

      child.kill('SIGTERM');
      a.hangup();
      b.hangup();
      const [code] = (await once(child, 'exit')) as [number | null];
      assert.equal(code, 0, out);
      assert.deepEqual(await registered(), [], 'both workers left the registry');
    } finally {
      r.disconnect();
    }
  });
});

/**
 * Three real `hiwar serve` processes against one redis-server and one sandbox whose key allows
 * three calls (nine sessions: a call may hold three at once, see `sessionsPerCall`). Callers are platform
 * gateways on the generic pcm media stream (test/telephony/far-end.ts).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { CLUSTER_MAX_MS } from '../../src/cli/serve-cluster.ts';
import { connectRedis } from '../../src/cluster/redis.ts';
import type { KeyState } from '../../src/sandbox/keys.ts';
import { generateKey } from '../../src/sandbox/keys.ts';
import { realClock } from '../../src/transport/clock.ts';
import { startRedis, type TestRedis } from '../helpers/redis.ts';
import { runSandbox, type Running } from '../helpers/sandbox.ts';
import { FarEnd } from '../telephony/far-end.ts';
import { waitFor } from '../telephony/serve.ts';
import { pcmGateway } from './pcm-gateway.ts';
import { Deadline, slowdown } from '../helpers/deadline.ts';

const BIN = new URL('../../bin/hiwar.js', import.meta.url).pathname;
const CALLS = 3;
// A lease must outlast the longest stall of an instance, or its call's slots expire while the
// call runs and another instance's waiter takes them (over the key's limit, or the counts below
// never settle): 1.5 s on a quiet machine, as many times that as the machine is oversubscribed
// when the file starts (a process at load 50 on two cores runs 25 times slower). The same for
// the delay before a finished call's slots go back (the sandbox here sees its sockets close late).
// Each within what `hiwar serve` takes (CLUSTER_MAX_MS), or no instance starts: at load 45 on two
// cores the release delay came to 67 s, past its 60 s. A minute still covers the sandbox's late
// close there many times over (3 s covers it on a quiet machine).
const SLOWER = slowdown();
const scaled = (ms: number, max: number) => Math.min(Math.round(ms * SLOWER), max);
const LEASE_MS = scaled(1_500, CLUSTER_MAX_MS.leaseMs);
const RELEASE_DELAY_MS = scaled(3_000, CLUSTER_MAX_MS.releaseDelayMs);
// No waiter here may reach its queue wait (it would hear the busy line): the second one of the
// first test waits two release delays and all the steps before them, each slower under load.
const QUEUE_WAIT_MS = scaled(120_000, CLUSTER_MAX_MS.queueWaitMs);

interface Instance {
  name: string;
  child: ChildProcess;
  url: string;
  out: () => string;
}

let redis: TestRedis;
let sandbox: Running;
let key: KeyState;
const instances: Instance[] = [];
const callers: FarEnd[] = [];

async function serve(name: string): Promise<Instance> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HIWAR_LOG_LEVEL: 'warn',
    REDIS_URL: redis.url,
    HIWAR_API_KEY: sandbox.key,
    HIWAR_BASE_URL: sandbox.sandbox.url,
    HIWAR_KEY_SESSIONS: String(3 * CALLS),
    HIWAR_QUEUE_SIZE: '1',
    HIWAR_QUEUE_WAIT_MS: String(QUEUE_WAIT_MS),
    HIWAR_CLUSTER_LEASE_MS: String(LEASE_MS),
    HIWAR_CLUSTER_HEARTBEAT_MS: String(Math.round(LEASE_MS / 5)),
    // The sandbox runs in this (busy) test process and may see a socket close late: a slot is
    // handed on only well after the call that held it closed its sockets.
    HIWAR_CLUSTER_RELEASE_DELAY_MS: String(RELEASE_DELAY_MS),
    // A short busy line: the far end plays it at real-time pace before it is hung up.
    HIWAR_BUSY_LINE: 'جميع الخطوط مشغولة، يرجى الاتصال لاحقاً.',
  };
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--open'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  await waitFor(() => /cluster: instance/.test(out) || child.exitCode !== null, `${name} to start`, 60_000);
  assert.equal(child.exitCode, null, `${name} exited:\n${out}`);
  const url = /at (http:\/\/[\d.]+:\d+)/.exec(out)![1]!;
  return { name, child, url, out: () => out };
}

function call(on: Instance, id: string): FarEnd {
  const far = new FarEnd(`${on.url.replace('http', 'ws')}/telephony/pcm?rate=16000&call_id=${id}`, pcmGateway(), realClock());
  callers.push(far);
  void far.start().catch(() => {});
  return far;
}

const health = async (i: Instance) => {
  // /readyz carries the instance's load (liveness, /healthz, only says that it answers).
  const res = await fetch(`${i.url}/readyz`).catch((err: Error) => {
    // Say which instance, whether it is still running, and what it printed.
    throw new Error(`${i.name}: /readyz ${err.message} (${String((err.cause as Error)?.message ?? err.cause)}); exit ${i.child.exitCode ?? i.child.signalCode ?? 'none'}\n${i.out().slice(-2000)}`);
  });
  return (await res.json()) as { status: string; activeCalls: number; waiting: number };
};
const activeOn = async (i: Instance) => (await health(i)).activeCalls;
const waitingOn = async (i: Instance) => (await health(i)).waiting;
const busyHangup = (far: FarEnd) => far.said.some((s) => s.type === 'other' && (s.raw as { type?: string; reason?: string }).type === 'hangup' && (s.raw as { reason?: string }).reason === 'all lines busy');

/** What the instances logged (warnings and errors: a lost lease is one), for a failure's message. */
const logs = () => instances.map((i) => `--- ${i.name}\n${i.out().slice(-1500)}`).join('\n');

async function until(cond: () => Promise<boolean>, what: string, ms = 60_000): Promise<void> {
  const deadline = new Deadline(ms);
  while (!(await cond())) {
    if (deadline.expired) throw new Error(`timed out: ${what}\n${logs()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function totalActive(): Promise<number> {
  let n = 0;
  for (const i of instances) if (i.child.exitCode === null && i.child.signalCode === null) n += await activeOn(i);
  return n;
}

before(async () => {
  redis = await startRedis();
  const k = generateKey();
  sandbox = await runSandbox({ keys: [{ key: k, credits: 100_000_000, concurrency: 3 * CALLS }] });
  key = sandbox.sandbox.state.keys.lookup(k, 'global')!;
  instances.push(...(await Promise.all(['A', 'B', 'C'].map(serve))));
});

after(async () => {
  if (process.env.HIWAR_TEST_DEBUG) for (const i of instances) process.stderr.write(`--- ${i.name}\n${i.out()}\n`);
  for (const c of callers) c.vanish();
  for (const i of instances) if (i.child.exitCode === null) i.child.kill('SIGKILL');
  await sandbox.close();
  await redis.stop();
});

describe('a cluster of three hiwar serve instances sharing one key', () => {
  it('runs exactly as many calls as the key allows; the rest wait or hear the busy line; a waiter starts when a call ends; nobody sees a 429', async () => {
    const [A, B, C] = instances as [Instance, Instance, Instance];
    const running = [call(A, 'r1'), call(B, 'r2'), call(C, 'r3')];
    await until(async () => (await totalActive()) === CALLS, 'three calls running');
    await waitFor(() => running.every((f) => f.agentAudio.length > 0), 'every running caller hears the agent');
    const waitA = call(A, 'w-a');
    await until(async () => (await waitingOn(A)) === 1, 'a caller waiting on A');
    const busy = call(A, 'busy');
    const waitB = call(B, 'w-b');
    await until(async () => (await waitingOn(B)) === 1, 'a caller waiting on B');
    await waitFor(() => busyHangup(busy), 'the caller past A\'s queue hears the busy line and is hung up', 60_000);
    assert.ok(busy.agentAudio.reduce((n, a) => n + a.length, 0) > 16000, 'a second and more of the busy line was played');
    assert.equal(await totalActive(), CALLS);
    // Told they wait (the wait line), not left in silence, and not hung up.
    await waitFor(() => waitA.agentAudio.length > 0 && waitB.agentAudio.length > 0, 'waiting callers hear the wait line');
    assert.ok(!busyHangup(waitA) && !busyHangup(waitB));

    // What each waiter had been played when it left the queue (its wait line, whole or cut): what
    // plays after that is the agent. Not one moment for both: the first one's greeting may be over
    // by the time the second is served.
    const heard = (f: FarEnd) => f.agentAudio.reduce((n, a) => n + a.length, 0);
    const servedAt = new Map<FarEnd, number>();
    const waiting = async () => {
      let n = 0;
      for (const [i, f] of [[A, waitA], [B, waitB]] as const) {
        if ((await waitingOn(i)) > 0) n++;
        else if (!servedAt.has(f)) servedAt.set(f, heard(f));
      }
      return n;
    };
    running[0]!.hangup();
    await until(async () => (await waiting()) === 1, 'one waiter took the freed line');
    await until(async () => (await totalActive()) === CALLS, 'three calls running again');
    running[1]!.hangup();
    await until(async () => (await waiting()) === 0, 'the other waiter took the next line');
    const talking = (f: FarEnd) => heard(f) > servedAt.get(f)!;
    await waitFor(() => talking(waitA) && talking(waitB), 'both waiters are talking to the agent');
    assert.ok(!busyHangup(waitA) && !busyHangup(waitB));

    for (const f of [running[2]!, waitA, waitB]) f.hangup();
    await until(async () => (await totalActive()) === 0, 'every call ended');
    assert.ok(key.peak <= 3 * CALLS, `the key never held more than ${3 * CALLS} sessions (peak ${key.peak})`);
    assert.equal(key.refused, 0, 'the service never refused a session (no 429 / 42901)');
  });

  it('hiwar status lists the three instances and the key\'s sessions', async () => {
    const child = spawn(process.execPath, [BIN, 'status'], { env: { ...process.env, REDIS_URL: redis.url }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    const [code] = await once(child, 'exit');
    assert.equal(code, 0, out);
    for (const i of instances) assert.ok(out.includes(i.url), `${i.name} listed:\n${out}`);
    assert.match(out, /key [0-9a-f]{16}: \d+\/9 sessions in use/);
    assert.doesNotMatch(out, new RegExp(sandbox.key), 'never the key itself');
  });

  it('gives a SIGKILLed instance\'s slots back within the lease time: a waiting caller then starts', async () => {
    const [A, B, C] = instances as [Instance, Instance, Instance];
    const held = [call(A, 'k1'), call(B, 'k2'), call(C, 'k3')];
    await until(async () => (await totalActive()) === CALLS, 'three calls running');
    const waiter = call(A, 'k-wait');
    const r = connectRedis(redis.url);
    await r.connect();
    try {
      const slotsKey = (await r.keys('hiwar:slots:*'))[0]!;
      const leasesOf = async (i: Instance) =>
        (await r.zrange(slotsKey, '0', '-1', 'WITHSCORES')).reduce<[string, number][]>((acc, v, n, all) => (n % 2 ? acc : [...acc, [v, Number(all[n + 1])]]), []).filter(([m]) => m.includes(`-${i.child.pid}-`));
      const cLeases = await leasesOf(C);
      assert.equal(cLeases.length, 3, 'C holds its call\'s three sessions');
      await until(async () => (await waitingOn(A)) === 1, 'a caller waiting on A');
      C.child.kill('SIGKILL');
      await once(C.child, 'exit');
      const [sec, micro] = await r.time();
      const killedAt = Number(sec) * 1000 + Math.floor(Number(micro) / 1000);
      const expiries = (await leasesOf(C)).map(([, e]) => e);
      assert.ok(expiries.every((e) => e <= killedAt + LEASE_MS), 'every lease of the dead instance ends within one lease time');
      // (It hears the wait line while it waits: its place in the queue says when it is served.)
      await until(async () => (await waitingOn(A)) === 0, 'the waiter is served once the dead instance\'s lease expired');
      assert.ok(!busyHangup(waiter));
      const status = await r.smembers('hiwar:instances');
      await until(async () => (await r.exists(`hiwar:instance:${status.find((id) => id.includes(`-${C.child.pid}-`))}`)) === 0, 'the dead instance drops out of the registry');
    } finally {
      r.disconnect();
    }
    for (const f of [...held, waiter]) f.hangup();
    await until(async () => (await totalActive()) === 0, 'every call ended');
    assert.equal(key.refused, 0, 'no 429 / 42901');
  });

  it('drains on SIGTERM: not ready at once, the running call finishes, its slots come back, the instance leaves', async () => {
    const B = instances[1]!;
    const far = call(B, 'drain');
    await until(async () => (await activeOn(B)) === 1, 'a call on B');
    B.child.kill('SIGTERM');
    await until(async () => (await fetch(`${B.url}/readyz`)).status === 503, 'B says it is not ready');
    assert.equal(((await (await fetch(`${B.url}/readyz`)).json()) as { status: string }).status, 'draining');
    assert.equal((await fetch(`${B.url}/healthz`)).status, 200, 'B is alive while it drains');
    assert.equal(B.child.exitCode, null, 'B waits for its call');
    far.hangup();
    const [code] = await once(B.child, 'exit');
    assert.equal(code, 0, B.out());
    const r = connectRedis(redis.url);
    await r.connect();
    try {
      const slotsKey = (await r.keys('hiwar:slots:*'))[0]!;
      const members = await r.zrange(slotsKey, '0', '-1');
      assert.ok(!members.some((m) => m.includes(`-${B.child.pid}-`)), 'B released its slots');
      assert.ok(!(await r.smembers('hiwar:instances')).some((id) => id.includes(`-${B.child.pid}-`)), 'B left the registry');
    } finally {
      r.disconnect();
    }
  });
});

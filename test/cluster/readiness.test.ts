/**
 * Liveness and readiness of a real `hiwar serve` process in cluster mode through its start-up:
 * alive (`/healthz` 200) from the first request it answers, not ready (`/readyz` 503 `starting`)
 * until its start-up work is done, and then ready at once, even when that work delayed its event
 * loop. The start-up's stall is made certain by stopping the process (SIGSTOP) while its busy
 * line is being synthesized (held at a proxy in front of the sandbox, which lets only serve's key
 * checks, GET /models and /listen, through at once).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { after, before, test } from 'node:test';
import { generateKey } from '../../src/sandbox/keys.ts';
import { freePort, startRedis, type TestRedis } from '../helpers/redis.ts';
import { runSandbox, type Running } from '../helpers/sandbox.ts';
import { waitFor } from '../telephony/serve.ts';

const BIN = new URL('../../bin/hiwar.js', import.meta.url).pathname;
const HEARTBEAT_MS = 2_000;

let redis: TestRedis;
let sandbox: Running;
let proxy: Server;
let child: ChildProcess | undefined;
/** Requests to the service wait here until the test lets them through. */
let release!: () => void;
const gate = new Promise<void>((r) => (release = r));
let held = 0;

before(async () => {
  redis = await startRedis();
  sandbox = await runSandbox({ keys: [{ key: generateKey(), credits: 100_000_000, concurrency: 9 }] });
  const target = new URL(sandbox.sandbox.url);
  proxy = createServer(async (req, res) => {
    // serve's key check (GET /models) comes before it listens: let it through, hold the rest.
    if (!req.url?.endsWith('/models')) {
      held++;
      await gate;
    }
    const up = request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (r) => {
      res.writeHead(r.statusCode ?? 502, r.headers);
      r.pipe(res);
    });
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  // serve's check of /listen (opened and closed at once) goes straight through too, as bytes.
  proxy.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const up = connect(Number(target.port), target.hostname, () => {
      const headers = Object.entries(req.headers).map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : v}`);
      up.write(`${req.method} ${req.url} HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`);
      up.write(head);
      socket.pipe(up).pipe(socket);
    });
    up.on('error', () => socket.destroy());
    socket.on('error', () => up.destroy());
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
});

after(async () => {
  release();
  if (child && child.exitCode === null) {
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
  proxy.closeAllConnections();
  proxy.close();
  await sandbox.close();
  await redis.stop();
});

const get = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, body: (await res.json()) as { status: string; loopDelayMs?: number; activeCalls?: number; instance?: unknown; maxCalls?: unknown } };
};

test('cluster mode: alive at once, "starting" until start-up is over, then ready although start-up delayed the loop', async () => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${new URL(sandbox.sandbox.url).pathname}`.replace(/\/+$/, '');
  child = spawn(process.execPath, [BIN, 'serve', '--port', String(port)], {
    env: {
      ...process.env,
      HIWAR_LOG_LEVEL: 'warn',
      REDIS_URL: redis.url,
      HIWAR_API_KEY: sandbox.key,
      HIWAR_BASE_URL: proxyUrl,
      HIWAR_KEY_SESSIONS: '9',
      HIWAR_CLUSTER_HEARTBEAT_MS: String(HEARTBEAT_MS),
      HIWAR_CLUSTER_LEASE_MS: String(5 * HEARTBEAT_MS),
      // Far above what this machine's load gives after start-up, far below the stall made here.
      HIWAR_CLUSTER_MAX_LOOP_DELAY_MS: '1000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const explain = () => out;

  // Start-up: listening, joined, rendering its busy line (held at the proxy).
  await waitFor(() => held > 0 || child!.exitCode !== null, 'the busy line requested', 90_000, explain);
  assert.equal(child.exitCode, null, out);
  const live = await get(`${base}/healthz`);
  assert.equal(live.status, 200, 'alive while starting');
  // While starting, the body still says which instance it is and its limits (as when ready).
  const starting = await get(`${base}/readyz`);
  assert.equal(starting.status, 503);
  assert.deepEqual(
    { status: starting.body.status, activeCalls: starting.body.activeCalls, instance: typeof starting.body.instance, maxCalls: typeof starting.body.maxCalls },
    { status: 'starting', activeCalls: 0, instance: 'string', maxCalls: 'number' },
  );

  // Start-up work stalls the event loop for longer than a heartbeat and the delay limit.
  child.kill('SIGSTOP');
  await new Promise((r) => setTimeout(r, HEARTBEAT_MS + 1_000));
  child.kill('SIGCONT');
  // The late heartbeat runs first thing on resuming; then start-up finishes.
  await new Promise((r) => setTimeout(r, 300));
  assert.equal((await get(`${base}/readyz`)).body.status, 'starting');
  release();
  await waitFor(() => /cluster: instance/.test(out) || child!.exitCode !== null, 'start-up finished', 90_000, explain);
  assert.equal(child.exitCode, null, out);

  // Ready from the end of start-up, through the next heartbeats (the window starts after it).
  const seen: string[] = [];
  const until = Date.now() + HEARTBEAT_MS + 1_000;
  while (Date.now() < until) {
    const r = await get(`${base}/readyz`);
    seen.push(`${r.status} ${r.body.status} ${r.body.loopDelayMs}`);
    await new Promise((res) => setTimeout(res, 100));
  }
  assert.ok(seen.every((s) => s.startsWith('200 ok')), `ready all along after start-up:\n${seen.join('\n')}\n${out}`);
  assert.equal((await get(`${base}/healthz`)).status, 200);

  child.kill('SIGTERM');
  const [code] = await once(child, 'exit');
  assert.equal(code, 0, out);
});

/**
 * A server whose start-up fails closes what the start-up opened (the embedded sandbox, the
 * plugins already made, its own port) before the error reaches the caller: a newcomer's process
 * that got the error must be able to end.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { createAgentServer, type ServerPlugin } from '../../src/server/index.ts';
import type { Agent } from '../../src/session/agent.ts';
import { startSandbox } from '../../src/sandbox/index.ts';
import { hiwar } from '../helpers/processes.ts';

const agent: Agent = { name: 'startup', instructions: 'x', greeting: 'أهلًا', voice: { voice_id: 'ar-hijazi-female-1' }, outOfServiceLine: 'الخدمة غير متاحة.' };
const silent = { level: 'silent' } as const;

/** Runs `check` with a port some other server listens on. */
async function withTakenPort(check: (port: number) => Promise<void>): Promise<void> {
  const server: Server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    await check((server.address() as AddressInfo).port);
  } finally {
    await new Promise((r) => server.close(r));
  }
}

/** Listening and connected sockets of this process (what would keep it up), once closing handles are gone. */
async function handles(): Promise<{ servers: number; sockets: number }> {
  // A closed handle leaves libuv's list in the loop's next close phase.
  await new Promise((r) => setImmediate(r));
  await new Promise((r) => setImmediate(r));
  const info = process.getActiveResourcesInfo();
  return { servers: info.filter((r) => r === 'TCPServerWrap').length, sockets: info.filter((r) => r === 'TCPSocketWrap').length };
}

test('a plugin factory that throws: the error reaches the caller with the sandbox and the plugins made before it closed', async () => {
  const before = await handles();
  const closed: string[] = [];
  const earlier: ServerPlugin = { name: 'earlier', close: async () => void closed.push('earlier') };
  await assert.rejects(
    createAgentServer({ agent, plugins: [earlier, () => { throw new Error('plugin broke'); }] }),
    /plugin broke/,
  );
  assert.deepEqual(closed, ['earlier'], 'the plugin made before the failing one was closed');
  assert.deepEqual(await handles(), before, 'no listening socket left (the embedded sandbox closed)');
});

test('the other start-up failures after the sandbox started close it too: wrapSessions throws, a plugin whose close throws', async () => {
  const before = await handles();
  await assert.rejects(
    createAgentServer({ agent, wrapSessions: () => { throw new Error('wrap broke'); } }),
    /wrap broke/,
  );
  assert.deepEqual(await handles(), before, 'wrapSessions threw: the sandbox closed');
  // A plugin written in plain JS whose close is not async and throws.
  const rude = { name: 'rude', close: () => { throw new Error('close broke'); } } as unknown as ServerPlugin;
  await assert.rejects(
    createAgentServer({ agent, plugins: [rude, () => { throw new Error('plugin broke'); }] }),
    /plugin broke/,
    'the start-up error reaches the caller, not the close error',
  );
  assert.deepEqual(await handles(), before, "a plugin's failing close does not keep the sandbox open");
});

test('a sandbox whose second port is taken closes the first before the error reaches the caller', async () => {
  await withTakenPort(async (port) => {
    const before = await handles();
    await assert.rejects(startSandbox({ port: 0, uaePort: port }), /EADDRINUSE/);
    assert.deepEqual(await handles(), before, 'its main port closed');
  });
});

test('listen() on a port in use: the error reaches the caller with nothing of the attempt left open; the app can listen elsewhere, then closes', async () => {
  await withTakenPort(async (port) => {
    const before = await handles();
    const app = await createAgentServer({ agent });
    await assert.rejects(app.listen({ port }), /EADDRINUSE/);
    const { url } = await app.listen({ port: 0 });
    assert.equal((await fetch(`${url}/healthz`)).status, 200, 'a second listen after the failed one works');
    await app.close();
    assert.deepEqual(await handles(), before, 'closed: nothing left');
  });
});

test('hiwar serve on a port in use: it says so before anything slow starts, and its process ends by itself', async () => {
  await withTakenPort(async (port) => {
    // runNode's failsafe rejects if the process is still up: what is checked is that it ends at all.
    const r = await hiwar(['serve', '--port', String(port)], { HIWAR_LOG_LEVEL: 'silent', REDIS_URL: '', HIWAR_PUBLIC_URL: '' }, 400_000);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already taken`));
    // The port is checked first: the sandbox (which voices the agent's phrases, a minute on a busy machine) never started.
    assert.doesNotMatch(r.stdout, /embedded sandbox/, r.stdout);
  });
});

test('hiwar serve --workers 2 on a port in use: the primary says so and forks no worker; so does a taken --audiosocket-port', async () => {
  await withTakenPort(async (port) => {
    const env = { HIWAR_LOG_LEVEL: 'silent', REDIS_URL: '', HIWAR_PUBLIC_URL: '' };
    const workers = await hiwar(['serve', '--workers', '2', '--port', String(port)], env, 120_000);
    assert.equal(workers.code, 1, workers.stdout + workers.stderr);
    assert.match(workers.stderr, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already taken`));
    assert.doesNotMatch(workers.stdout, /embedded sandbox|workers:/, workers.stdout);
    const audioSocket = await hiwar(['serve', '--port', '0', '--audiosocket-port', String(port)], env, 120_000);
    assert.equal(audioSocket.code, 1, audioSocket.stdout + audioSocket.stderr);
    assert.match(audioSocket.stderr, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already taken`));
    assert.doesNotMatch(audioSocket.stdout, /embedded sandbox/, audioSocket.stdout);
  });
});

test('hiwar serve --workers 2 --config FILE whose port is taken (no --port): the primary says so and forks no worker', async () => {
  await withTakenPort(async (port) => {
    const dir = mkdtempSync(join(tmpdir(), 'hiwar-config-port-'));
    try {
      const config = join(dir, 'hiwar.config.mjs');
      writeFileSync(config, `export default { port: ${port} };\n`);
      const env = { HIWAR_LOG_LEVEL: 'silent', REDIS_URL: '', HIWAR_PUBLIC_URL: '' };
      const r = await hiwar(['serve', '--workers', '2', '--config', config], env, 120_000);
      assert.equal(r.code, 1, r.stdout + r.stderr);
      assert.match(r.stderr, new RegExp(`port ${port} on 127\\.0\\.0\\.1 is already taken`));
      assert.doesNotMatch(r.stdout, /embedded sandbox|workers:/, r.stdout);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

test("a port or maxCalls of the wrong type is refused before anything starts, naming the option (a config file's port: 'x' reached Node's listen)", async () => {
  const before = await handles();
  await assert.rejects(createAgentServer({ agent, port: 'x' as never }), /^TypeError: createAgentServer: `port` must be a whole number from 0 to 65535, got "x"$/);
  await assert.rejects(createAgentServer({ agent, maxCalls: 0 }), /`maxCalls` must be a whole number from 1, got 0/);
  assert.deepEqual(await handles(), before, 'nothing was started');
});

test('a publicUrl that is not an absolute http(s) URL is refused before anything starts (a bare host went out in every webhook answer as a stream URL no platform can open)', async () => {
  const before = await handles();
  await assert.rejects(createAgentServer({ agent, publicUrl: 'agent.example.com' }), /^TypeError: createAgentServer: `publicUrl` must be an absolute http:\/\/ or https:\/\/ URL \(https:\/\/agent\.example\.com\), got "agent\.example\.com"$/);
  await assert.rejects(createAgentServer({ agent, publicUrl: 'wss://agent.example.com' }), /`publicUrl` must be an absolute http:\/\/ or https:\/\/ URL/);
  await assert.rejects(createAgentServer({ agent, publicUrl: 'https://agent.example.com/?x=1' }), /`publicUrl` must be a plain address with no query, fragment or credentials/);
  assert.deepEqual(await handles(), before, 'nothing was started');
});


import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { RoomTokens } from '../../transports/webrtc/tokens.ts';
import { Deadline, until, within } from '../helpers/deadline.ts';
import { SignalingClient } from '../helpers/signaling-client.ts';
import { runSandbox, type Running } from '../helpers/sandbox.ts';
import { SECRET, startWebRtcServer, type WebRtcServer } from '../helpers/webrtc-server.ts';

test('room tokens: sealed, short-lived, single use', () => {
  let now = 1_000_000;
  const tokens = new RoomTokens({ ttlMs: 60_000 }, () => now);
  const { token } = tokens.issue('room-1', 'caller', { customer: '42' });
  assert.deepEqual({ ...tokens.redeem(token), nonce: '' }, { room: 'room-1', role: 'caller', parameters: { customer: '42' }, exp: now + 60_000, nonce: '' });
  assert.throws(() => tokens.redeem(token), /already used/);
  const late = tokens.issue('room-2', 'caller').token;
  now += 60_001;
  assert.throws(() => tokens.redeem(late), /expired/);
  // Claims written by hand (the old signed form, a grant of the supervisor's role): refused.
  const forged = `${Buffer.from(JSON.stringify({ room: 'x', role: 'supervisor', parameters: {}, exp: now + 1e6, nonce: 'n' })).toString('base64url')}.${late}`;
  assert.throws(() => tokens.redeem(forged), /invalid token/);
  assert.throws(() => tokens.redeem('nonsense'), /invalid token/);
  const flipped = late.slice(0, 20) + (late[20] === 'A' ? 'B' : 'A') + late.slice(21);
  assert.throws(() => tokens.redeem(flipped), /invalid token/, 'one character changed');
  // The join URL carries it: nothing of the caller's parameters is readable in it.
  const phone = tokens.issue('room-3', 'caller', { phone: '966501234567' }).token;
  for (let skip = 0; skip < 4; skip++) assert.ok(!Buffer.from(phone.slice(skip), 'base64url').toString('latin1').includes('9665012'));
  assert.ok(!phone.includes('9665012') && !Buffer.from(phone, 'hex').toString('latin1').includes('9665012'));
  // Another server with the same key accepts it (a cluster), one with another key does not.
  const a = new RoomTokens({ signingKey: 'k' });
  assert.equal(new RoomTokens({ signingKey: 'k' }).redeem(a.issue('r', 'caller').token).room, 'r');
  assert.throws(() => new RoomTokens({ signingKey: 'other' }).redeem(a.issue('r', 'caller').token), /invalid/);
});

let sandbox: Running;
let server: WebRtcServer;
before(async () => {
  sandbox = await runSandbox();
  server = await startWebRtcServer(sandbox.client);
});
after(async () => {
  await server?.close();
  await sandbox?.close();
});

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${url}/webrtc/token`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

test('the token endpoint wants the backend secret, checks its input, and hands out a join URL without the service key', async () => {
  assert.equal((await post(server.url, {})).status, 401);
  assert.equal((await post(server.url, {}, { authorization: 'Bearer wrong' })).status, 401);
  const auth = { authorization: `Bearer ${SECRET}` };
  assert.equal((await post(server.url, { room: '../etc' }, auth)).status, 400);
  assert.equal((await post(server.url, { role: 'admin' }, auth)).status, 400);
  const res = await post(server.url, { room: 'desk-7', role: 'supervisor', parameters: { agentName: 'Sara' } }, auth);
  assert.equal(res.status, 200);
  const body = (await res.json()) as { token: string; room: string; role: string; joinUrl: string };
  assert.equal(body.room, 'desk-7');
  assert.equal(body.role, 'supervisor');
  assert.equal(body.joinUrl, `${server.url}/?token=${encodeURIComponent(body.token)}`);
  const everything = JSON.stringify(body) + (await (await fetch(`${server.url}/`)).text()) + (await (await fetch(`${server.url}/webrtc/app.js`)).text());
  assert.ok(!everything.includes(sandbox.key), 'the service key never reaches the browser');
  server.host.draining = true;
  assert.equal((await post(server.url, {}, auth)).status, 503);
  server.host.draining = false;
});

test('an open server (no secret) gives only callers tokens for new rooms', async () => {
  const open = await startWebRtcServer(sandbox.client, { plugin: { apiSecret: '', open: true } });
  try {
    const ok = await post(open.url, {});
    assert.equal(ok.status, 200);
    assert.equal((await post(open.url, { role: 'supervisor' })).status, 403);
    assert.equal((await post(open.url, { room: 'someone-elses' })).status, 403);
  } finally {
    await open.close();
  }
});

test('closed by default: with no secret and not open (even on localhost) every token is refused, saying which secret to set', async () => {
  const closed = await startWebRtcServer(sandbox.client, { plugin: { apiSecret: '' } });
  try {
    const res = await post(closed.url, {});
    assert.equal(res.status, 403);
    assert.match(((await res.json()) as { error: string }).error, /HIWAR_WEBRTC_SECRET/);
    assert.equal((await post(closed.url, {}, { authorization: 'Bearer anything' })).status, 403);
  } finally {
    await closed.close();
  }
  // With a secret, open: false changes nothing: the bearer decides.
  const guarded = await startWebRtcServer(sandbox.client, { plugin: { apiSecret: SECRET, open: false } });
  try {
    assert.equal((await post(guarded.url, {})).status, 401);
    assert.equal((await post(guarded.url, {}, { authorization: `Bearer ${SECRET}` })).status, 200);
  } finally {
    await guarded.close();
  }
});

test('the token route is rate-limited per address, before the secret is checked: 429 with Retry-After past the burst', async () => {
  const limited = await startWebRtcServer(sandbox.client, { plugin: { tokenRate: { burst: 5, perMinute: 1 } } });
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await post(limited.url, {}, { authorization: i % 2 ? `Bearer ${SECRET}` : 'Bearer guess' })).status);
    assert.deepEqual(statuses.slice(0, 5), [401, 200, 401, 200, 401], 'the burst is served as usual');
    assert.ok(statuses.slice(5).every((s) => s === 429), `then refused: ${statuses.join(' ')}`);
    const res = await post(limited.url, {}, { authorization: `Bearer ${SECRET}` });
    assert.equal(res.status, 429, 'the right secret too: the limit comes first');
    assert.ok(Number(res.headers.get('retry-after')) >= 1);
  } finally {
    await limited.close();
  }
});

test('signaling: bad messages get an error and the socket lives on; a token joins once', async () => {
  const sig = await SignalingClient.connect(server.url);
  const errors: string[] = [];
  const raw = (text: string) =>
    new Promise<void>((resolve) => {
      const ws = (sig as unknown as { ws: import('ws').WebSocket }).ws;
      ws.once('message', (m) => {
        errors.push((JSON.parse(m.toString()) as { error: string }).error);
        resolve();
      });
      sig.sendRaw(text);
    });
  await raw('not json');
  await raw(JSON.stringify({ id: 3, method: 'explode', data: {} }));
  assert.equal(errors.length, 2);
  assert.ok(errors.every((e) => e.startsWith('bad request')));
  await assert.rejects(sig.request('createTransport', { direction: 'send' }), /join first/);
  await assert.rejects(sig.request('join', { token: 'forged.token' }), /invalid token/);
  const { token } = await server.token();
  const joined = await sig.request('join', { token });
  assert.equal(joined.role, 'caller');
  const again = await SignalingClient.connect(server.url);
  await assert.rejects(again.request('join', { token }), /already used/);
  await assert.rejects(sig.request('takeover', {}), /only a supervisor/);
  again.close();
  sig.close();
  await sig.closed;
  await until(() => server.plugin.rooms === 0, 'a dropped socket to leave no room behind');
});

test('first use: no media worker before a browser call; the first join starts them and is answered; the call page starts them ahead; eager starts them with the plugin', async () => {
  const signingKey = 'first-use-test-key';
  const fresh = await startWebRtcServer(sandbox.client, { plugin: { tokens: { signingKey } } });
  try {
    assert.equal(fresh.plugin.workers.length, 0);
    assert.deepEqual(await fresh.plugin.resources(), { workers: 0, routers: 0, transports: 0, producers: 0, consumers: 0 });
    assert.equal(((await (await fetch(`${fresh.url}/webrtc/status`)).json()) as { workers: number }).workers, 0);
    // A token the backend signed elsewhere (a cluster's shared key): nothing here ran before the join.
    const { token } = new RoomTokens({ signingKey }).issue('first-room', 'caller');
    const sig = await SignalingClient.connect(fresh.url);
    const joined = (await within(sig.request('join', { token }), 60_000, 'the first join')) as { room: string; routerRtpCapabilities: { codecs?: { mimeType: string }[] } };
    assert.equal(joined.room, 'first-room');
    assert.ok(joined.routerRtpCapabilities.codecs?.some((c) => c.mimeType === 'audio/opus'), 'a router with Opus');
    assert.equal(fresh.plugin.workers.length, 1);
    assert.equal((await fresh.plugin.resources()).routers, 1);
    sig.close();
    await sig.closed;
  } finally {
    await fresh.close();
  }
  const paged = await startWebRtcServer(sandbox.client);
  try {
    const page = await fetch(`${paged.url}/`);
    assert.match(page.headers.get('content-type') ?? '', /text\/html/);
    await page.arrayBuffer();
    const deadline = new Deadline(60_000);
    while (paged.plugin.workers.length === 0) {
      assert.ok(!deadline.expired, 'the workers start once the call page is fetched');
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await paged.close();
  }
  const eager = await startWebRtcServer(sandbox.client, { plugin: { start: 'eager' } });
  try {
    assert.equal(eager.plugin.workers.length, 1, 'started with the plugin');
  } finally {
    await eager.close();
  }
});

test('without a mediasoup worker, WebRTC says it is off and why, and nothing throws', async () => {
  const { execFile } = await import('node:child_process');
  const script = `
    const m = await import('./transports/webrtc/index.ts');
    const host = { draining: false, publicUrl: () => '', runCall: async () => 'completed' };
    console.log(JSON.stringify(await m.webrtcForServe({ host })));`;
  const out = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, MEDIASOUP_WORKER_BIN: '/nonexistent/mediasoup-worker' }, cwd: new URL('../..', import.meta.url).pathname }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
  const result = JSON.parse(out.trim().split('\n').at(-1)!) as { plugin?: unknown; message: string };
  assert.equal(result.plugin, undefined);
  assert.match(result.message, /^WebRTC is off: mediasoup .* worker binary is missing \(\/nonexistent\/mediasoup-worker\)/);
});

test("a missing worker names the one a clone's setup.sh kept in hiwar's cache, with the variable that uses it", async () => {
  const { execFile } = await import('node:child_process');
  const { mkdtempSync, writeFileSync, mkdirSync, readFileSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const cache = mkdtempSync(join(tmpdir(), 'hiwar-cache-'));
  try {
    const root = new URL('../..', import.meta.url).pathname;
    const version = (JSON.parse(readFileSync(join(root, 'node_modules/mediasoup/package.json'), 'utf8')) as { version: string }).version;
    const kept = join(cache, `mediasoup-worker-${version}-0123abcd`);
    writeFileSync(kept, '#!/bin/sh\n', { mode: 0o755 });
    mkdirSync(join(cache, 'mediasoup-worker-0.0.1-other')); // another version: not offered
    const script = `const m = await import('./transports/webrtc/mediasoup.ts'); console.log(JSON.stringify(await m.mediasoupInstalled()));`;
    const out = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, MEDIASOUP_WORKER_BIN: '/nonexistent/mediasoup-worker', HIWAR_CACHE: cache }, cwd: root }, (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
      ),
    );
    const result = JSON.parse(out.trim().split('\n').at(-1)!) as { available: boolean; reason: string };
    assert.equal(result.available, false);
    assert.ok(result.reason.includes(`set MEDIASOUP_WORKER_BIN=${kept}, or rebuild it`), result.reason);
  } finally {
    rmSync(cache, { recursive: true, force: true });
  }
});

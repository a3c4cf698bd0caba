import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { WebSocket } from 'ws';
import type { Redis } from 'ioredis';
import { connectRedis } from '../../src/cluster/redis.ts';
import { RoomDirectory } from '../../src/cluster/rooms.ts';
import type { RoomHosts } from '../../transports/webrtc/index.ts';
import { startRedis, type TestRedis } from '../helpers/redis.ts';
import { runSandbox, type Running } from '../helpers/sandbox.ts';
import { SignalingClient } from '../helpers/signaling-client.ts';
import { startWebRtcServer, until, type WebRtcServer } from '../helpers/webrtc-server.ts';

let redis: TestRedis;
let conn: Redis;
let sandbox: Running;
const servers: WebRtcServer[] = [];

/** A server of the cluster: its room directory is made once its address is known. */
async function member(name: string): Promise<{ server: WebRtcServer }> {
  let dir: RoomDirectory | undefined;
  const rooms: RoomHosts = { elsewhere: (r) => dir!.elsewhere(r), release: (r) => dir!.release(r) };
  const server = await startWebRtcServer(sandbox.client, { plugin: { rooms, tokens: { signingKey: 'shared-by-the-cluster' } } });
  dir = new RoomDirectory(conn, { prefix: 'hiwar', instance: name, address: server.url, ttlMs: 30_000 });
  servers.push(server);
  return { server };
}

before(async () => {
  redis = await startRedis();
  conn = connectRedis(redis.url);
  await conn.connect();
  sandbox = await runSandbox();
});
after(async () => {
  for (const s of servers) await s.close();
  conn.disconnect();
  await sandbox.close();
  await redis.stop();
});

/** The join answer as the page reads it, redirect included. */
async function joinRaw(baseUrl: string, token: string): Promise<{ ok: boolean; error?: string; redirect?: string }> {
  const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/webrtc/ws`);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  ws.send(JSON.stringify({ id: 1, method: 'join', data: { token } }));
  // Notifications (peers…) may come before the answer: the answer is the message with the id.
  const raw = await new Promise<string>((resolve) => ws.on('message', (data) => JSON.parse(data.toString()).id === 1 && resolve(data.toString())));
  ws.close();
  return JSON.parse(raw);
}

test('a supervisor joining on another instance is redirected to the room\'s host, with a token still unspent', async () => {
  const a = await member('a');
  const b = await member('b');
  const caller = await SignalingClient.connect(a.server.url);
  const joined = await caller.request('join', { token: (await a.server.token({ room: 'desk-1', role: 'caller' })).token });
  assert.equal(joined.room, 'desk-1');
  assert.equal(JSON.parse((await conn.get('hiwar:room:desk-1'))!).address, a.server.url, 'the room is recorded as hosted by a');

  const { token } = await b.server.token({ room: 'desk-1', role: 'supervisor' });
  const answer = await joinRaw(b.server.url, token);
  assert.equal(answer.ok, false);
  assert.equal(answer.redirect, `${a.server.url.replace(/^http/, 'ws')}/webrtc/ws`);
  assert.equal(b.server.plugin.rooms, 0, 'b made no room for it');

  const supervisor = await SignalingClient.connect(answer.redirect!.replace(/^ws/, 'http').replace(/\/webrtc\/ws$/, ''));
  const there = await supervisor.request('join', { token });
  assert.equal(there.role, 'supervisor');
  assert.equal(there.room, 'desk-1');
  await supervisor.request('leave', {});
  await caller.request('leave', {});
  await until(() => a.server.plugin.rooms === 0, 'the room closes when everyone left');
  await until(async () => (await conn.get('hiwar:room:desk-1')) === null, 'a closed room to be forgotten');
  const again = await joinRaw(b.server.url, (await b.server.token({ room: 'desk-1', role: 'caller' })).token);
  assert.equal(again.ok, true, `the room can now start on b: ${again.error}`);
  caller.close();
  supervisor.close();
});

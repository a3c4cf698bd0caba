/**
 * docs/outbound.md's fake-twilio.mjs (run from a blank project by test/package/installed.test.ts)
 * answers the cancel a drain sends as Twilio's page does (test/fixtures/platforms/twilio/cancel.json):
 * `POST …/Calls/{Sid}.json` with `Status=canceled` hangs up a ringing call (the resource answered
 * `canceled`, then the `canceled` callback), leaves an answered one alone (`in-progress`), and a
 * call it never placed is 404. Here the snippet runs as written, only `ws` resolved from this
 * repository, through hiwar's own Twilio client.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { WebSocketServer } from 'ws';
import { twilioOutbound } from '../../../transports/telephony/outbound/twilio.ts';
import type { DialRequest } from '../../../transports/telephony/outbound/types.ts';
import { freePort } from '../../helpers/ports.ts';
import { runnableSnippets } from '../../helpers/snippets.ts';

const ROOT = new URL('../../..', import.meta.url).pathname;
const SID = 'AC0123456789abcdef0123456789abcdef';
const TOKEN = 'test-token';
const dir = mkdtempSync(join(tmpdir(), 'hiwar-fake-twilio-'));
const children: ChildProcess[] = [];

/** Starts the snippet; resolves with its API address once it listens. */
async function startFake(env: Record<string, string>): Promise<string> {
  const snippet = runnableSnippets(ROOT).find((s) => s.name === 'fake-twilio.mjs');
  assert.ok(snippet, 'docs/outbound.md shows fake-twilio.mjs');
  const file = join(dir, 'fake-twilio.mjs');
  writeFileSync(file, snippet.body.replace("from 'ws'", `from '${import.meta.resolve('ws')}'`));
  const child = spawn(process.execPath, [file], { env: { PATH: process.env.PATH, FAKE_PORT: String(await freePort()), TWILIO_AUTH_TOKEN: TOKEN, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  let m: RegExpExecArray | null;
  while (!(m = /fake Twilio on (http:\/\/\S+)/.exec(out))) {
    if (child.exitCode !== null) assert.fail(`fake-twilio.mjs exited (${child.exitCode}):\n${out}`);
    await Promise.race([once(child.stdout!, 'data'), once(child, 'exit')]);
  }
  return m[1]!;
}

/** The status callbacks the fakes send, by number called (each fake counts its own CallSids), in order; `until` waits for one. */
const statuses = new Map<string, string[]>();
const waiters: { to: string; status: string; resolve: () => void }[] = [];
let callbacks: Server;
let media: WebSocketServer;
let statusUrl = '';
let streamUrl = '';
before(async () => {
  callbacks = createServer(async (req, res) => {
    const form = new URLSearchParams(await new Response(req as unknown as ReadableStream).text());
    const to = form.get('To')!;
    statuses.set(to, [...(statuses.get(to) ?? []), form.get('CallStatus')!]);
    for (const w of waiters.filter((x) => x.to === to && x.status === form.get('CallStatus'))) w.resolve();
    res.writeHead(204).end();
  });
  await new Promise<void>((r) => callbacks.listen(0, '127.0.0.1', () => r()));
  statusUrl = `http://127.0.0.1:${(callbacks.address() as AddressInfo).port}/status`;
  // The answered call's media stream: accepted, nothing said.
  media = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await once(media, 'listening');
  streamUrl = `ws://127.0.0.1:${(media.address() as AddressInfo).port}/stream`;
});
after(async () => {
  for (const c of children) c.kill();
  for (const ws of media?.clients ?? []) ws.terminate();
  media?.close();
  callbacks?.closeAllConnections();
  callbacks?.close();
  rmSync(dir, { recursive: true, force: true });
});

const until = (to: string, status: string) =>
  statuses.get(to)?.includes(status) ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ to, status, resolve }));

const request = (to: string): DialRequest => ({
  id: `out-${to}`,
  to,
  from: '+966110000000',
  streamUrl,
  answerUrl: `${statusUrl}/answer`,
  statusUrl,
  afterUrl: `${statusUrl}/after`,
  parameters: {},
  ringTimeoutS: 30,
});

test('a ringing call is hung up by the cancel: the resource answered canceled, then the canceled callback', async () => {
  const twilio = twilioOutbound({ accountSid: SID, authToken: TOKEN, baseUrl: await startFake({ FAKE_RING_MS: '600000' }) });
  const to = '+966500000001';
  const { platformCallId } = await twilio.dial(request(to));
  await until(to, 'ringing');
  assert.equal(await twilio.cancel!({ platformCallId }), true, 'the platform took the cancel');
  await until(to, 'canceled');
  assert.deepEqual(statuses.get(to), ['ringing', 'canceled'], 'never answered');
  assert.equal(await twilio.cancel!({ platformCallId: 'CA99'.padEnd(34, '0') }), false, 'a call it never placed: 404, nothing to cancel');
});

test('an answered call is left alone by the cancel: the resource answered in-progress', async () => {
  const twilio = twilioOutbound({ accountSid: SID, authToken: TOKEN, baseUrl: await startFake({ FAKE_RING_MS: '0' }) });
  const connected = once(media, 'connection');
  const to = '+966500000002';
  const { platformCallId } = await twilio.dial(request(to));
  await until(to, 'in-progress');
  await connected;
  assert.equal(await twilio.cancel!({ platformCallId }), false, 'not cancelled: the call is in progress');
  assert.deepEqual(statuses.get(to), ['ringing', 'in-progress']);
});

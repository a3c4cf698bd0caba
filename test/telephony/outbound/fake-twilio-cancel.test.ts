/**
 * `hiwar/testing`'s fake Twilio (which docs/outbound.md's fake-twilio.mjs runs, and
 * test/package/installed.test.ts runs from a blank project) answers the cancel a drain sends
 * through hiwar's own Twilio client as Twilio's page does (test/fixtures/platforms/twilio/cancel.json):
 * `POST …/Calls/{Sid}.json` with `Status=canceled` hangs up a ringing call (the resource answered
 * `canceled`, then the `canceled` callback), leaves an answered one alone (`in-progress`), and a
 * call it never placed is 404.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { WebSocketServer } from 'ws';
import { startFakeTwilio, type FakeTwilio, type FakeTwilioOptions } from '../../../src/testing/fake-twilio.ts';
import { twilioOutbound } from '../../../transports/telephony/outbound/twilio.ts';
import type { DialRequest } from '../../../transports/telephony/outbound/types.ts';

const SID = 'AC0123456789abcdef0123456789abcdef';
const TOKEN = 'test-token';
const fakes: FakeTwilio[] = [];

/** Starts a fake; resolves with its API address. */
async function startFake(options: FakeTwilioOptions): Promise<string> {
  const fake = await startFakeTwilio({ accountSid: SID, authToken: TOKEN, ...options });
  fakes.push(fake);
  return fake.url;
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
  for (const f of fakes) await f.close();
  for (const ws of media?.clients ?? []) ws.terminate();
  media?.close();
  callbacks?.closeAllConnections();
  callbacks?.close();
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
  const twilio = twilioOutbound({ accountSid: SID, authToken: TOKEN, baseUrl: await startFake({ ringMs: 600_000 }) });
  const to = '+966500000001';
  const { platformCallId } = await twilio.dial(request(to));
  await until(to, 'ringing');
  assert.equal(await twilio.cancel!({ platformCallId }), true, 'the platform took the cancel');
  await until(to, 'canceled');
  assert.deepEqual(statuses.get(to), ['initiated', 'ringing', 'canceled'], 'never answered');
  assert.equal(await twilio.cancel!({ platformCallId: 'CA99'.padEnd(34, '0') }), false, 'a call it never placed: 404, nothing to cancel');
});

test('an answered call is left alone by the cancel: the resource answered in-progress', async () => {
  const twilio = twilioOutbound({ accountSid: SID, authToken: TOKEN, baseUrl: await startFake({ ringMs: 0 }) });
  const connected = once(media, 'connection');
  const to = '+966500000002';
  const { platformCallId } = await twilio.dial(request(to));
  await until(to, 'in-progress');
  await connected;
  assert.equal(await twilio.cancel!({ platformCallId }), false, 'not cancelled: the call is in progress');
  assert.deepEqual(statuses.get(to), ['initiated', 'ringing', 'in-progress']);
});

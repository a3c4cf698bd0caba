/**
 * Connections that die without a goodbye (a TCP reset) end their calls at once, not by the
 * silence watchdog: a burst of 200 AudioSocket calls reset mid-call leaves no call running and
 * the server serving the next caller; a WebSocket media stream reset ends its call the same way.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { generateKey } from '../../src/sandbox/keys.ts';
import { encodeFrame, uuidToBytes } from '../../transports/telephony/audiosocket-frames.ts';
import { startAudioSocketServer, type AudioSocketServer } from '../../transports/telephony/audiosocket-server.ts';
import { runSandbox, type Running } from '../helpers/sandbox.ts';
import { AudioSocketFarEnd } from './audiosocket-far-end.ts';
import { FarEnd } from './far-end.ts';
import { agentTurns, startServe, twilioCall, waitFor, type Served } from './serve.ts';
import { twilioProtocol } from './twilio-protocol.ts';

const BURST = Number(process.env.S22_BURST ?? 200);
let sandbox: Running;
let s: Served;
let as: AudioSocketServer;

before(async () => {
  sandbox = await runSandbox({ keys: [{ key: generateKey(), concurrency: 3 * (BURST + 4) }] });
  s = await startServe({ sandbox, speed: 2, maxCalls: BURST + 4 });
  as = await startAudioSocketServer(s.server.host, { port: 0, logger: undefined });
});
after(async () => {
  await as.close();
  await s.close();
  await sandbox.close();
});

const uuid = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;

/** An AudioSocket call as Asterisk starts it: the UUID frame, then 20 ms frames of silence. */
function audioSocketCall(i: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const sock = connect(as.port, '127.0.0.1', () => {
      sock.write(encodeFrame(0x01, uuidToBytes(uuid(i))));
      for (let k = 0; k < 5; k++) sock.write(encodeFrame(0x10, new Uint8Array(320)));
      resolve(sock);
    });
    sock.on('error', () => {});
    sock.once('error', reject);
  });
}

test(`${BURST} AudioSocket calls reset mid-call: every call ends on the reset (no watchdog), none is left running, and the next caller is served`, async () => {
  const before = s.calls.length;
  const socks = await Promise.all(Array.from({ length: BURST }, (_, i) => audioSocketCall(i)));
  // Each connection is reset as soon as its call exists (the session may still be opening its sockets).
  const pending = new Map(socks.map((sock, i) => [uuid(i), sock]));
  await waitFor(
    () => {
      for (const c of s.calls.slice(before)) {
        pending.get(c.transport.call.callId)?.resetAndDestroy();
        pending.delete(c.transport.call.callId);
      }
      return pending.size === 0;
    },
    `${BURST} calls started and reset`,
    120_000,
    () => `${pending.size} not started`,
  );
  await waitFor(() => s.server.calls.active === 0 && as.connections() === 0, 'no call left running', 120_000, () => {
    const stuck = s.calls.slice(before).filter((c) => !c.report);
    return `${s.server.calls.active} running, ${as.connections()} connections; stuck: ${JSON.stringify(stuck.slice(0, 3).map((c) => ({ e: c.events.map((e) => e.type), t: c.transportEvents })))}`;
  });
  const burst = s.calls.slice(before, before + BURST);
  assert.ok(burst.every((c) => c.report), 'every session finished its report');
  // The transport's hang-up says why the call ended for it: the reset, never a watchdog.
  const why = burst.map((c) => c.transportEvents.find((e) => e.type === 'hangup'));
  const notReset = why.filter((e) => !(e?.type === 'hangup' && e.reason === 'connection broken'));
  assert.deepEqual(notReset, [], 'every call ended because its connection broke');
  assert.equal(s.server.calls.held, 0, 'no place held by a dead connection');

  const next = new AudioSocketFarEnd(as.port, uuid(BURST + 1), s.clock);
  try {
    await next.start();
    await waitFor(() => s.calls.some((c) => c.transport.call.callId === uuid(BURST + 1) && agentTurns(c).length >= 1), 'the next caller hears the greeting');
    await waitFor(() => next.played > 0, 'agent audio reached the next caller');
  } finally {
    next.hangup();
  }
  await waitFor(() => s.server.calls.active === 0, 'the next call ended');
});

test('a WebSocket media stream reset mid-call ends its call on the reset', async () => {
  const far = new FarEnd((await twilioCall(s, 'CA-reset')).streamUrl!, twilioProtocol('CA-reset'), s.clock);
  await far.start();
  await waitFor(() => s.calls.some((c) => c.transport.call.callId === 'CA-reset'), 'the call started');
  (far.ws as unknown as { _socket: Socket })._socket.resetAndDestroy();
  const call = s.calls.find((c) => c.transport.call.callId === 'CA-reset')!;
  await waitFor(() => s.server.calls.active === 0, 'the call ended', 90_000, () => JSON.stringify({ events: call.events.map((e) => e.type), t: call.transportEvents }));
  assert.deepEqual(call.transportEvents.find((e) => e.type === 'hangup'), { type: 'hangup', reason: 'connection closed (1006)' });
});

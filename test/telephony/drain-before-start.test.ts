/**
 * A drain and the media connections open before it whose platform `start` has not come: one
 * whose start comes during the drain runs its call (the drain waited for it), and one that never
 * starts is closed at the start timeout, which ends the drain.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import WebSocket from 'ws';
import type { CallManager } from '../../src/server/calls.ts';
import { FarEnd } from './far-end.ts';
import { startServe, twilioCall, waitFor } from './serve.ts';
import { twilioProtocol } from './twilio-protocol.ts';

test('a drain with connections not started: a start during the drain runs its call, a connection that never starts is closed at the start timeout', async () => {
  const s = await startServe({ limits: { startTimeoutMs: 1500 } });
  try {
    const a = await twilioCall(s, 'CA-late-start');
    const b = await twilioCall(s, 'CA-never');
    const late = new FarEnd(a.streamUrl!, twilioProtocol('CA-late-start'), s.clock);
    const never = new WebSocket(b.streamUrl!);
    never.on('error', () => {});
    const neverClosed = once(never, 'close');
    await Promise.all([once(late.ws, 'open'), once(never, 'open')]);
    const calls = s.server.host as CallManager;
    await waitFor(() => calls.held === 2, 'both connections hold a place');
    const drained = s.server.drain(60_000);
    assert.deepEqual(calls.waitingFor().connections.sort(), ['twilio:CA-late-start', 'twilio:CA-never']);
    // The platform's start comes now, during the drain: the call runs and the callee hears the agent.
    await late.start();
    await late.until(() => late.agentAudio.length > 0, 60_000);
    await neverClosed;
    assert.equal(s.calls.length, 1, 'one call ran');
    late.hangup();
    await drained;
  } finally {
    await s.close();
  }
});

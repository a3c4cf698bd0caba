import assert from 'node:assert/strict';
import { once } from 'node:events';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { generateKey } from '../../src/sandbox/keys.ts';
import { twilioSignature } from '../../transports/telephony/twilio.ts';
import { pad, runSandbox, voiced, type Running } from '../helpers/sandbox.ts';
import { FarEnd } from './far-end.ts';
import { agentTurns, startServe, twilioCall, waitFor } from './serve.ts';
import { twilioProtocol } from './twilio-protocol.ts';
import { upgradeStatus } from '../helpers/upgrade.ts';

describe('hiwar serve: security and drain', () => {
  let sandbox: Running;
  let balance: Int16Array;
  before(async () => {
    // As `hiwar serve` starts its embedded sandbox: a key with room for every call's two sockets.
    sandbox = await runSandbox({ keys: [{ key: generateKey(), concurrency: 64 }] });
    balance = pad(await voiced(sandbox.client, 'كم رصيدي', 8000), 8000, 0.2, 1.0);
  });
  after(() => sandbox.close());

  test('beyond localhost: no media without a valid per-call token, no webhook without a valid signature, no key in any URL', async () => {
    const s = await startServe({ sandbox, open: false, secrets: { twilio: 'twilio-auth-token' }, mediaToken: 'static-media-token' });
    try {
      const base = s.url.replace('http', 'ws');
      assert.equal(await upgradeStatus(`${base}/telephony/twilio/stream`), 401, 'no token');
      assert.equal(await upgradeStatus(`${base}/telephony/twilio/stream/not.a-token`), 401, 'forged token');
      assert.equal(await upgradeStatus(`${base}/telephony/twilio/stream/${s.tokens.mint('plivo', 'CA9')}`), 401, 'a token for another platform');
      assert.equal(await upgradeStatus(`${base}/telephony/twilio?token=wrong`), 401, 'wrong static token');
      assert.equal(await upgradeStatus(`${base}/telephony/twilio?token=static-media-token`), 401, 'the static token opens no webhook platform');
      assert.equal(await upgradeStatus(`${base}/telephony/pcm?rate=16000&token=static-media-token`), 101, 'the static token opens a platform without a webhook');
      assert.equal(await upgradeStatus(`${base}/telephony/nowhere`), 404);

      assert.equal((await twilioCall(s, 'CA1')).status, 403, 'unsigned webhook');
      assert.equal((await twilioCall(s, 'CA1', { 'x-twilio-signature': 'AAAA' })).status, 403, 'bad signature');
      const sig = twilioSignature('twilio-auth-token', `${s.url}/telephony/twilio`, { CallSid: 'CA1' });
      const ok = await twilioCall(s, 'CA1', { 'x-twilio-signature': sig });
      assert.equal(ok.status, 200);
      assert.equal(await upgradeStatus(ok.streamUrl!), 101, 'the URL handed out works');
      assert.ok(!ok.xml.includes(sandbox.key), 'the service key is nowhere in the answer');
      assert.equal((await fetch(`${s.url}/telephony/plivo`, { method: 'POST', body: '' })).status, 403, 'a platform whose secret is not configured is refused');
      await waitFor(() => s.server.calls.active === 0 && s.connections() === 0, 'test sockets gone');
    } finally {
      await s.close();
    }
  });

  test('a platform that never starts, or goes silent mid-call, is let go', async () => {
    const s = await startServe({ sandbox, speed: 2, limits: { startTimeoutMs: 1500, idleTimeoutMs: 2000 } });
    try {
      const mute = new WebSocket(`${s.url.replace('http', 'ws')}/telephony/twilio/stream/${s.tokens.mint('twilio', 'CA-mute')}`);
      mute.on('error', () => {});
      const [code, reason] = (await once(mute, 'close')) as [number, Buffer];
      assert.equal(code, 1000);
      assert.equal(reason.toString(), 'no start message');
      const far = new FarEnd((await twilioCall(s, 'CA-silent')).streamUrl!, twilioProtocol('CA-silent'), s.clock);
      await far.start();
      await waitFor(() => s.server.calls.active === 1, 'the call runs');
      far.freeze(); // the TCP connection stays up, nothing more arrives
      await waitFor(() => s.server.calls.active === 0, 'the silent call was ended');
      assert.equal((await far.closed).reason.length > 0, true);
    } finally {
      await s.close();
    }
  });

  test('SIGTERM drain: new calls refused, the running call goes on to its end, then the server closes; a full server refuses', async () => {
    const s = await startServe({ sandbox, speed: 2, maxCalls: 1 });
    let drained = false;
    try {
      const far = new FarEnd((await twilioCall(s, 'CA-d1')).streamUrl!, twilioProtocol('CA-d1'), s.clock);
      await far.start();
      await waitFor(() => s.server.calls.active === 1, 'the call runs');
      const second = new FarEnd((await twilioCall(s, 'CA-d2')).streamUrl!, twilioProtocol('CA-d2'), s.clock);
      await assert.rejects(second.start(), /refused: 503/, 'a full server refuses the extra stream at its handshake');
      const call = s.calls.find((c) => c.transport.call.callId === 'CA-d1')!;
      await waitFor(() => agentTurns(call).length >= 1, 'greeting played');
      const draining = s.server.drain().then(() => (drained = true));
      await waitFor(() => s.server.calls.draining, 'draining');
      const notReady = await fetch(`${s.url}/readyz`);
      assert.equal(notReady.status, 503, 'not ready while draining');
      // The connection closes after the answer: the next request must reach a process that stays.
      assert.equal(notReady.headers.get('connection'), 'close');
      assert.equal((await fetch(`${s.url}/healthz`)).status, 200, 'but alive');
      assert.equal((await twilioCall(s, 'CA-d3')).status, 503, 'no new stream URLs');
      await far.say(balance);
      await waitFor(() => agentTurns(call).some((t) => /رصيد/.test(t.text)), 'the running call still answered');
      assert.equal(drained, false, 'not closed while a call runs');
      far.hangup();
      await draining;
      assert.equal(s.server.calls.active, 0);
      const metrics = await s.server.metrics.text();
      assert.match(metrics, /hiwar_calls_total\{provider="twilio",outcome="refused"\} 1\b/, 'the --max-calls refusal is counted');
    } finally {
      if (!drained) await s.close();
    }
  });

  test('drain race: the media of a webhook answered just before SIGTERM is served, not refused', async () => {
    const s = await startServe({ sandbox, speed: 2 });
    let drained = false;
    try {
      const answered = await twilioCall(s, 'CA-race');
      assert.equal(answered.status, 200);
      const draining = s.server.drain().then(() => (drained = true));
      await waitFor(() => s.server.calls.draining, 'draining');
      assert.equal((await twilioCall(s, 'CA-late')).status, 503, 'a webhook after the signal gets no stream URL');
      // The platform has already answered the caller: its stream arrives after the signal.
      const far = new FarEnd(answered.streamUrl!, twilioProtocol('CA-race'), s.clock);
      await far.start();
      await waitFor(() => s.calls.some((c) => c.transport.call.callId === 'CA-race'), 'the promised call started');
      const call = s.calls.find((c) => c.transport.call.callId === 'CA-race')!;
      await waitFor(() => agentTurns(call).length >= 1, 'the caller hears the greeting');
      assert.equal(drained, false, 'the drain waits for the promised call');
      assert.equal(await upgradeStatus(answered.streamUrl!), 503, 'its token again, during the drain: refused');
      far.hangup();
      await draining;
      assert.equal(s.server.calls.active, 0);
    } finally {
      if (!drained) await s.close();
    }
  });
});

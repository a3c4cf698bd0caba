import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateKey } from '../../src/sandbox/keys.ts';
import { twilioSignature } from '../../transports/telephony/twilio.ts';
import { pad, runSandbox, voiced, type Running } from '../helpers/sandbox.ts';
import { FarEnd } from './far-end.ts';
import { agentTurns, startServe, twilioCall, waitFor } from './serve.ts';
import { twilioProtocol } from './twilio-protocol.ts';

describe('hiwar serve: many calls in one process', () => {
  let sandbox: Running;
  let balance: Int16Array;
  before(async () => {
    // As `hiwar serve` starts its embedded sandbox: a key with room for every call's two sockets.
    sandbox = await runSandbox({ keys: [{ key: generateKey(), concurrency: 64 }] });
    balance = pad(await voiced(sandbox.client, 'كم رصيدي', 8000), 8000, 0.2, 1.0);
  });
  after(() => sandbox.close());

  test('20 concurrent calls in one process, each answered; a call whose session fails touches no other', async () => {
    // No greeting: twenty greetings synthesized in the same second only measure the sandbox.
    const s = await startServe({
      sandbox,
      speed: 1,
      agent: { greeting: undefined },
      beforeSession: (t) => {
        if (t.call.callId === 'CA-broken') throw new Error('this agent cannot start');
      },
    });
    try {
      const broken = new FarEnd((await twilioCall(s, 'CA-broken')).streamUrl!, twilioProtocol('CA-broken'), s.clock);
      await broken.start();
      const fars = await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          const sid = `CA-many-${i}`;
          const far = new FarEnd((await twilioCall(s, sid)).streamUrl!, twilioProtocol(sid), s.clock);
          await far.start();
          return { sid, far };
        }),
      );
      await waitFor(() => s.server.calls.active === 20, '20 calls running', 150_000);
      const health = (await (await fetch(`${s.url}/healthz`)).json()) as { activeCalls: number };
      assert.equal(health.activeCalls, 20);
      await broken.closed;
      const calls = () => fars.map(({ sid }) => s.calls.find((c) => c.transport.call.callId === sid)!);
      // Callers speak a little apart, as real callers do, all while the twenty calls are up.
      await Promise.all(fars.map(({ far }, i) => new Promise((r) => setTimeout(r, i * 150)).then(() => far.say(balance))));
      await waitFor(() => calls().every((c) => agentTurns(c).some((t) => /رصيد/.test(t.text))), 'every caller answered', 150_000).catch((err) => {
        for (const c of calls()) console.log(c.transport.call.callId, JSON.stringify(c.events.filter((e) => ['user_turn', 'agent_turn', 'error', 'notice', 'transcript'].includes(e.type))));
        throw err;
      });
      for (const { far } of fars) far.hangup();
      await waitFor(() => s.server.calls.active === 0, 'all calls freed', 150_000);
      const metrics = await (await fetch(`${s.url}/metrics`)).text();
      assert.match(metrics, /hiwar_calls_total\{provider="twilio",outcome="caller-hangup"\} 20/);
      assert.match(metrics, /hiwar_calls_total\{provider="twilio",outcome="failed"\} 1/);
      assert.match(metrics, /hiwar_active_calls\{provider="twilio"\} 0/);
    } finally {
      await s.close();
    }
  });

});

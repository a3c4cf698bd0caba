/**
 * A call whose session cannot be made (the factory throws) is not left in silence: the server says
 * the agent's out-of-service line itself (there is no session to say it), then ends the call as
 * `failed` with a typed `call_ended` event. Through `createAgentServer` with the telephony routes
 * and a Twilio far end on a real socket.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import callCentre from '../../agents/call-centre/index.ts';
import { createAgentServer, type ServerEvent } from '../../src/server/index.ts';
import { createLogger } from '../../src/session/logger.ts';
import { SteadyScaledClock } from '../../src/testing/steady-clock.ts';
import { telephonyRoutes } from '../../transports/telephony/index.ts';
import { runSandbox } from '../helpers/sandbox.ts';
import { FarEnd } from '../telephony/far-end.ts';
import { waitFor } from '../telephony/serve.ts';
import { twilioProtocol } from '../telephony/twilio-protocol.ts';

test("a session factory that throws: the caller hears the agent's out-of-service line, and the server tells call_ended failed", async () => {
  const sandbox = await runSandbox();
  const clock = new SteadyScaledClock(2);
  const lines: Record<string, unknown>[] = [];
  const app = await createAgentServer({
    agent: callCentre,
    client: sandbox.client,
    clock,
    open: true,
    logger: createLogger('info', { write: (l: string) => void lines.push(JSON.parse(l)) }),
    plugins: [telephonyRoutes({ media: { clock } })],
    wrapSessions: () => async () => {
      throw new Error('the CRM lookup broke');
    },
  });
  const server: ServerEvent[] = [];
  app.events$.subscribe((e) => server.push(e));
  const { url } = await app.listen({ port: 0 });
  try {
    const res = await fetch(`${url}/telephony/twilio`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'CallSid=CA-broken' });
    const streamUrl = /<Stream url="([^"]+)"/.exec(await res.text())![1]!;
    const far = new FarEnd(streamUrl, twilioProtocol('CA-broken'), clock);
    await far.start();
    await far.closed;
    await waitFor(() => app.activeCalls === 0 && server.some((e) => e.type === 'call_ended'), 'the call ended');
    const heard = far.agentAudio.reduce((n, a) => n + a.length, 0) / far.proto.rate;
    assert.ok(heard >= 2, `the caller heard ${heard.toFixed(2)} s of the line (some 4 s)`);
    const ended = server.find((e) => e.type === 'call_ended');
    assert.ok(ended && ended.type === 'call_ended');
    assert.equal(ended.outcome, 'failed');
    assert.equal(ended.call.callId, 'CA-broken');
    const line = lines.find((l) => l.msg === 'call ended');
    assert.equal(line?.line, 'out of service', JSON.stringify(lines.map((l) => l.msg)));
  } finally {
    await app.close();
    clock.stop();
    await sandbox.close();
  }
});

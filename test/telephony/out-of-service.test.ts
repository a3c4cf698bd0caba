/**
 * No caller left in silence: a call that starts while the voice service is down hears the
 * agent's out-of-service line (rendered once per process at start-up, as `hiwar serve` does)
 * before the server hangs up, with a typed fatal `error` event and the call counted as failed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import callCentre from '../../agents/call-centre/index.ts';
import { prepareFixedLines } from '../../src/session/prepare-fixed-lines.ts';
import { runSandbox } from '../helpers/sandbox.ts';
import { FarEnd } from './far-end.ts';
import { startServe, twilioCall, waitFor } from './serve.ts';
import { twilioProtocol } from './twilio-protocol.ts';

test('the service is down when the call starts: the caller hears the out-of-service line, then the call ends as failed', async () => {
  const sandbox = await runSandbox();
  const s = await startServe({ sandbox, speed: 2 });
  try {
    // Start-up: the line is rendered while the service answers; then the service goes away.
    await prepareFixedLines(sandbox.client, callCentre);
    await sandbox.close();
    const far = new FarEnd((await twilioCall(s, 'CA-down')).streamUrl!, twilioProtocol('CA-down'), s.clock);
    await far.start();
    const closed = await far.closed;
    const heard = far.agentAudio.reduce((n, a) => n + a.length, 0) / far.proto.rate;
    assert.ok(heard >= 2, `the caller heard ${heard.toFixed(2)} s of agent audio before the hang-up (the line is some 4 s)`);
    assert.ok(closed.code === 1000, `closed by the server (${closed.code} ${closed.reason})`);
    // The platform gets a generic reason; what went wrong, and what to do, stays in hiwar's report and log.
    assert.equal(closed.reason, 'out of service');
    await waitFor(() => s.server.calls.active === 0, 'the call ended');
    const call = s.calls.find((c) => c.transport.call.callId === 'CA-down')!;
    // Among others: the voice's fallback to HTTP is typed too (non-fatal), and may come first.
    const errors = call.events.filter((e) => e.type === 'error');
    assert.ok(errors.some((e) => e.type === 'error' && e.fatal), `a typed fatal error event: ${JSON.stringify(errors)}`);
    assert.match(call.report?.ended ?? '', /^out of service: could not start/);
    assert.ok(call.report?.turns.some((t) => t.role === 'agent' && t.text === callCentre.outOfServiceLine), 'the line is in the report');
    assert.match(await s.server.metrics.text(), /hiwar_calls_total\{provider="twilio",outcome="failed"\} 1\b/);
  } finally {
    await s.close();
  }
});

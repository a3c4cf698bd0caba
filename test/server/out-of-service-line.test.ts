/**
 * A key whose wallet runs empty while the instance runs: the caller who reaches it hears the
 * agent's out-of-service line (rendered by `createAgentServer` at start-up, as by `hiwar serve`), the server tells a
 * typed `out_of_service` event, and `/readyz` says why while staying 200 (a refused key is every
 * instance's: a 503 everywhere sent callers to the platform's error tone). The line is told as any
 * line the caller hears: `reply_started`, `agent_chunk` and `agent_turn` with `line:
 * 'out_of_service'`, a `hiwar.reply` span, the live view's last agent line. Through
 * `createAgentServer` with the telephony routes, a Twilio far end and the sandbox's wallet.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import callCentre from '../../agents/call-centre/index.ts';
import { LiveCalls, type LiveCall } from '../../src/observability/live-calls.ts';
import { traceSessions } from '../../src/observability/trace-sessions.ts';
import { createAgentServer, type ServerEvent } from '../../src/server/index.ts';
import type { SessionEvent } from '../../src/session/events.ts';
import { createLogger } from '../../src/session/logger.ts';
import { SteadyScaledClock } from '../../src/testing/steady-clock.ts';
import { telephonyRoutes } from '../../transports/telephony/index.ts';
import { runSandbox } from '../helpers/sandbox.ts';
import { FarEnd } from '../telephony/far-end.ts';
import { waitFor } from '../telephony/serve.ts';
import { twilioProtocol } from '../telephony/twilio-protocol.ts';

test("the wallet runs empty: the caller hears the out-of-service line, told as events, a span and in the live view; the server's out_of_service event; /readyz 200 degraded, saying why", async () => {
  const sandbox = await runSandbox();
  const clock = new SteadyScaledClock(2);
  const exporter = new InMemorySpanExporter();
  const tracer = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }).getTracer('hiwar');
  const live = new LiveCalls();
  const events: SessionEvent[] = [];
  const seenLive: LiveCall[] = [];
  const app = await createAgentServer({
    agent: callCentre,
    client: sandbox.client,
    clock,
    open: true,
    logger: createLogger('silent'),
    plugins: [telephonyRoutes({ media: { clock } })],
    wrapSessions: (inner) =>
      live.sessions(
        traceSessions(async (t) => {
          const s = await inner(t);
          s.events$.subscribe((e) => events.push(e));
          return s;
        }, { tracer }),
      ),
  });
  const server: ServerEvent[] = [];
  app.events$.subscribe((e) => server.push(e));
  const { url } = await app.listen({ port: 0 });
  try {
    // createAgentServer rendered the line at start-up, while the wallet had credit; then it runs empty.
    sandbox.sandbox.state.keys.lookup(sandbox.key, 'global')!.credits = 0;
    const res = await fetch(`${url}/telephony/twilio`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'CallSid=CA-empty' });
    const streamUrl = /<Stream url="([^"]+)"/.exec(await res.text())![1]!;
    const far = new FarEnd(streamUrl, twilioProtocol('CA-empty'), clock);
    // What the live view shows while the line plays (it lists the call until the call ends).
    const sampling = setInterval(() => seenLive.push(...live.list()), 5);
    await far.start();
    await far.closed;
    clearInterval(sampling);
    await waitFor(() => app.activeCalls === 0, 'the call ended');
    const heard = far.agentAudio.reduce((n, a) => n + a.length, 0) / far.proto.rate;
    assert.ok(heard >= 2, `the caller heard ${heard.toFixed(2)} s of the line (some 4 s)`);

    const oos = server.find((e) => e.type === 'out_of_service');
    assert.ok(oos && oos.type === 'out_of_service', `a typed server event: ${JSON.stringify(server.map((e) => e.type))}`);
    assert.equal(oos.call.callId, 'CA-empty');
    assert.match(oos.reason, /^out of service: .*the wallet is empty/, 'the reason the call ends with');

    const line = callCentre.outOfServiceLine;
    const started = events.find((e) => e.type === 'reply_started' && e.line === 'out_of_service');
    assert.ok(started && started.type === 'reply_started', `reply_started with line: ${JSON.stringify(events.map((e) => e.type))}`);
    assert.ok(events.some((e) => e.type === 'agent_chunk' && e.reply === started.reply && e.text === line), 'its text as a chunk');
    const said = events.find((e) => e.type === 'agent_turn' && e.line === 'out_of_service');
    assert.deepEqual(said && said.type === 'agent_turn' && [said.text, said.heardText, said.reply], [line, line, started.reply]);
    assert.ok(events.findIndex((e) => e === said) < events.findIndex((e) => e.type === 'ended'), 'told before the end');

    const spans = exporter.getFinishedSpans();
    const reply = spans.find((s) => s.name === 'hiwar.reply' && s.attributes['hiwar.reply.line'] === 'out_of_service');
    assert.ok(reply, `a reply span for the line: ${spans.map((s) => s.name).join(', ')}`);
    assert.equal(reply.attributes['hiwar.reply.heard_chars'], line.length);

    assert.ok(seenLive.some((c) => c.callId === 'CA-empty' && c.fixedLine === 'out_of_service' && c.lastAgentLine === line), 'the live view showed the line as it played');

    // What the call met counts as the check: refused, said, and still ready.
    const ready = await fetch(`${url}/readyz`, { headers: { connection: 'close' } });
    const body = (await ready.json()) as { status: string; degraded?: string[]; service?: { status: string; via: string } };
    assert.deepEqual([ready.status, body.status, body.degraded, body.service?.status, body.service?.via], [200, 'degraded', ['service refused'], 'refused', 'call']);
  } finally {
    await app.close();
    clock.stop();
    await sandbox.close();
  }
});

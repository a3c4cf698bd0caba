/**
 * A drain out of time: the calls still running are ended with their closing line (the agent's
 * out-of-service line) before the hang-up, not cut off mid-sentence; a line that is never heard
 * holds the shutdown `DRAIN_DEFAULTS.closingLineMaxMs` at most. First on the call manager with
 * sessions of its interface, then end to end: a pcm caller on a real server and the embedded
 * sandbox hears the line's audio after the drain's time is up.
 */
import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import WebSocket from 'ws';
import { Subject } from '../../src/rx.ts';
import callCentre from '../../agents/call-centre/index.ts';
import { CallManager, DRAIN_DEFAULTS, type RunningSession } from '../../src/server/calls.ts';
import { createAgentServer, type ServerEvent } from '../../src/server/index.ts';
import { ServerMetrics } from '../../src/server/metrics.ts';
import type { Agent } from '../../src/session/agent.ts';
import type { CallReport, SessionEvent } from '../../src/session/events.ts';
import { createLogger } from '../../src/session/logger.ts';
import type { Transport } from '../../src/transport/types.ts';
import { telephonyRoutes } from '../../transports/telephony/index.ts';
import { waitFor } from './phone.ts';

// The embedded sandbox, never a key from the developer's shell.
delete process.env.HIWAR_API_KEY;

/** A session of the manager's interface that records how it was ended; `lineHangs`: its line never ends. */
function fakeSession(steps: string[], lineHangs: boolean): RunningSession {
  const events$ = new Subject<SessionEvent>();
  let ended!: () => void;
  const done = new Promise<void>((r) => (ended = r));
  return {
    events$,
    run: async () => (await done, { ended: 'server shutting down', turns: [] } as unknown as CallReport),
    end: async (reason) => {
      steps.push(`end: ${reason}`);
      events$.complete();
      ended();
    },
    endWithLine: (reason) => {
      steps.push(`line: ${reason}`);
      return lineHangs ? new Promise<void>(() => {}) : Promise.resolve();
    },
  };
}

const transport = (callId: string) => ({ call: { provider: 'pcm', callId }, output: { close: async () => {} } }) as unknown as Transport;

test('a drain out of time ends each call with its closing line, then the hang-up; a line never heard holds it closingLineMaxMs at most', async () => {
  mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 1_000_000 });
  try {
    const steps: Record<string, string[]> = { quick: [], stuck: [] };
    const metrics = new ServerMetrics();
    const calls = new CallManager({
      sessions: (t) => fakeSession(steps[t.call.callId]!, t.call.callId === 'stuck'),
      metrics,
      logger: createLogger('silent'),
      publicUrl: () => 'http://127.0.0.1',
    });
    const running = [calls.runCall(transport('quick')), calls.runCall(transport('stuck'))];
    const settle = async () => {
      for (let i = 0; i < 10; i++) await new Promise((r) => setImmediate(r));
    };
    await settle();
    let drained = false;
    const drain = calls.drain(1000).then(() => (drained = true));
    await settle();
    mock.timers.tick(1000);
    await settle();
    assert.deepEqual(steps.quick, ['line: server shutting down', 'end: server shutting down'], 'the line first, then the end');
    assert.deepEqual(steps.stuck, ['line: server shutting down'], 'its line is still playing');
    assert.equal(drained, false);
    mock.timers.tick(DRAIN_DEFAULTS.closingLineMaxMs);
    await settle();
    assert.deepEqual(steps.stuck, ['line: server shutting down', 'end: server shutting down'], 'ended once the line had its time');
    await drain;
    assert.equal(drained, true);
    assert.deepEqual(await Promise.all(running), ['server-shutdown', 'server-shutdown'], 'ended by the server, not completed');
    const counted = await metrics.text();
    assert.match(counted, /hiwar_calls_total\{provider="pcm",outcome="server-shutdown"\} 2\b/);
    assert.doesNotMatch(counted, /outcome="completed"/);
  } finally {
    mock.timers.reset();
  }
});

test('end to end: a caller still on when the drain runs out hears the out-of-service line, then is hung up', async () => {
  const MEDIA_TOKEN = 'drain-test-media-token-0123456789';
  // The greeting off, so the call is only listening when the drain's time is up.
  const agent: Agent = { ...callCentre, greeting: undefined, voice: { ...callCentre.voice, firstAudioTimeoutMs: 20_000 } };
  const told: SessionEvent[] = [];
  const app = await createAgentServer({
    agent,
    plugins: [telephonyRoutes({ mediaToken: MEDIA_TOKEN })],
    logger: createLogger('silent'),
    wrapSessions: (inner) => async (t) => {
      const s = await inner(t);
      s.events$.subscribe((e) => told.push(e));
      return s;
    },
  });
  const events: ServerEvent[] = [];
  app.events$.subscribe((e) => events.push(e));
  const { url } = await app.listen({ port: 0 });
  const ws = new WebSocket(`${url.replace('http', 'ws')}/telephony/pcm?rate=16000&marks=0&call_id=drained&token=${MEDIA_TOKEN}`);
  let agentBytes = 0;
  const hangups: string[] = [];
  ws.on('message', (data, binary) => {
    if (binary) agentBytes += (data as Buffer).length;
    else if ((JSON.parse(String(data)) as { type?: string }).type === 'hangup') hangups.push(String(data));
  });
  const closed = new Promise<void>((r) => ws.once('close', () => r()));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  // A phone line never stops sending: 20 ms of silence every 20 ms.
  const silence = setInterval(() => ws.readyState === ws.OPEN && ws.send(Buffer.alloc(640)), 20);
  try {
    await waitFor(() => events.some((e) => e.type === 'call_started'), 'the call started');
    assert.equal(agentBytes, 0, 'no greeting: nothing said before the drain');
    await app.drain(300);
    await closed;
    const ended = events.find((e): e is Extract<ServerEvent, { type: 'call_ended' }> => e.type === 'call_ended');
    assert.ok(ended, 'the call ended');
    assert.equal(ended.report?.ended, 'server shutting down');
    assert.equal(ended.outcome, 'server-shutdown', 'counted apart from the calls that completed');
    const said = ended.report?.turns.filter((t) => t.role === 'agent').map((t) => t.text);
    assert.deepEqual(said, [agent.outOfServiceLine], 'the closing line is in the report as said');
    // And in the events, as any line the caller hears, named a closing line (not out of service).
    const lines = told.filter((e) => (e.type === 'reply_started' || e.type === 'agent_turn') && e.line).map((e) => [e.type, 'line' in e ? e.line : undefined]);
    assert.deepEqual(lines, [['reply_started', 'closing'], ['agent_turn', 'closing']]);
    assert.ok(!events.some((e) => e.type === 'out_of_service') && !told.some((e) => e.type === 'out_of_service'), 'a drain is no service failure');
    // The line's audio reached the caller: about its length in PCM16 at 16 kHz (a second at least).
    assert.ok(agentBytes >= 32_000, `the caller got ${agentBytes} bytes of the line`);
    assert.deepEqual(hangups.map((h) => JSON.parse(h)), [{ type: 'hangup', reason: 'server shutting down' }], 'then the hang-up');
  } finally {
    clearInterval(silence);
    ws.terminate();
  }
});

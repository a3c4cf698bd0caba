/**
 * A server user sees the tools of every call without wiring each session: `createAgentServer`'s
 * `events$` carries `tool_started`, `tool` and `tool_late` with the call they belong to, and the
 * live view lists the tool running now. A tool given up (past its `timeoutMs`) that answers once
 * the call has ended is still seen: a `tool_late` with `afterEnd` on `events$`, counted in
 * `hiwar_tool_late_results_total`, and its debug line (the session's `events$` had completed, so
 * it went nowhere). Through `createAgentServer` with the telephony routes and a Twilio far end
 * that keys `1#`; the model is a fake speaking the LLM contract (a tool call, then a sentence).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { defineTool, type Llm, type LlmRequest, type LlmEvent } from '../../src/llm/index.ts';
import { LiveCalls, type LiveCall } from '../../src/observability/live-calls.ts';
import { createAgentServer, type ServerEvent } from '../../src/server/index.ts';
import type { Agent } from '../../src/session/agent.ts';
import { createLogger } from '../../src/session/logger.ts';
import { realClock } from '../../src/transport/clock.ts';
import { telephonyRoutes } from '../../transports/telephony/index.ts';
import { runSandbox } from '../helpers/sandbox.ts';
import { FarEnd } from '../telephony/far-end.ts';
import { waitFor } from '../telephony/serve.ts';
import { twilioProtocol } from '../telephony/twilio-protocol.ts';

/** A model that calls `check_order` for the caller's keys, then says one sentence once the tool round is back. */
const model: Llm = {
  name: 'fake-tools',
  async *stream(req: LlmRequest): AsyncIterable<LlmEvent> {
    if (req.messages.at(-1)?.role === 'tool') yield { type: 'text', delta: 'تعذّر التحقق من طلبك الآن.' };
    else yield { type: 'tool_calls', calls: [{ id: 'call_order_1', name: 'check_order', arguments: '{"order":"1"}' }] };
  },
};

test("createAgentServer's events$ carries each call's tool events with the call; the live view lists the tool running; a late answer after the call ended is still told, counted and logged", async () => {
  const sandbox = await runSandbox();
  const clock = realClock();
  // The backend answers when the test says: after the call has ended.
  let answer!: (v: unknown) => void;
  const backend = new Promise((r) => (answer = r));
  const checkOrder = defineTool({ name: 'check_order', description: 'an order', parameters: z.object({ order: z.string() }), timeoutMs: 300, filler: false, execute: () => backend });
  const agent: Agent = { name: 'orders', instructions: 'أجب عن الطلبات.', voice: { voice_id: 'ar-hijazi-female-1' }, outOfServiceLine: 'الخدمة غير متاحة.', tools: [checkOrder] };
  const live = new LiveCalls();
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('debug', { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) } as never);
  const app = await createAgentServer({ agent, llm: model, client: sandbox.client, clock, open: true, logger, plugins: [telephonyRoutes({ media: { clock } })], wrapSessions: (inner) => live.sessions(inner) });
  const server: ServerEvent[] = [];
  // What the live view listed when the server told each tool event (its subscription came first).
  const seen = new Map<string, LiveCall | undefined>();
  app.events$.subscribe((e) => {
    server.push(e);
    if (e.type === 'tool_started' || e.type === 'tool') seen.set(e.type, live.list().find((c) => c.callId === 'CA-tools'));
  });
  const { url } = await app.listen({ port: 0 });
  try {
    const res = await fetch(`${url}/telephony/twilio`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'CallSid=CA-tools' });
    const streamUrl = /<Stream url="([^"]+)"/.exec(await res.text())![1]!.replace(/&amp;/g, '&');
    const far = new FarEnd(streamUrl, twilioProtocol('CA-tools'), clock);
    await far.start();
    // Keys pressed once the call is up (the session listens to them from then on).
    await waitFor(() => live.list().some((c) => c.callId === 'CA-tools' && c.state === 'listening'), 'the call up');
    far.dtmf('1');
    far.dtmf('#');
    await waitFor(() => server.some((e) => e.type === 'tool'), 'the tool given up after its timeoutMs', 30_000, () => JSON.stringify([server.map((e) => e.type), lines.map((l) => l.msg)]));
    far.hangup();
    await waitFor(() => app.activeCalls === 0, 'the call ended');
    assert.ok(!server.some((e) => e.type === 'tool_late'), 'nothing late yet: the backend has not answered');

    answer({ status: 'shipped' });
    await waitFor(() => server.some((e) => e.type === 'tool_late'), 'the late answer told after the call');

    const started = server.find((e) => e.type === 'tool_started');
    assert.ok(started?.type === 'tool_started');
    assert.deepEqual([started.call.callId, started.name, started.callId, started.args], ['CA-tools', 'check_order', 'call_order_1', { order: '1' }]);
    const finished = server.find((e) => e.type === 'tool');
    assert.ok(finished?.type === 'tool');
    assert.equal(finished.call.callId, 'CA-tools');
    assert.match(finished.outcome.error ?? '', /300 ms/, 'given up at its timeoutMs');
    assert.equal(finished.reply, started.reply);
    const late = server.find((e) => e.type === 'tool_late');
    assert.ok(late?.type === 'tool_late');
    assert.deepEqual([late.call.callId, late.name, late.callId, late.reason, late.failed, late.afterEnd, late.reply], ['CA-tools', 'check_order', 'call_order_1', 'timeout', false, true, started.reply]);
    assert.ok(server.findIndex((e) => e.type === 'call_ended') < server.indexOf(late), 'told after the call ended');

    assert.match(await app.metrics.text(), /^hiwar_tool_late_results_total\{reason="timeout"\} 1$/m);
    const logged = lines.filter((l) => l.msg === 'tool answered after it was given up, once the call had ended');
    assert.deepEqual(logged.map((l) => [l.call, l.tool, l.afterEnd, l.level]), [['CA-tools', 'check_order', true, 20]]);

    // The live view while the tool ran: its name, since when; gone once it finished.
    const running = seen.get('tool_started')?.tools;
    assert.deepEqual(running?.map((t) => [t.name, t.callId, t.reply]), [['check_order', 'call_order_1', started.reply]]);
    assert.ok(Math.abs(Date.parse(running![0]!.since) - Date.now()) < 120_000, `an ISO time: ${running![0]!.since}`);
    assert.equal(seen.get('tool')?.tools, undefined, 'no tool running once it finished');
  } finally {
    await app.close();
    await sandbox.close();
  }
});

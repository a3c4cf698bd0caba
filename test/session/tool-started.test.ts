// A tool call is told when it starts, not only when it ends: a `tool_started` session event with
// the tool's name, the model's call id and the arguments as parsed, before the tool runs, with the
// number of the reply that called it; the trace's hiwar.tool span starts there. Before, the session
// told a tool only by its `tool` event, once it had finished.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { z } from 'zod';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { defineTool } from '../../src/llm/index.ts';
import { CallTrace } from '../../src/observability/call-trace.ts';
import { debugRecord } from '../../src/session/debug-log.ts';
import type { Agent } from '../../src/session/agent.ts';
import type { SessionEvent } from '../../src/session/events.ts';
import { runCall, startTestSandbox, type TestSandbox } from '../../src/testing/index.ts';
import { within } from '../helpers/deadline.ts';

let sandbox: TestSandbox;
before(async () => (sandbox = await startTestSandbox({ progress: false })));
after(() => sandbox.close());

test('a tool call: tool_started (name, call id, parsed args, reply) is told before the tool runs, then its tool event', async () => {
  const seen: SessionEvent[] = [];
  let startedBeforeRun: boolean | undefined;
  const balance = defineTool({
    name: 'get_balance',
    description: 'the balance of an account',
    parameters: z.object({ account: z.string() }),
    execute: async ({ account }) => {
      startedBeforeRun = seen.some((e) => e.type === 'tool_started' && e.name === 'get_balance');
      return { account, balance: 1000 };
    },
  });
  const agent: Agent = {
    name: 'desk', instructions: '', greeting: 'أهلًا بك.', voice: { voice_id: 'ar-hijazi-female-1' }, outOfServiceLine: 'الخدمة غير متاحة.',
    tools: [balance],
    intents: [{ name: 'balance', examples: ['كم رصيدي'], tool: { name: 'get_balance', args: () => ({ account: '4417' }) }, reply: 'رصيدك ألف ريال.' }],
  };
  const call = await within(runCall(agent, [{ say: 'كم رصيدي' }, { hangup: true }], { sandbox, progress: false, onEvent: (e) => seen.push(e) }), 60_000, 'the call to end');
  assert.equal(startedBeforeRun, true, 'tool_started was told before the tool ran');
  const started = call.events.filter((e) => e.type === 'tool_started');
  const finished = call.events.filter((e) => e.type === 'tool');
  assert.equal(started.length, 1);
  assert.equal(finished.length, 1);
  const [s, f] = [started[0]!, finished[0]!];
  assert.deepEqual([s.name, s.args], ['get_balance', { account: '4417' }]);
  assert.ok(s.callId, 'the model gave an id');
  assert.equal(s.callId, f.outcome.call.id, 'the same call as its tool event');
  assert.equal(s.reply, f.reply, 'the reply that called it');
  assert.ok(call.events.indexOf(s) < call.events.indexOf(f));
  // The debug line names the tool, not what the caller gave it.
  const line = debugRecord(s);
  assert.equal(line?.message, 'tool started');
  assert.equal(JSON.stringify(line).includes('4417'), false);
});

test("the trace: a tool's hiwar.tool span starts at its tool_started, on the call's clock", () => {
  const exporter = new InMemorySpanExporter();
  const tracer = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }).getTracer('hiwar');
  const T0 = Date.UTC(2026, 0, 1);
  let now = T0;
  const t = new CallTrace({ call: { callId: 'c1', provider: 'pcm', parameters: {} }, tracer, now: () => now });
  const at = (ms: number, e: SessionEvent) => ((now = T0 + ms), t.onEvent(e));
  at(0, { type: 'user_turn', text: 'كم رصيدي', turn: 1 });
  at(10, { type: 'reply_started', reply: 1, turn: 1 });
  at(300, { type: 'tool_started', name: 'get_balance', callId: 'call_1', args: {}, reply: 1 });
  // Its wall time (50 ms) says less than the call's clock saw (a slower clock, or time queued).
  at(900, { type: 'tool', outcome: { call: { id: 'call_1', name: 'get_balance', arguments: '{}' }, result: 1, ms: 50 }, reply: 1 });
  at(1500, { type: 'agent_turn', text: 'رصيدك.', heardText: 'رصيدك.', interrupted: false, reply: 1 });
  t.end(now);
  const span = exporter.getFinishedSpans().find((s) => s.name === 'hiwar.tool')!;
  const ms = ([sec, ns]: [number, number]) => sec * 1000 + ns / 1e6 - T0;
  assert.deepEqual([ms(span.startTime), ms(span.endTime)], [300, 900]);
});

// A tool given up (past its deadline, or with its reply cut off) that answers later is no longer
// dropped unseen: the session tells a `tool_late` event (the tool, how late, timed out or
// abandoned, whether it failed) with one debug log line, so an operator sees a backend that
// answers too late. A tool that never answers tells nothing.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { z } from 'zod';
import { setTimeout as sleep } from 'node:timers/promises';
import { ScriptedLlm, defineTool, streamReply, type LateToolResult, type Tool } from '../../src/llm/index.ts';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { CallTrace } from '../../src/observability/call-trace.ts';
import { debugRecord } from '../../src/session/debug-log.ts';
import { createLogger } from '../../src/session/logger.ts';
import type { Agent } from '../../src/session/agent.ts';
import { runCall, startTestSandbox, type TestSandbox } from '../../src/testing/index.ts';
import { within } from '../helpers/deadline.ts';

const intents = [{ name: 'stuck', examples: ['كم رصيدي'], tool: { name: 'slow', args: () => ({}) }, reply: 'رصيدك ألف ريال.' }];

/** One reply to 'كم رصيدي' calling `tool`; the late results told, once `waitMs` has passed after it. */
async function lateOf(tool: Tool, abortOnStart = false, waitMs = 400): Promise<LateToolResult[]> {
  const llm = new ScriptedLlm({ intents, fallback: '؟', tokenDelayMs: 1, firstTokenDelayMs: 1 });
  const late: LateToolResult[] = [];
  const ac = new AbortController();
  // The deadline's timers are unref'd (a server's sockets keep the process up): this one does here.
  const alive = setInterval(() => {}, 1000);
  const drained = (async () => {
    for await (const e of streamReply(llm, [{ role: 'user', content: 'كم رصيدي' }], [tool], ac.signal, { toolFiller: false, onLateResult: (l) => late.push(l) })) {
      if (abortOnStart && e.type === 'tool_started') setImmediate(() => ac.abort(new Error('barge-in')));
    }
  })().catch((err: unknown) => {
    if (!ac.signal.aborted) throw err;
  });
  await within(drained, 10_000, 'the reply to end');
  assert.deepEqual(late, [], 'nothing late while the reply ran');
  await sleep(waitMs);
  clearInterval(alive);
  return late;
}

test('a tool past its timeoutMs that answers later: its late result is told (name, call id, how late, timed out)', async () => {
  const tool = defineTool({ name: 'slow', description: 'answers after 250 ms', parameters: z.object({}), timeoutMs: 50, execute: async () => (await sleep(250), { balance: 1 }) });
  const late = await lateOf(tool);
  assert.equal(late.length, 1);
  const [l] = late;
  assert.deepEqual([l!.call.name, l!.reason, l!.failed], ['slow', 'timeout', false]);
  assert.ok(l!.call.id, 'the call, with the id the model gave it');
  assert.ok(l!.lateMs > 0 && l!.lateMs < 10_000, `how late: ${l!.lateMs} ms`);
});

test('a tool abandoned with its reply that throws later: told as abandoned and failed', async () => {
  const tool = defineTool({ name: 'slow', description: 'fails after 150 ms', parameters: z.object({}), timeoutMs: false, execute: async () => (await sleep(150), Promise.reject(new Error('backend down'))) });
  const late = await lateOf(tool, true);
  assert.deepEqual(late.map((l) => [l.call.name, l.reason, l.failed]), [['slow', 'abandoned', true]]);
});

test('a tool that never answers tells nothing late', async () => {
  const tool = defineTool({ name: 'slow', description: 'never answers', parameters: z.object({}), timeoutMs: 50, execute: () => new Promise<never>(() => {}) });
  assert.deepEqual(await lateOf(tool, false, 200), []);
});

test('the tool_late event has a debug line: the tool and how late', () => {
  const line = debugRecord({ type: 'tool_late', name: 'get_balance', callId: 'call_1', lateMs: 1234, reason: 'timeout', failed: false, reply: 2 });
  assert.equal(line?.message, 'tool answered after it was given up');
  assert.deepEqual([line?.fields.tool, line?.fields.lateMs, line?.fields.reason], ['get_balance', 1234, 'timeout']);
});

test("the trace: a late answer is a tool.late event on the call's span (the tool, how late, why it was given up)", () => {
  const exporter = new InMemorySpanExporter();
  const tracer = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] }).getTracer('hiwar');
  const t = new CallTrace({ call: { callId: 'c1', provider: 'pcm', parameters: {} }, tracer, now: () => Date.UTC(2026, 0, 1) });
  t.onEvent({ type: 'tool_late', name: 'get_balance', callId: 'call_1', lateMs: 4200, reason: 'timeout', failed: false, reply: 1 });
  t.end(Date.UTC(2026, 0, 1) + 1000);
  const call = exporter.getFinishedSpans().find((s) => s.name === 'hiwar.call')!;
  const late = call.events.find((e) => e.name === 'tool.late');
  assert.deepEqual(late?.attributes, { 'hiwar.tool.name': 'get_balance', 'hiwar.tool.late_ms': 4200, 'hiwar.tool.late_reason': 'timeout', 'hiwar.tool.error': false });
});

let sandbox: TestSandbox;
before(async () => (sandbox = await startTestSandbox({ progress: false })));
after(() => sandbox.close());

test('a call whose tool answers after its deadline: a tool_late event after its tool event, same reply, and one debug line', async () => {
  const slow = defineTool({ name: 'slow', description: 'answers after 1.5 s', parameters: z.object({}), timeoutMs: 300, execute: async () => (await sleep(1500), { balance: 1 }) });
  const agent: Agent = {
    name: 'late-desk', instructions: '', greeting: 'أهلًا بك، كيف أخدمك؟', voice: { voice_id: 'ar-hijazi-female-1' }, outOfServiceLine: 'الخدمة غير متاحة.',
    tools: [slow], intents,
  };
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('debug', { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) } as never);
  const call = await within(runCall(agent, [{ say: 'كم رصيدي' }, { hangup: true, pauseMs: 15_000 }], { sandbox, progress: false, logger }), 60_000, 'the call to end');
  const tool = call.events.find((e) => e.type === 'tool');
  const late = call.events.find((e) => e.type === 'tool_late');
  assert.ok(tool && late, `a tool and a tool_late event: ${call.events.map((e) => e.type).join(' ')}`);
  assert.deepEqual([late.name, late.reason, late.failed, late.callId, late.reply], ['slow', 'timeout', false, tool.outcome.call.id, tool.reply]);
  assert.ok(call.events.indexOf(tool) < call.events.indexOf(late));
  const logged = lines.filter((l) => l.msg === 'tool answered after it was given up');
  assert.equal(logged.length, 1);
  assert.deepEqual([logged[0]!.tool, logged[0]!.level, typeof logged[0]!.lateMs], ['slow', 20, 'number']);
});

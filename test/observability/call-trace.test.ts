import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { CallTrace } from '../../src/observability/call-trace.ts';
import { formatTraceparent, parseTraceparent } from '../../src/observability/trace-context.ts';
import { traceSessions, tracingActive } from '../../src/observability/trace-sessions.ts';
import type { SessionEvent } from '../../src/session/events.ts';
import { call } from '../helpers/call.ts';
import { runSandbox, type Running } from '../helpers/sandbox.ts';

let sb: Running;
before(async () => {
  sb = await runSandbox();
});
after(() => sb.close());

function tracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  return { exporter, tracer: provider.getTracer('hiwar'), provider };
}

const id = (s: ReadableSpan) => s.spanContext().spanId;
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;
const ms = ([sec, ns]: [number, number]) => sec * 1000 + ns / 1e6;
const start = (s: ReadableSpan) => ms(s.startTime);
const end = (s: ReadableSpan) => ms(s.endTime);
const children = (spans: ReadableSpan[], p: ReadableSpan, name?: string) => spans.filter((s) => parentOf(s) === id(p) && (!name || s.name === name));

/** A call's trace fed by hand: `at(ms, event)` on a clock from T0; span times read back in ms from T0. */
function timedTrace(callId: string) {
  const { exporter, tracer } = tracing();
  // Epoch milliseconds (OpenTelemetry reads small numbers as performance.now() instead).
  const T0 = Date.UTC(2026, 0, 1);
  let now = T0;
  const t = new CallTrace({ call: { callId, provider: 'pcm', parameters: {} }, tracer, now: () => now });
  return {
    exporter,
    at: (at: number, e: SessionEvent) => ((now = T0 + at), t.onEvent(e)),
    start: (s: ReadableSpan) => ms(s.startTime) - T0,
    end: (s: ReadableSpan) => ms(s.endTime) - T0,
  };
}

function inside(child: ReadableSpan, parent: ReadableSpan): void {
  assert.ok(start(child) >= start(parent) && end(child) <= end(parent), `${child.name} [${start(child)}, ${end(child)}] inside ${parent.name} [${start(parent)}, ${end(parent)}]`);
}

test('a whole call as one trace: call → turns → reply → model, synthesis, playout and the tool, in time order', async () => {
  const { exporter, tracer } = tracing();
  const traceId = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';
  const parent = `00-${traceId}-00f067aa0ba902b7-01`;
  const events: SessionEvent[] = [];
  const c = await call(sb.client, [{ say: 'أريد معرفة رصيد حسابي' }], {
    onSession: (session) => {
      const clock = (session as unknown as { clock: { now(): number } }).clock;
      const t = new CallTrace({ call: { ...session.call, parameters: { ...session.call.parameters, traceparent: parent, requestId: 'req-42' } }, agent: session.agent.name, tracer, now: () => clock.now() });
      session.events$.subscribe((e) => (events.push(e), t.onEvent(e)));
    },
  });
  assert.ok(c.report.turns.some((t) => t.role === 'agent' && /12,500/.test(t.text)), 'the balance was said');
  const spans = exporter.getFinishedSpans();
  const root = spans.filter((s) => s.name === 'hiwar.call');
  assert.equal(root.length, 1, 'one call span');
  const callSpan = root[0]!;
  assert.ok(spans.every((s) => s.spanContext().traceId === traceId), 'every span in the webhook request’s trace');
  assert.equal(parentOf(callSpan), '00f067aa0ba902b7', 'the call is the traceparent’s child');
  assert.equal(callSpan.attributes['hiwar.request_id'], 'req-42');
  assert.equal(typeof callSpan.attributes['hiwar.call.id'], 'string');
  assert.ok(callSpan.attributes['hiwar.call.end_reason'], 'why the call ended');

  // The greeting: a line reply right under the call, synthesized and played, no model.
  const lines = children(spans, callSpan, 'hiwar.reply');
  assert.equal(lines.length, 1, 'the greeting is the one reply outside a turn');
  assert.equal(lines[0]!.attributes['hiwar.reply.kind'], 'line');
  assert.equal(children(spans, lines[0]!, 'hiwar.llm').length, 0, 'a fixed line asks no model');
  assert.ok(children(spans, lines[0]!, 'hiwar.tts').length >= 1);
  // Its latencies (the `line_metrics` event) on its spans, as a turn's are on its own.
  const lineMetrics = events.find((e) => e.type === 'line_metrics');
  assert.ok(lineMetrics?.type === 'line_metrics' && lineMetrics.metrics.lineToVoiceMs !== undefined);
  assert.equal(lines[0]!.attributes['hiwar.line_to_voice_ms'], lineMetrics.metrics.lineToVoiceMs);
  const lineTts = children(spans, lines[0]!, 'hiwar.tts').sort((a, b) => start(a) - start(b));
  assert.equal(lineTts[0]!.attributes['hiwar.tts.first_audio_ms'], lineMetrics.metrics.ttsFirstAudioMs);
  assert.ok(lineTts[0]!.events.some((e) => e.name === 'first_audio'));
  assert.equal(children(spans, lines[0]!, 'hiwar.playout')[0]?.attributes['hiwar.playout.start_ms'], lineMetrics.metrics.playoutStartMs);

  const turns = children(spans, callSpan, 'hiwar.turn');
  assert.equal(turns.length, 1, 'one caller turn');
  const turn = turns[0]!;
  inside(turn, callSpan);
  const replies = children(spans, turn, 'hiwar.reply');
  assert.equal(replies.length, 1);
  const reply = replies[0]!;
  inside(reply, turn);
  const [llm] = children(spans, reply, 'hiwar.llm');
  const tts = children(spans, reply, 'hiwar.tts').sort((a, b) => start(a) - start(b));
  const [playout] = children(spans, reply, 'hiwar.playout');
  const tools = children(spans, reply, 'hiwar.tool');
  assert.ok(llm && playout && tts.length >= 1, `model, synthesis and playout spans under the reply: ${children(spans, reply).map((s) => s.name)}`);
  for (const s of [llm, playout, ...tts, ...tools]) inside(s, reply);
  assert.deepEqual(tools.map((t) => t.attributes['hiwar.tool.name']), ['get_balance']);
  assert.ok(start(llm) <= start(tools[0]!) && end(tools[0]!) <= start(tts[0]!), 'the model asked for the tool, which ran before anything was synthesized');
  assert.ok(start(llm) < start(tts[0]!), 'the model before synthesis');
  assert.ok(start(tts[0]!) <= start(playout), 'synthesis before playout');
  for (let i = 1; i < tts.length; i++) assert.ok(start(tts[i - 1]!) <= start(tts[i]!) && end(tts[i - 1]!) <= start(tts[i]!) + 1e-6, 'chunks in order');
  assert.equal(typeof llm.attributes['hiwar.llm.first_token_ms'], 'number', 'time to first token');
  assert.ok(llm.events.some((e) => e.name === 'first_token'));
  assert.equal(typeof tts[0]!.attributes['hiwar.tts.first_audio_ms'], 'number', 'time to first audio');
  assert.ok(tts[0]!.events.some((e) => e.name === 'first_audio'));
  assert.equal(typeof reply.attributes['hiwar.voice_to_voice_ms'], 'number');
  // What the trace says matches what the session measured.
  const m = events.find((e) => e.type === 'metrics');
  assert.ok(m && m.type === 'metrics');
  assert.equal(llm.attributes['hiwar.llm.first_token_ms'], m.metrics.llmFirstTokenMs);
  // Nothing the caller said, and never the key.
  const values = spans.flatMap((s) => [...Object.values(s.attributes), ...s.events.flatMap((e) => Object.values(e.attributes ?? {})), s.status.message ?? '']).map(String);
  assert.ok(values.every((v) => !v.includes(sb.key)), 'no attribute carries the service key');
  assert.ok(values.every((v) => !v.includes('رصيد')), 'no attribute carries the caller’s words');
});

test('reconnects and failures: a span each, the fatal one marks the call', () => {
  const { exporter, tracer } = tracing();
  let now = 1_000;
  const t = new CallTrace({ call: { callId: 'c1', provider: 'twilio', parameters: {} }, tracer, now: () => now });
  const feed = (e: SessionEvent, ms = 10) => ((now += ms), t.onEvent(e));
  feed({ type: 'reconnect', service: 'stt', phase: 'reconnecting', attempt: 1 });
  // The notice beside it is for people: its words start nothing.
  feed({ type: 'notice', message: 'speech recognition reconnecting (attempt 1, close 1006)' }, 0);
  feed({ type: 'reconnect', service: 'stt', phase: 'reconnected' }, 200);
  feed({ type: 'notice', message: 'speech recognition reconnecting (attempt 7, close 1006)' });
  feed({ type: 'reconnect', service: 'stt', phase: 'reconnecting', attempt: 1 }, 0);
  feed({ type: 'error', source: 'agent', kind: 'tool', tool: 'get_balance', message: "the agent's code threw an error (tool get_balance)", fatal: false });
  feed({ type: 'error', source: 'stt', kind: 'network', message: 'speech recognition failed', fatal: true });
  feed({ type: 'ended', reason: 'out of service: speech recognition failed' });
  const spans = exporter.getFinishedSpans();
  const reconnects = spans.filter((s) => s.name === 'hiwar.reconnect');
  assert.equal(reconnects.length, 2);
  assert.equal(end(reconnects[0]!) - start(reconnects[0]!), 200, 'the reconnect lasted until recognition was back');
  assert.equal(reconnects[0]!.status.code, 0);
  assert.deepEqual(reconnects.map((r) => r.attributes['hiwar.reconnect.attempt']), [1, 1], 'the attempt from the event, not the notice');
  assert.equal(reconnects[1]!.status.code, 2, 'the one that never came back is an error');
  const [toolFailure, failure] = spans.filter((s) => s.name === 'hiwar.failure');
  // A tool that threw is filterable by kind and by the tool's name.
  assert.deepEqual([toolFailure!.attributes['hiwar.failure.kind'], toolFailure!.attributes['hiwar.failure.tool']], ['tool', 'get_balance']);
  assert.equal(failure!.attributes['hiwar.failure.source'], 'stt');
  assert.equal(failure!.attributes['hiwar.failure.tool'], undefined);
  assert.equal(failure!.attributes['hiwar.failure.fatal'], true);
  const callSpan = spans.find((s) => s.name === 'hiwar.call')!;
  assert.equal(callSpan.status.code, 2);
  assert.ok(spans.filter((s) => s !== callSpan).every((s) => parentOf(s) === id(callSpan)));
  assert.equal(parentOf(callSpan), undefined, 'no traceparent: a trace of its own');
});

test('a reply dropped (cut by the call going out of service before a word was heard) ends its span then, marked, and the line after it has its own', () => {
  const { exporter, at, end } = timedTrace('c-dropped');
  at(0, { type: 'user_turn', text: 'أين طلبي', turn: 1 });
  at(10, { type: 'reply_started', reply: 2, turn: 1 });
  at(300, { type: 'error', source: 'stt', kind: 'balance', message: 'speech recognition stopped: the wallet is empty (close 1008)', fatal: true });
  at(320, { type: 'reply_dropped', reply: 2, reason: 'out of service: speech recognition stopped: the wallet is empty (close 1008)' });
  at(330, { type: 'reply_started', reply: 3, line: 'out_of_service' });
  at(4_000, { type: 'agent_turn', text: 'نعتذر', heardText: 'نعتذر', interrupted: false, reply: 3, line: 'out_of_service' });
  at(4_100, { type: 'ended', reason: 'out of service: speech recognition stopped: the wallet is empty (close 1008)' });
  const replies = exporter.getFinishedSpans().filter((s) => s.name === 'hiwar.reply');
  assert.deepEqual(replies.map((r) => [r.attributes['hiwar.reply.kind'], r.attributes['hiwar.reply.dropped'], end(r)]), [['turn', true, 320], ['line', undefined, 4_000]]);
});

test('the apology after a model failure, known as a fixed line only once said, names its reply span (hiwar.reply.line)', () => {
  const { exporter, at } = timedTrace('c-apology');
  at(0, { type: 'user_turn', text: 'أين طلبي', turn: 1 });
  at(10, { type: 'reply_started', reply: 2, turn: 1 });
  at(900, { type: 'agent_chunk', text: 'عذرًا', reply: 2, line: 'model_error' });
  at(2_000, { type: 'agent_turn', text: 'عذرًا', heardText: 'عذرًا', interrupted: false, reply: 2, line: 'model_error' });
  at(2_000, { type: 'metrics', metrics: { interrupted: false }, reply: 2 });
  at(2_100, { type: 'ended', reason: 'caller hung up' });
  const reply = exporter.getFinishedSpans().find((s) => s.name === 'hiwar.reply')!;
  assert.deepEqual([reply.attributes['hiwar.reply.kind'], reply.attributes['hiwar.reply.line']], ['turn', 'model_error']);
});

test("a model that failed marks its own hiwar.llm span ERROR, as a tool that threw marks its hiwar.tool span", () => {
  const { exporter, tracer } = tracing();
  let now = 1_000;
  const t = new CallTrace({ call: { callId: 'c1', provider: 'twilio', parameters: {} }, tracer, now: () => now });
  const feed = (e: SessionEvent, ms = 10) => ((now += ms), t.onEvent(e));
  feed({ type: 'user_turn', text: 'كم رصيدي', turn: 1 });
  feed({ type: 'reply_started', reply: 1, turn: 1 });
  feed({ type: 'error', source: 'llm', kind: 'network', message: 'the language model could not be reached', fatal: false }, 400);
  feed({ type: 'agent_chunk', text: 'عذرًا، حدث خلل مؤقت.', reply: 1 });
  feed({ type: 'agent_turn', text: 'عذرًا، حدث خلل مؤقت.', heardText: 'عذرًا، حدث خلل مؤقت.', interrupted: false, reply: 1 }, 1000);
  feed({ type: 'metrics', metrics: { interrupted: false, kind: 'spoken', voiceToVoiceMs: 800, llmFirstTokenMs: 400 } as never }, 0);
  feed({ type: 'user_turn', text: 'شكرا', turn: 2 });
  feed({ type: 'reply_started', reply: 2, turn: 2 });
  feed({ type: 'agent_chunk', text: 'العفو.', reply: 2 });
  feed({ type: 'agent_turn', text: 'العفو.', heardText: 'العفو.', interrupted: false, reply: 2 }, 500);
  feed({ type: 'metrics', metrics: { interrupted: false, kind: 'spoken', voiceToVoiceMs: 700, llmFirstTokenMs: 100 } as never }, 0);
  t.end(now);
  const spans = exporter.getFinishedSpans();
  const [failed, fine] = spans.filter((s) => s.name === 'hiwar.llm').sort((a, b) => start(a) - start(b));
  assert.equal(failed!.status.code, 2, 'the request that failed is red in the trace, not only its sibling hiwar.failure');
  assert.equal(failed!.status.message, 'the language model could not be reached');
  assert.equal(failed!.attributes['hiwar.llm.error'], 'network');
  // The turn's figures count the wait for the failure as the model's part; no token came, so none on its span.
  assert.equal(failed!.attributes['hiwar.llm.first_token_ms'], undefined);
  assert.deepEqual(failed!.events.map((e) => e.name), []);
  assert.equal(fine!.attributes['hiwar.llm.first_token_ms'], 100);
  assert.equal(fine!.status.code, 0, "the next turn's request is not marked");
  assert.equal(fine!.attributes['hiwar.llm.error'], undefined);
  const failure = spans.find((s) => s.name === 'hiwar.failure')!;
  assert.equal(parentOf(failure), parentOf(failed!), 'the failure stays beside it, under the reply');
});

test('without an SDK nothing is attached; traceparent parsing refuses malformed values', async () => {
  assert.equal(tracingActive(), false, 'no SDK registered in this process');
  const inner = () => ({}) as never;
  assert.equal(traceSessions(inner), inner, 'the factory is returned as it was');
  const sc = parseTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01')!;
  assert.equal(formatTraceparent(sc), '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
  for (const bad of ['', 'junk', 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', '00-00000000000000000000000000000000-00f067aa0ba902b7-01', '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01']) {
    assert.equal(parseTraceparent(bad), undefined, bad);
  }
});

test('a barge-in: the cut-off reply ends interrupted in its own turn, the next turn’s reply gets what follows', () => {
  const { exporter, at, start, end } = timedTrace('c2');
  at(100, { type: 'transcript', text: 'x', final: false });
  at(400, { type: 'user_turn', text: 'x', turn: 1 });
  at(400, { type: 'reply_started', reply: 1, turn: 1 });
  at(900, { type: 'agent_chunk', text: 'أولًا،', reply: 1 });
  at(1000, { type: 'state', state: 'speaking' });
  at(1500, { type: 'transcript', text: 'y', final: false }); // the caller talks over the agent
  at(1900, { type: 'user_turn', text: 'y', turn: 2 });
  at(1950, { type: 'agent_turn', text: 'أولًا،', heardText: 'أو', interrupted: true, reply: 1 });
  at(1950, { type: 'metrics', metrics: { interrupted: true, llmFirstTokenMs: 300 }, reply: 1 });
  at(1950, { type: 'reply_started', reply: 2, turn: 2 });
  at(2400, { type: 'agent_chunk', text: 'حسنًا.', reply: 2 });
  at(2500, { type: 'agent_turn', text: 'حسنًا.', heardText: 'حسنًا.', interrupted: false, reply: 2 });
  at(2500, { type: 'metrics', metrics: { interrupted: false, llmFirstTokenMs: 450 }, reply: 2 });
  at(2600, { type: 'ended', reason: 'hangup' });
  const spans = exporter.getFinishedSpans();
  const turns = spans.filter((s) => s.name === 'hiwar.turn').sort((a, b) => start(a) - start(b));
  assert.deepEqual(turns.map((s) => [start(s), end(s)]), [[100, 1950], [1500, 2500]], 'each turn from its first words to its reply’s end');
  const replyOf = (turn: ReadableSpan) => children(spans, turn, 'hiwar.reply')[0]!;
  const [first, second] = turns.map(replyOf);
  assert.equal(first!.attributes['hiwar.interrupted'], true);
  assert.equal(first!.attributes['hiwar.reply.heard_chars'], 2);
  assert.equal(second!.attributes['hiwar.interrupted'], false);
  assert.deepEqual(children(spans, first!, 'hiwar.tts').map(start), [900]);
  assert.deepEqual(children(spans, second!, 'hiwar.tts').map(start), [2400]);
  assert.equal(children(spans, second!, 'hiwar.llm')[0]!.attributes['hiwar.llm.first_token_ms'], 450);
  assert.equal(children(spans, first!, 'hiwar.playout').length, 1);
  assert.equal(children(spans, second!, 'hiwar.playout').length, 0, 'the second reply’s audio never started before the end here');
});

test('replies that overlap hang under their own turn by their numbers: a task line inside a reply, a barge-in reply after the interrupted one, a turn no reply took', () => {
  const { exporter, at, start, end } = timedTrace('c3');
  at(100, { type: 'transcript', text: 'a', final: false });
  at(300, { type: 'user_turn', text: 'a', turn: 1 });
  at(350, { type: 'reply_started', reply: 1, turn: 1 });
  at(600, { type: 'agent_chunk', text: 'لحظة،', reply: 1 });
  at(700, { type: 'state', state: 'speaking' });
  at(800, { type: 'tool', outcome: { call: { id: 't1', name: 'collect', arguments: {} }, result: 'ok', ms: 20 }, reply: 1 } as SessionEvent);
  // The tool runs a task: its line is a reply of its own, inside reply 1, and ends first.
  at(900, { type: 'reply_started', reply: 2 });
  at(950, { type: 'agent_chunk', text: 'قل رقمك.', reply: 2 });
  at(1300, { type: 'agent_turn', text: 'قل رقمك.', heardText: 'قل رقمك.', interrupted: false, reply: 2 });
  // The caller's answer went to the task (no reply takes turn 2); then they talk over reply 1.
  at(1350, { type: 'user_turn', text: 'b', source: 'dtmf', turn: 2 });
  at(1400, { type: 'transcript', text: 'c', final: false });
  at(1500, { type: 'user_turn', text: 'c', turn: 3 });
  at(1550, { type: 'agent_chunk', text: 'تم.', reply: 1 });
  at(1600, { type: 'agent_turn', text: 'لحظة، تم.', heardText: 'لحظة،', interrupted: true, reply: 1 });
  at(1600, { type: 'metrics', metrics: { interrupted: true, llmFirstTokenMs: 250, voiceToVoiceMs: 700 }, reply: 1 });
  at(1650, { type: 'reply_started', reply: 3, turn: 3 });
  at(1900, { type: 'agent_chunk', text: 'حسنًا.', reply: 3 });
  at(2000, { type: 'agent_turn', text: 'حسنًا.', heardText: 'حسنًا.', interrupted: false, reply: 3 });
  at(2000, { type: 'metrics', metrics: { interrupted: false, llmFirstTokenMs: 200, voiceToVoiceMs: 500 }, reply: 3 });
  at(2100, { type: 'ended', reason: 'hangup' });
  const spans = exporter.getFinishedSpans();
  const callSpan = spans.find((s) => s.name === 'hiwar.call')!;
  const turns = children(spans, callSpan, 'hiwar.turn').sort((a, b) => start(a) - start(b));
  assert.deepEqual(turns.map((s) => [start(s), end(s)]), [[100, 1600], [1350, 1500], [1400, 2000]], 'turn 1 ends with its reply, turn 2 (taken by the task) when turn 3 comes, turn 3 with its reply');
  const [first, taken, third] = turns.map((turn) => children(spans, turn, 'hiwar.reply'));
  assert.equal(first!.length, 1);
  assert.equal(taken!.length, 0, 'no reply under the turn the task took');
  assert.equal(third!.length, 1);
  const [r1] = first!;
  const [r3] = third!;
  assert.deepEqual(children(spans, r1!, 'hiwar.tts').map(start), [600, 1550], "reply 1's chunks, the late one included");
  assert.deepEqual(children(spans, r1!, 'hiwar.tool').map((s) => s.attributes['hiwar.tool.name']), ['collect']);
  assert.equal(r1!.attributes['hiwar.interrupted'], true);
  assert.equal(r1!.attributes['hiwar.voice_to_voice_ms'], 700, "reply 1's metrics on reply 1");
  assert.equal(end(r1!), 1600);
  assert.deepEqual(children(spans, r3!, 'hiwar.tts').map(start), [1900]);
  assert.equal(r3!.attributes['hiwar.voice_to_voice_ms'], 500);
  const lines = children(spans, callSpan, 'hiwar.reply');
  assert.equal(lines.length, 1, "the task's line: a reply under the call, no turn");
  assert.deepEqual([start(lines[0]!), end(lines[0]!)], [900, 1300]);
  assert.deepEqual(children(spans, lines[0]!, 'hiwar.tts').map(start), [950]);
});

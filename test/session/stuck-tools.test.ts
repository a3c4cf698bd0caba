// A tool that never settles, or ignores ctx.signal, does not hold the call: once its reply is cut
// off (the caller speaks over the silence after the filler, or hangs up) the reply ends without
// it, its call is reported failed as `abandoned`, and the caller's next turn is answered; a caller
// who stays quiet hears the failure answered once the tool's deadline (timeoutMs) has passed.
// Before, the reply waited on the tool for ever: no answer to any later turn, a call that never
// ended, and silence after the filler line.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { z } from 'zod';
import { setTimeout as sleep } from 'node:timers/promises';
import { ABANDONED_TOOL_ERROR, ScriptedLlm, ToolTimeoutError, defineTool, streamReply, type ReplyEvent, type Tool } from '../../src/llm/index.ts';
import { REPLY_DEFAULTS } from '../../src/pipeline/reply.ts';
import type { SessionControl } from '../../src/session/control.ts';
import type { Agent } from '../../src/session/agent.ts';
import { runCall, startTestSandbox, type TestSandbox } from '../../src/testing/index.ts';
import { within } from '../helpers/deadline.ts';

const stuck = defineTool({ name: 'stuck', description: 'never answers', parameters: z.object({}), execute: () => new Promise<never>(() => {}) });
const intents = [
  { name: 'stuck', examples: ['كم رصيدي'], tool: { name: 'stuck', args: () => ({}) }, reply: 'رصيدك ألف ريال.' },
  { name: 'hi', examples: ['مرحبا'], reply: 'أهلا.' },
];

test('streamReply: a tool still running when the reply is aborted is abandoned, a failed outcome and tool message', async () => {
  const llm = new ScriptedLlm({ intents, fallback: '؟', tokenDelayMs: 1, firstTokenDelayMs: 1 });
  const ac = new AbortController();
  const events: ReplyEvent[] = [];
  const drained = (async () => {
    for await (const e of streamReply(llm, [{ role: 'user', content: 'كم رصيدي' }], [stuck], ac.signal)) {
      events.push(e);
      if (e.type === 'tool_started') setImmediate(() => ac.abort(new Error('barge-in')));
    }
  })().catch((err: unknown) => {
    // The model asked again on an aborted signal refuses at once, as the reply stage expects.
    if (!ac.signal.aborted) throw err;
  });
  await within(drained, 10_000, 'the reply to end once aborted, with its tool still running');
  const outcome = events.flatMap((e) => (e.type === 'tool_finished' ? [e.outcome] : []))[0];
  assert.equal(outcome?.error, ABANDONED_TOOL_ERROR);
  assert.equal(outcome?.threw, undefined, 'not reported as a tool that threw');
  const message = events.flatMap((e) => (e.type === 'messages' ? e.added : [])).find((m) => m.role === 'tool');
  assert.deepEqual(message && 'failed' in message ? message.failed : undefined, true);
});

/** The outcomes of one reply to 'كم رصيدي' whose intent calls `tool` (named `stuck`), with `session` for its tasks. */
async function outcomesOf(tool: Tool, session?: SessionControl) {
  const llm = new ScriptedLlm({ intents, fallback: '؟', tokenDelayMs: 1, firstTokenDelayMs: 1 });
  const events: ReplyEvent[] = [];
  const drained = (async () => {
    for await (const e of streamReply(llm, [{ role: 'user', content: 'كم رصيدي' }], [tool], new AbortController().signal, { ...(session ? { session } : {}), toolFiller: false })) events.push(e);
  })();
  await within(drained, 10_000, 'the reply to end');
  return events.flatMap((e) => (e.type === 'tool_finished' ? [e.outcome] : []));
}

test('streamReply: a tool past its timeoutMs is given up as timed out, its signal aborted with the ToolTimeoutError', async () => {
  let reason: unknown;
  const tool = defineTool({ name: 'stuck', description: 'never answers', parameters: z.object({}), timeoutMs: 50, execute: (_a, ctx) => new Promise<never>(() => ctx.signal.addEventListener('abort', () => (reason = ctx.signal.reason))) });
  const [outcome] = await outcomesOf(tool);
  assert.equal(outcome?.error, 'timed out: the tool did not answer within 50 ms (timeoutMs)');
  assert.equal(outcome?.threw, true, "the tool's own failure, reported as the agent's");
  assert.ok(reason instanceof ToolTimeoutError, 'the tool was told why it was stopped');
});

test("streamReply: the time a task of the tool talks with the caller is not the tool's: a task longer than timeoutMs does not time it out", async () => {
  const session: SessionControl = {
    agent: { name: 'a', instructions: '', voice: { voice_id: 'v' }, outOfServiceLine: '' },
    say: async () => {},
    generateReply: async () => {},
    handoff: async () => {},
    runTask: async () => (await sleep(300), { ok: true, value: true }) as never,
    summarize: async () => '',
  };
  const task = { name: 'confirm', start: () => ({ say: '؟' }), next: () => ({ done: { ok: true as const, value: true } }), timeout: () => ({}) };
  const tool = defineTool({ name: 'stuck', description: 'asks, then looks up', parameters: z.object({}), timeoutMs: 100, execute: async (_a, ctx) => ({ confirmed: (await ctx.session!.runTask(task)).ok }) });
  const [outcome] = await outcomesOf(tool, session);
  assert.deepEqual([outcome?.result, outcome?.error], [{ confirmed: true }, undefined]);
});

let sandbox: TestSandbox;
before(async () => (sandbox = await startTestSandbox({ progress: false })));
after(() => sandbox.close());

test('a call whose tool never answers: the caller who speaks again is answered, and the hang-up ends the call', async () => {
  const agent: Agent = {
    name: 'stuck-desk', instructions: '', greeting: 'أهلًا بك، كيف أخدمك؟', voice: { voice_id: 'ar-hijazi-female-1' }, outOfServiceLine: 'الخدمة غير متاحة.',
    tools: [stuck], intents,
  };
  const call = await within(runCall(agent, [{ say: 'كم رصيدي' }, { say: 'مرحبا' }, { hangup: true }], { sandbox, progress: false }), 60_000, 'the call to end');
  assert.equal(call.ended, 'caller hung up');
  assert.deepEqual(call.toolCalls.map((t) => [t.name, t.error]), [['stuck', ABANDONED_TOOL_ERROR]]);
  assert.deepEqual(call.agentTurns.map((t) => t.text), ['أهلًا بك، كيف أخدمك؟', 'لحظة من فضلك، أتحقق من ذلك.', 'أهلا.']);
});

test('a call whose tool never answers and a caller who waits: the failure is answered once the tool has timed out', async () => {
  const slow = defineTool({ name: 'stuck', description: 'never answers', parameters: z.object({}), timeoutMs: 1000, execute: () => new Promise<never>(() => {}) });
  const agent: Agent = {
    name: 'stuck-desk', instructions: '', greeting: 'أهلًا بك، كيف أخدمك؟', voice: { voice_id: 'ar-hijazi-female-1' }, outOfServiceLine: 'الخدمة غير متاحة.',
    tools: [slow], intents,
  };
  const call = await within(runCall(agent, [{ say: 'كم رصيدي' }, { hangup: true, pauseMs: 15_000 }], { sandbox, progress: false }), 60_000, 'the call to end');
  assert.deepEqual(call.toolCalls.map((t) => [t.name, t.error, t.threw]), [['stuck', 'timed out: the tool did not answer within 1000 ms (timeoutMs)', true]]);
  const errors = call.events.flatMap((e) => (e.type === 'error' ? [[e.source, e.kind, e.tool, e.message]] : []));
  assert.deepEqual(errors, [['agent', 'timeout', 'stuck', "the agent's code did not answer in time (tool stuck)"]]);
  assert.match(call.agentTurns.map((t) => t.text).join(' '), new RegExp(REPLY_DEFAULTS.modelErrorLine.slice(0, 10)), 'the caller heard the failure answered');
});

// A tool that never settles, or ignores ctx.signal, does not hold the call: once its reply is cut
// off (the caller speaks over the silence after the filler, or hangs up) the reply ends without
// it, its call is reported failed as `abandoned`, and the caller's next turn is answered. Before,
// the reply waited on the tool for ever: no answer to any later turn, and a call that never ended.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { z } from 'zod';
import { ABANDONED_TOOL_ERROR, ScriptedLlm, defineTool, streamReply, type ReplyEvent } from '../../src/llm/index.ts';
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

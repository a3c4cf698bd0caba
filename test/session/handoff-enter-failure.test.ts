// A handed-to agent whose onEnter throws before it had anything said: the caller, just told they
// are being put through, hears the agent's recovery line, not silence (before: the error event
// alone, and silence until the caller spoke). One that said its line first is not followed by it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { z } from 'zod';
import { defineTool } from '../../src/llm/index.ts';
import { handoff } from '../../src/session/handoff.ts';
import { REPLY_DEFAULTS } from '../../src/pipeline/reply.ts';
import type { Agent } from '../../src/session/agent.ts';
import { runCall, startTestSandbox, type TestSandbox } from '../../src/testing/index.ts';

let sandbox: TestSandbox;
before(async () => (sandbox = await startTestSandbox({ progress: false })));
after(() => sandbox.close());

const voice = { voice_id: 'ar-hijazi-female-1' };
/** A greeter that hands the caller to `cards`, whose onEnter is `onEnter`. */
function greeterTo(onEnter: NonNullable<Agent['hooks']>['onEnter']): Agent {
  const cards: Agent = { name: 'cards', instructions: '', voice, outOfServiceLine: 'الخدمة غير متاحة.', hooks: { onEnter } };
  return {
    name: 'greeter', instructions: '', greeting: 'أهلًا بك، كيف أخدمك؟', voice, outOfServiceLine: 'الخدمة غير متاحة.',
    tools: [defineTool({ name: 'to_cards', description: 'cards', parameters: z.object({}), execute: () => handoff(cards, { carry: 'summary' }) })],
    handoffs: [cards],
    intents: [{ name: 'cards', examples: ['عندي مشكلة في البطاقة'], tool: { name: 'to_cards', args: () => ({}) }, reply: 'أحولك إلى قسم البطاقات.' }],
  };
}
const script = [{ say: 'عندي مشكلة في البطاقة' }, { hangup: true as const, pauseMs: 6000 }];

test("a handed-to agent's onEnter that throws before saying anything: one hook error, and the recovery line", async () => {
  const call = await runCall(greeterTo(async () => { throw new Error('CRM down'); }), script, { sandbox, progress: false });
  assert.deepEqual(call.events.flatMap((e) => (e.type === 'error' ? [[e.source, e.kind, e.message]] : [])), [['agent', 'hook', "the agent's code threw an error (onEnter)"]]);
  assert.deepEqual(call.agentTurns.map((t) => t.text).slice(1), ['أحولك إلى قسم البطاقات.', REPLY_DEFAULTS.modelErrorLine]);
});

test("a handed-to agent's onEnter that said its line, then threw: no recovery line after it", async () => {
  const call = await runCall(greeterTo(async (session) => { void session.say('معك قسم البطاقات.'); throw new Error('CRM down'); }), script, { sandbox, progress: false });
  assert.deepEqual(call.agentTurns.map((t) => t.text).slice(1), ['أحولك إلى قسم البطاقات.', 'معك قسم البطاقات.']);
});

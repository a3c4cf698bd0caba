// runCall collects the late answer of a tool given up that answers once the call has ended
// (`AgentSession.afterEnd$`: `tool_late` with `afterEnd: true`): it waits for it up to
// `lateToolWaitMs` after the call, then adds it to `events`. Before, such an answer was never in
// the result (it comes after `events$` completed).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { defineTool } from '../../src/llm/index.ts';
import type { Agent } from '../../src/session/agent.ts';
import { runCall, startTestSandbox, type TestSandbox } from '../../src/testing/index.ts';
import { within } from '../helpers/deadline.ts';

let sandbox: TestSandbox;
before(async () => (sandbox = await startTestSandbox({ progress: false })));
after(() => sandbox.close());

/** An agent whose balance tool is given up after 300 ms and answers `answerMs` after it started. */
const agentWith = (answerMs: number): Agent => ({
  name: 'late-desk',
  instructions: '',
  greeting: 'أهلًا بك، كيف أخدمك؟',
  voice: { voice_id: 'ar-hijazi-female-1' },
  outOfServiceLine: 'الخدمة غير متاحة.',
  tools: [defineTool({ name: 'slow', description: 'the balance, slowly', parameters: z.object({}), timeoutMs: 300, execute: async () => (await sleep(answerMs), { balance: 1 }) })],
  intents: [{ name: 'balance', examples: ['كم رصيدي'], tool: { name: 'slow', args: () => ({}) }, reply: 'رصيدك ألف ريال.' }],
});

test('a tool given up that answers after the call ended: its tool_late (afterEnd: true) is in the result, after the call\'s events', async () => {
  const call = await within(runCall(agentWith(6_000), [{ say: 'كم رصيدي' }, { hangup: true }], { sandbox, progress: false, lateToolWaitMs: 20_000 }), 90_000, 'the call and the late answer');
  const tool = call.events.find((e) => e.type === 'tool');
  assert.ok(tool, `the tool was called: ${call.events.map((e) => e.type).join(' ')}`);
  const last = call.events.at(-1)!;
  assert.equal(last.type, 'tool_late', `the late answer comes last: ${call.events.map((e) => e.type).join(' ')}`);
  assert.ok(last.type === 'tool_late');
  assert.deepEqual([last.name, last.reason, last.failed, last.callId, last.afterEnd], ['slow', 'timeout', false, tool.outcome.call.id, true]);
  assert.equal(call.events.filter((e) => e.type === 'tool_late').length, 1, 'told once');
});

test('lateToolWaitMs: 0 does not wait: the result is the call\'s own events, and stays so', async () => {
  const call = await within(runCall(agentWith(3_000), [{ say: 'كم رصيدي' }, { hangup: true }], { sandbox, progress: false, lateToolWaitMs: 0 }), 90_000, 'the call');
  const before = call.events.length;
  assert.equal(call.events.some((e) => e.type === 'tool_late'), false, 'the call ended before the tool answered');
  await sleep(4_000);
  assert.equal(call.events.length, before, 'nothing added to a result already returned');
});

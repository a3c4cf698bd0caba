// The wallet runs out while a tool's task waits on the caller: the out-of-service line follows at
// once, not after the task's silences have run out with the caller hearing nothing.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { z } from 'zod';
import { defineTool } from '../../src/llm/types.ts';
import { ServiceClient } from '../../src/service/index.ts';
import { digitsTask } from '../../src/tasks/index.ts';
import { agentTurns, call } from '../helpers/call.ts';
import { runSandbox, type Running } from '../helpers/sandbox.ts';

let sb: Running;
before(async () => {
  // 2 credits a character of synthesis: the out-of-service line rendered at start (about 110) and
  // the greeting (10) are paid for, the task's first prompt (about 90) is not.
  sb = await runSandbox({
    keys: [
      { key: 'sk-task-poor-0001', credits: 160, concurrency: 8 },
      { key: 'sk-reply-poor-0001', credits: 150, concurrency: 8 },
      { key: 'sk-task-rich-0001', credits: 1e9, concurrency: 8 },
    ],
  });
});
after(() => sb?.close());

test('out of service during a task: the line is said and the call ends without waiting out the task', async () => {
  const poor = new ServiceClient({ apiKey: 'sk-task-poor-0001', baseUrl: sb.sandbox.url, maxRetries: 0 });
  const rich = new ServiceClient({ apiKey: 'sk-task-rich-0001', baseUrl: sb.sandbox.url, maxRetries: 0 });
  const order = defineTool({
    name: 'order_status',
    description: 'Where an order is',
    parameters: z.object({}),
    execute: async (_args, ctx) => ({ order: await ctx.session!.runTask(digitsTask({ kind: 'custom', length: 4, prompt: 'من فضلك قل رقم طلبك المكوّن من أربعة أرقام.' })) }),
  });
  const c = await call(poor, [{ say: 'أين طلبي' }, { hangup: true, pauseMs: 40_000 }], {
    voiceClient: rich,
    agent: {
      greeting: 'أهلًا',
      tools: [order],
      intents: [{ name: 'order', examples: ['أين طلبي'], tool: { name: 'order_status' }, reply: 'تم.' }],
    },
  });
  assert.match(c.report.ended, /^out of service: .*wallet/, c.report.ended);
  assert.equal(agentTurns(c).at(-1)?.text, 'نعتذر، الخدمة غير متاحة حاليًا. يرجى الاتصال بنا لاحقًا.');
  const task = c.report.tasks[0]!;
  assert.deepEqual(task.result, { ok: false, reason: 'no_input' });
  // Call time, not wall time: the task was let go before its first silence (8 s) had passed.
  assert.ok(task.endedAt! - task.at < 8, `the task ran ${(task.endedAt! - task.at).toFixed(1)} s of call time after it started`);
});

test("the wallet runs out on the reply's own synthesis (402/40201 on its socket): no agent turn of nothing, a reply_dropped event, the line", async () => {
  // 150 credits pay for the line (about 110) and the greeting (10); recognition takes 1 a second of the
  // 30 left, and the reply (one clause of some 60 characters, 120 credits) is refused.
  const poor = new ServiceClient({ apiKey: 'sk-reply-poor-0001', baseUrl: sb.sandbox.url, maxRetries: 0 });
  const rich = new ServiceClient({ apiKey: 'sk-task-rich-0001', baseUrl: sb.sandbox.url, maxRetries: 0 });
  const c = await call(poor, [{ say: 'أين طلبي' }, { hangup: true, pauseMs: 30_000 }], {
    voiceClient: rich,
    agent: {
      greeting: 'أهلًا',
      intents: [{ name: 'order', examples: ['أين طلبي'], reply: 'طلبك في الطريق وسيصلك اليوم قبل الساعة الخامسة مساء إن شاء الله' }],
    },
  });
  assert.match(c.report.ended, /^out of service: speech synthesis stopped: the wallet is empty/, c.report.ended);
  assert.deepEqual(agentTurns(c).map((t) => t.heardText), ['أهلًا', 'نعتذر، الخدمة غير متاحة حاليًا. يرجى الاتصال بنا لاحقًا.'], JSON.stringify(agentTurns(c)));
  const dropped = c.events.find((e) => e.type === 'reply_dropped');
  assert.ok(dropped && dropped.type === 'reply_dropped', JSON.stringify(c.events.map((e) => e.type)));
  assert.equal(dropped.reason, c.report.ended);
  assert.ok(c.events.some((e) => e.type === 'error' && e.source === 'tts' && e.kind === 'balance' && e.fatal), 'the typed failure');
});

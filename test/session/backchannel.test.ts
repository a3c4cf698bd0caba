// Backchannels over the agent (src/pipeline/backchannel.ts): a caller's "آه" while the agent reads
// out figures neither stops it nor is a turn, where a sentence after it still cuts it off, and a
// "نعم" over a task's read-back still answers it. Whole calls on the sandbox, on a real-time
// clock: the in-process sandbox must hear the word while the agent is still speaking (as in
// scenarios-false-alarms.test.ts).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agentTurns, call, userTurns } from '../helpers/call.ts';
import { SteadyScaledClock } from '../../src/testing/steady-clock.ts';
import { digitsTask } from '../../src/tasks/digits-task.ts';
import type { Llm } from '../../src/llm/types.ts';
import { client, useScenarioSandbox } from './scenarios-rig.ts';

useScenarioSandbox();

const kinds = (c: Awaited<ReturnType<typeof call>>) => c.events.flatMap((e) => (e.type === 'interruption' ? [e.kind] : []));

test('"آه" over the agent: it goes on to the end of its reply, and "آه" is no turn', async () => {
  const c = await call(client(), [{ say: 'بطاقتي ضاعت أرجو إيقافها' }, { say: 'آه', bargeInAfterMs: 1200 }], { clock: new SteadyScaledClock(1) });
  const story = JSON.stringify({ kinds: kinds(c), user: userTurns(c), spans: c.caller.agentSpans, lines: c.caller.lines });
  assert.deepEqual(kinds(c), ['paused', 'resumed', 'backchannel'], story);
  const reply = agentTurns(c).find((t) => /تم إيقاف/.test(t.text))!;
  assert.equal(reply.interrupted, false, story);
  assert.deepEqual(userTurns(c), ['بطاقتي ضاعت أرجو إيقافها'], story);
});

test('"آه بس عندي سؤال" over the agent cuts it off, and is the next turn', async () => {
  const c = await call(client(), [{ say: 'بطاقتي ضاعت أرجو إيقافها' }, { say: 'آه بس عندي سؤال', bargeInAfterMs: 1200 }]);
  assert.ok(agentTurns(c).some((t) => t.interrupted), JSON.stringify(kinds(c)));
  assert.deepEqual(userTurns(c), ['بطاقتي ضاعت أرجو إيقافها', 'آه بس عندي سؤال']);
});

test('"نعم" over a digits task\'s read-back answers it, as before', async () => {
  let result: unknown;
  const c = await call(client(), [{ say: 'واحد اثنان ثلاثة أربعة' }, { say: 'نعم', bargeInAfterMs: 800 }], {
    agent: { hooks: { onEnter: (s) => void s.runTask(digitsTask({ kind: 'card_last4' })).then((r) => (result = r)) } },
  });
  assert.deepEqual(result, { ok: true, value: '1234' }, JSON.stringify({ kinds: kinds(c), user: userTurns(c) }));
  assert.ok(!kinds(c).includes('backchannel'));
});

test('"نعم" over a reply that asks something is its answer, said early: the turn comes once the reply has ended', async () => {
  const QUESTION = 'حسنًا، سأوقف بطاقتك الآن وسيصلك إشعار برسالة نصية خلال دقائق، ويمكنك بعدها طلب بطاقة جديدة من التطبيق أو من الفرع. هل تريد أن أطلب لك بطاقة جديدة الآن؟';
  const asked: string[] = [];
  const llm: Llm = {
    name: 'asks-then-answers',
    async *stream(req) {
      const last = req.messages.at(-1);
      const said = typeof last?.content === 'string' ? last.content : '';
      asked.push(said);
      yield { type: 'text', delta: said === 'نعم' ? 'تم طلب بطاقة جديدة.' : QUESTION };
    },
  };
  const c = await call(client(), [{ say: 'بطاقتي ضاعت أرجو إيقافها' }, { say: 'نعم', bargeInAfterMs: 1200 }], { llm, clock: new SteadyScaledClock(1) });
  const story = JSON.stringify({ kinds: kinds(c), user: userTurns(c), asked });
  assert.ok(kinds(c).includes('backchannel'), story);
  const question = agentTurns(c).find((t) => t.text.includes('هل تريد'))!;
  assert.equal(question.interrupted, false, `the question was said to its end: ${story}`);
  assert.deepEqual(userTurns(c), ['بطاقتي ضاعت أرجو إيقافها', 'نعم'], story);
  assert.deepEqual(asked.slice(0, 2), ['بطاقتي ضاعت أرجو إيقافها', 'نعم'], `the model was given the early answer: ${story}`);
  assert.ok(agentTurns(c).some((t) => t.text.includes('تم طلب بطاقة جديدة')), story);
});

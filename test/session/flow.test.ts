import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import callCentre, { HUMAN_DESK } from '../../agents/call-centre/index.ts';
import greeter from '../../agents/call-centre/flow.ts';
import { latencyTable } from '../../src/cli/demo.ts';
import { defineIntent } from '../../src/llm/scripted.ts';
import type { Agent } from '../../src/session/agent.ts';
import { handoff } from '../../src/session/handoff.ts';
import { confirmTask, digitsTask, type CollectTask } from '../../src/tasks/index.ts';
import { REPLY_DEFAULTS } from '../../src/pipeline/reply.ts';
import { expectAgentSaid, expectToolCall, runCall, startTestSandbox, type TestSandbox } from '../../src/testing/index.ts';
import { balanceTool, failingBalance, plainTool } from './flow-tools.ts';

let sandbox: TestSandbox;
const escaped: unknown[] = [];
const onEscape = (err: unknown) => escaped.push(err);
before(async () => {
  sandbox = await startTestSandbox();
  process.on('uncaughtException', onEscape);
  process.on('unhandledRejection', onEscape);
});
after(async () => {
  process.off('uncaughtException', onEscape);
  process.off('unhandledRejection', onEscape);
  await sandbox.close();
});

/** The bank's intents that need no tool but get_balance (an agent's intents may call only its own tools). */
const balanceOnly = callCentre.intents!.filter((i) => !i.tool || i.tool.name === 'get_balance');
const agentErrors = (events: { type: string }[]) => events.filter((e): e is { type: 'error'; source: string; message: string } & typeof e => e.type === 'error' && (e as { source?: string }).source === 'agent');

test("one agent's throwing hooks and tool become error events; the other call in the same process completes", async () => {
  const broken: Agent = {
    ...callCentre,
    name: 'broken',
    tools: [failingBalance()],
    intents: balanceOnly,
    hooks: {
      onCallStart: () => {
        throw new Error('sync throw at start');
      },
      onUserTurn: async () => {
        throw new Error('async throw on a turn');
      },
      onAgentTurn: () => {
        throw new Error('sync throw after a reply');
      },
      onDtmf: () => {
        throw new Error('throw on a key');
      },
    },
  };
  const [bad, good] = await Promise.all([
    runCall(broken, [{ say: 'كم رصيدي' }, { dtmf: '2#' }, { hangup: true }], { sandbox }),
    runCall(callCentre, [{ say: 'كم رصيدي' }, { hangup: true }], { sandbox }),
  ]);
  const hooks = agentErrors(bad.events).map((e) => e.message);
  for (const hook of ['onCallStart', 'onUserTurn', 'onAgentTurn', 'onDtmf', 'tool get_balance']) {
    assert.ok(hooks.some((m) => m.includes(hook)), `an error event names ${hook}: ${hooks.join(' | ')}`);
  }
  assert.ok(bad.events.every((e) => e.type !== 'error' || !e.fatal), 'no hook error is fatal');
  // A thrown tool is told apart from a hook, by kind and by name (an event filter wants both).
  const kinds = agentErrors(bad.events).map((e) => `${(e as { kind?: string }).kind}:${(e as { tool?: string }).tool ?? ''}`);
  assert.ok(kinds.includes('tool:get_balance'), `the tool's error is kind 'tool' naming get_balance: ${kinds.join(' | ')}`);
  assert.ok(kinds.filter((k) => k.startsWith('hook:')).length >= 4, `the hooks' errors stay kind 'hook': ${kinds.join(' | ')}`);
  assert.deepEqual(bad.toolCalls.filter((t) => t.name === 'get_balance').map((t) => [t.error, t.threw]).at(0), ['core banking is down', true]);
  assert.equal(bad.report.tools?.find((t) => t.name === 'get_balance')?.threw, true, 'the report tells a thrown tool from a refused call');
  assert.deepEqual(bad.userTurns, ['كم رصيدي', '[DTMF: 2]'], 'the broken call went on past its hooks');
  assert.match(bad.ended, /caller hung up|hangup/);
  expectToolCall(good, 'get_balance', { account: 'current' });
  expectAgentSaid(good, '12,500');
  assert.equal(agentErrors(good.events).length, 0);
  assert.deepEqual(escaped, [], 'nothing escaped to the process');
});

test("no intent's reply is handed a throwing tool's error, typed or plain, a function or a fixed line: one error of kind 'tool', and the agent says its recovery line", async () => {
  const failing = failingBalance();
  const handed: unknown[] = [];
  const recovery = 'عذرًا، تعذر الوصول إلى حسابك الآن.';
  const intent = { name: 'balance', examples: ['كم رصيدي'] };
  const intents: Record<string, Agent['intents']> = {
    // Reads the result's fields, as a typed reply may: `{ error }` made it throw.
    typed: [defineIntent(failing, { ...intent, reply: (r) => (handed.push(r), `رصيدك ${r.balance.toLocaleString('en-US')} ريال.`) })],
    // A plain intent's reply gets `unknown`: it was handed `{ error }`.
    plain: [{ ...intent, tool: { name: 'get_balance' }, reply: (r) => (handed.push(r), `رصيدك ${(r as { balance: number }).balance} ريال.`) }],
    // A fixed line would say the balance the tool never gave (the README's intent).
    fixed: [{ ...intent, tool: { name: 'get_balance' }, reply: 'رصيدك ١٢٥٠٠ ريال.' }],
  };
  const calls = await Promise.all(
    Object.entries(intents).map(([name, list]) =>
      runCall({ ...callCentre, name: `${name}-reply`, tools: [failing], modelErrorLine: recovery, intents: list }, [{ say: 'كم رصيدي' }, { hangup: true }], { sandbox }),
    ),
  );
  for (const [i, call] of calls.entries()) {
    const which = Object.keys(intents)[i];
    // Synthesis falling back to HTTP on a loaded machine is an error event too (recovered): not what this is about.
    const errors = call.events.filter((e) => e.type === 'error').filter((e) => !/switched to HTTP/.test(e.message)).map((e) => `${e.source}:${e.kind}:${e.tool ?? ''}`);
    assert.deepEqual(errors, ['agent:tool:get_balance'], `${which}: the tool's failure, not the model's`);
    const said = call.agentTurns.map((t) => t.text);
    assert.ok(said.includes(recovery), `${which}: the agent said its recovery line: ${said.join(' | ')}`);
    assert.ok(!said.some((t) => t.startsWith('رصيدك')), `${which}: no balance was made up: ${said.join(' | ')}`);
  }
  assert.deepEqual(handed, [], 'no reply was called with an error');
  assert.deepEqual(escaped, [], 'nothing escaped to the process');
});

test("a task whose own code throws is one error of kind 'task' naming it; the caller hears the agent's recovery line, or the model's answer to the tool it failed", async () => {
  /** A task that asks, then throws on the caller's answer (its `next`), or at once (its `start`). */
  const throwing = (name: string, at: 'start' | 'next'): CollectTask<string> => ({
    name,
    start: () => {
      if (at === 'start') throw new Error(`${name} cannot start`);
      return { say: 'ما رقم ملفك؟' };
    },
    next: () => {
      throw new Error(`${name} broke on the answer`);
    },
  });
  const agent: Agent = {
    ...callCentre,
    name: 'broken-tasks',
    tools: [plainTool('order_status', 'Where an order is', async (_args, ctx) => ({ order: await ctx.session!.runTask(throwing('order', 'start')) }))],
    // The intent's own line when its tool failed, instead of the agent's recovery line.
    intents: [{ name: 'order', examples: ['أين طلبي'], tool: { name: 'order_status' }, reply: 'طلبك في الطريق.', toolErrorLine: 'عذرًا، لم أتمكن من فتح طلبك.' }],
    hooks: { onEnter: async (session) => void (await session.runTask(throwing('file', 'next'))) },
  };
  const call = await runCall(agent, [{ say: 'واحد اثنان ثلاثة أربعة' }, { say: 'أين طلبي' }, { hangup: true }], { sandbox });
  const kinds = agentErrors(call.events).map((e) => `${(e as { kind?: string }).kind}:${(e as { task?: string }).task ?? (e as { tool?: string }).tool ?? ''}`);
  // One failure, one event: not the task as a hook, then again the onEnter or the tool that awaited it.
  assert.deepEqual(kinds, ['task:file', 'task:order'], `each task's error once, kind 'task' with its name: ${kinds.join(' | ')}`);
  assert.deepEqual(call.report.tasks.map((t) => [t.name, t.result]), [['file', { ok: false, reason: 'error' }], ['order', { ok: false, reason: 'error' }]]);
  const said = call.agentTurns.map((t) => t.text);
  const recovery = said.indexOf(REPLY_DEFAULTS.modelErrorLine);
  assert.ok(recovery > said.indexOf('ما رقم ملفك؟'), `the task's onEnter failed: the recovery line followed its question: ${said.join(' | ')}`);
  assert.deepEqual(call.toolCalls.map((t) => [t.name, t.threw]), [['order_status', true]], "the tool that ran the failed task threw (the model read the task's error)");
  assert.ok(said.includes('عذرًا، لم أتمكن من فتح طلبك.'), `the model answered the tool's error: ${said.join(' | ')}`);
  assert.deepEqual(escaped, [], 'nothing escaped to the process');
});

test("a task that throws a string or a number is reported once, as the task's, with a readable message, whoever passes it on", async () => {
  /** A task that asks, then throws `thrown` (not an Error) on the answer, or at once. */
  const throwing = (name: string, thrown: unknown, at: 'start' | 'next'): CollectTask<string> => ({
    name,
    start: () => {
      if (at === 'start') throw thrown;
      return { say: 'ما رقم ملفك؟' };
    },
    next: () => {
      throw thrown;
    },
  });
  const passedOn: unknown[] = [];
  const agent: Agent = {
    ...callCentre,
    name: 'throws-plain-values',
    tools: [plainTool('order_status', 'Where an order is', async (_args, ctx) => ({ order: await ctx.session!.runTask(throwing('order', 42, 'start')) }))],
    intents: [{ name: 'order', examples: ['أين طلبي'], tool: { name: 'order_status' }, reply: 'عذرًا، لم أتمكن من فتح طلبك.' }],
    // The hook passes the task's error on (it throws it again): still the task's one event.
    hooks: {
      onEnter: async (session) => {
        await session.runTask(throwing('file', 'no file', 'next')).catch((err: unknown) => {
          passedOn.push(err);
          throw err;
        });
      },
    },
  };
  const call = await runCall(agent, [{ say: 'واحد اثنان ثلاثة أربعة' }, { say: 'أين طلبي' }, { hangup: true }], { sandbox });
  const kinds = agentErrors(call.events).map((e) => `${(e as { kind?: string }).kind}:${(e as { task?: string }).task ?? (e as { tool?: string }).tool ?? ''}`);
  assert.deepEqual(kinds, ['task:file', 'task:order'], `each task's error once, whatever it threw: ${kinds.join(' | ')}`);
  assert.equal(passedOn.length, 1);
  assert.ok(passedOn[0] instanceof Error, 'runTask rejects with an Error, not the bare string');
  assert.equal((passedOn[0] as Error).message, "task file threw 'no file'");
  assert.equal((passedOn[0] as Error).cause, 'no file', 'what was thrown is its cause');
  assert.deepEqual(call.toolCalls.map((t) => [t.name, t.error, t.threw]), [['order_status', 'task order threw 42', true]], 'the model reads a readable error');
  assert.deepEqual(escaped, [], 'nothing escaped to the process');
});

test('say() speaks a line without the model, and a slow tool gets the filler line once while it works', async () => {
  // Far beyond the filler's 200 ms, on any machine.
  const slowBalance = balanceTool('Balance, slowly', async ({ account }) => (await sleep(3000), { account, balance: 12500, currency: 'SAR' }));
  const filler = 'لحظة من فضلك، أتحقق من حسابك';
  const agent: Agent = {
    ...callCentre,
    name: 'slow-bank',
    tools: [slowBalance],
    intents: balanceOnly,
    toolFiller: { line: filler, afterMs: 200 },
    hooks: { onEnter: (session) => void session.say('هذه المكالمة مسجلة لضمان الجودة.') },
  };
  // The caller waits out the tool (3 s of real time is 9 s of call time at 3×) before hanging up.
  const call = await runCall(agent, [{ say: 'كم رصيدي' }, { hangup: true, pauseMs: 15_000 }], { sandbox });
  const texts = call.agentTurns.map((t) => t.text);
  assert.equal(texts[0], callCentre.greeting, 'the greeting first');
  assert.equal(texts[1], 'هذه المكالمة مسجلة لضمان الجودة.', 'then the line said by code');
  const reply = call.agentTurns.find((t) => t.text.includes('12,500'));
  assert.ok(reply, `the balance was said: ${texts.join(' | ')}`);
  assert.ok(reply.text.startsWith(filler), `the filler came first in the reply: ${reply.text}`);
  assert.equal(reply.text.split(filler).length - 1, 1, 'said once');
  assert.ok(call.agentTurns.every((t) => t.agent === 'slow-bank'));
  const used = call.report.tools?.find((t) => t.name === 'get_balance');
  assert.deepEqual(used?.result, { account: 'current', balance: 12500, currency: 'SAR' }, 'the report keeps what the tool returned');
  // The greeting and the hook's line are timed too, as lines (not caller turns).
  const lines = call.events.flatMap((e) => (e.type === 'line_metrics' ? [e.metrics] : []));
  assert.ok(lines.length >= 2 && lines.every((m) => m.kind === 'line' && typeof m.lineToVoiceMs === 'number'), `the lines are timed: ${JSON.stringify(lines)}`);
});

// The agent ends these calls with a transfer: the caller waits for it (a busy machine makes the
// model's summary slow) instead of hanging up 1.5 s after the agent's last words.
const AGENT_ENDS = { hangup: true, pauseMs: 15_000 } as const;

test('the call-centre flow: account task by keys, read back and confirmed, handoff to cards with the conversation, block, transfer with a summary', async () => {
  const call = await runCall(greeter, [{ dtmf: '4821#' }, { dtmf: '1' }, { say: 'بطاقتي ضاعت' }, { say: 'أريد التحدث مع موظف' }, AGENT_ENDS], { sandbox });
  assert.deepEqual(
    call.report.tasks.map((t) => ({ name: t.name, agent: t.agent, result: t.result })),
    [{ name: 'digits:custom', agent: 'greeter', result: { ok: true, value: '4821' } }],
  );
  assert.deepEqual(
    call.events.filter((e) => e.type === 'task_started' || e.type === 'task_ended').map((e) => e.type),
    ['task_started', 'task_ended'],
  );
  const readBack = call.agentTurns.find((t) => t.task === 'digits:custom' && t.text.includes('أربعة ثمانية اثنان واحد'));
  assert.ok(readBack, 'the account number was read back digit by digit as part of the task');
  assert.equal(readBack.metrics?.kind, 'keyed', `the read-back is the keyed turn's reply: ${JSON.stringify(readBack.metrics)}`);
  assert.ok(typeof readBack.metrics.voiceToVoiceMs === 'number' && readBack.metrics.voiceToVoiceMs > 0, 'timed from the last key');
  assert.ok(call.turns.some((t) => t.role === 'user' && t.task === 'digits:custom' && t.text === '[DTMF: 4821]'), 'the keys went to the task');
  assert.ok(call.turns.some((t) => t.role === 'user' && t.task === 'digits:custom' && t.text === '[DTMF: 1]'), 'the confirmation went to the task');
  assert.ok(call.agentTurns.some((t) => t.agent === 'greeter' && t.text.includes('تم التحقق من حسابك')), 'the greeter thanked the caller once the task ended');
  assert.deepEqual(call.report.handoffs.map((h) => [h.from, h.to, h.carry]), [['greeter', 'cards', 'full']]);
  assert.ok(call.events.some((e) => e.type === 'agent_handoff' && e.to === 'cards'));
  assert.deepEqual(call.toolCalls.map((t) => t.name), ['to_cards', 'block_card', 'transfer_to_human']);
  const blocked = call.agentTurns.find((t) => t.text.includes('تم إيقاف بطاقتك'));
  assert.equal(blocked?.agent, 'cards', 'the cards desk spoke the block');
  assert.equal(call.agentTurns.find((t) => t.text.includes('سأحولك إلى قسم البطاقات'))?.agent, 'greeter');
  assert.equal(call.endedByAgent?.transfer, HUMAN_DESK);
  assert.match(call.endedByAgent?.summary ?? '', /بطاقتي ضاعت/, 'the summary passed on tells the case');
  // The demo's latency table names the caller turn each row's figures belong to: the keyed
  // read-back answers turn 1; the confirming key, turn 2, ended the task with no line of the
  // task's, and the greeter's thanks after it answers it (a row of its own, keyed).
  const answers = new Map(call.events.flatMap((e) => (e.type === 'reply_started' && e.turn !== undefined ? [[e.reply, e.turn] as const] : [])));
  const expected = call.events.flatMap((e) => (e.type === 'metrics' ? [answers.get(e.reply!)] : []));
  const shown = latencyTable(call.report).split('\n').slice(2).flatMap((l) => (/^ *\d+ /.test(l) ? [Number(l.trim().split(/\s+/)[0])] : []));
  assert.deepEqual(shown, expected, latencyTable(call.report));
  const thanks = call.agentTurns.find((t) => t.text.includes('تم التحقق من حسابك'));
  assert.deepEqual([thanks?.metrics?.turn, thanks?.metrics?.kind], [2, 'keyed'], JSON.stringify(thanks?.metrics));
  assert.ok(shown.includes(2), `the confirming key has its row: ${shown.join(', ')}`);
});

test('the flow: three wrong account numbers end the task with max_attempts and a transfer with why', async () => {
  const call = await runCall(greeter, [{ dtmf: '1111#' }, { dtmf: '2222#' }, { dtmf: '3333#' }, AGENT_ENDS], { sandbox });
  assert.deepEqual(call.report.tasks.map((t) => t.result), [{ ok: false, reason: 'max_attempts', lastHeard: '3333' }]);
  assert.equal(call.toolCalls.length, 0, 'the model was never asked');
  assert.equal(call.endedByAgent?.transfer, HUMAN_DESK);
  assert.match(call.endedByAgent?.summary ?? '', /max_attempts/);
});

test("a handed-off agent's async onEnter awaits say and runs a task (it used to wait for the reply that handed off, for ever)", async () => {
  const desk: Agent = {
    ...callCentre,
    name: 'desk',
    greeting: undefined,
    intents: [],
    hooks: {
      onEnter: async (session) => {
        await session.say('معك قسم البطاقات.');
        const block = await session.runTask(confirmTask('هل تريد إيقاف البطاقة؟'));
        if (block.ok && block.value) await session.say('تم إيقاف البطاقة.');
      },
    },
  };
  const front: Agent = {
    ...callCentre,
    name: 'front',
    tools: [plainTool('to_desk', 'Hands the caller to the cards desk', () => handoff(desk, { carry: 'none' }))],
    intents: [{ name: 'cards', examples: ['بطاقتي ضاعت'], tool: { name: 'to_desk', args: () => ({}) }, reply: 'أحولك إلى قسم البطاقات.' }],
  };
  const call = await runCall(front, [{ say: 'بطاقتي ضاعت' }, { say: 'نعم' }, { hangup: true }], { sandbox });
  assert.deepEqual(call.report.handoffs.map((h) => [h.from, h.to]), [['front', 'desk']]);
  assert.deepEqual(call.report.tasks.map((t) => ({ name: t.name, agent: t.agent, result: t.result })), [{ name: 'confirm', agent: 'desk', result: { ok: true, value: true } }]);
  const said = call.agentTurns.map((t) => t.text);
  for (const line of ['معك قسم البطاقات.', 'هل تريد إيقاف البطاقة؟', 'تم إيقاف البطاقة.']) assert.ok(said.includes(line), `the desk said "${line}": ${said.join(' | ')}`);
});

test('a tool that awaits say, generateReply and handoff goes on at once; they come after its reply (the call hung until the caller left)', async () => {
  const desk: Agent = { ...callCentre, name: 'desk', greeting: undefined, intents: [], hooks: { onEnter: (session) => void session.say('معك قسم البطاقات.') } };
  const front: Agent = {
    ...callCentre,
    name: 'front',
    toolFiller: false,
    tools: [
      plainTool('look_up', 'Looks the card up, then hands the caller to the desk', async (_args, ctx) => {
        await ctx.session!.say('سأحولك بعد قليل.');
        await ctx.session!.generateReply();
        await ctx.session!.handoff(desk, { carry: 'none' });
        return { found: true };
      }),
    ],
    intents: [{ name: 'cards', examples: ['بطاقتي ضاعت'], tool: { name: 'look_up', args: () => ({}) }, reply: 'وجدت بطاقتك.' }],
  };
  // The desk's line comes after the takeover, which may be slow on a busy machine: the caller waits.
  const call = await runCall(front, [{ say: 'بطاقتي ضاعت' }, AGENT_ENDS], { sandbox });
  const said = call.agentTurns.map((t) => t.text);
  const at = (line: string) => said.indexOf(line);
  assert.ok(at('وجدت بطاقتك.') > 0 && at('سأحولك بعد قليل.') > at('وجدت بطاقتك.'), `the tool's reply, then its line: ${said.join(' | ')}`);
  assert.ok(at('معك قسم البطاقات.') > at('سأحولك بعد قليل.'), `then the desk took over: ${said.join(' | ')}`);
  assert.deepEqual(call.report.handoffs.map((h) => [h.from, h.to]), [['front', 'desk']]);
  assert.equal(call.ended, 'caller hung up');
});

test("a task's line answering a spoken turn is measured as that turn's reply (metrics, report, the trace's turn), as a model reply is", async () => {
  const agent: Agent = {
    ...callCentre,
    name: 'file-desk',
    hooks: { onEnter: (session) => void session.runTask(digitsTask({ kind: 'custom', length: 4, prompt: 'ما رقم ملفك؟' })) },
  };
  const call = await runCall(agent, [{ say: 'واحد اثنان ثلاثة أربعة' }, { say: 'نعم' }, { hangup: true }], { sandbox });
  const readBack = call.agentTurns.find((t) => t.task === 'digits:custom' && t.text.startsWith('الرقم'));
  assert.ok(readBack, `the number was read back: ${call.agentTurns.map((t) => t.text).join(' | ')}`);
  const v2v = readBack.metrics?.voiceToVoiceMs;
  assert.ok(typeof v2v === 'number' && v2v > 0, `the read-back has its voice-to-voice: ${JSON.stringify(readBack.metrics)}`);
  assert.ok(readBack.metrics?.endOfSpeechToFinalMs !== undefined && readBack.metrics.endOfTurnReason, 'and the recognition and turn-end parts');
  assert.ok(call.metrics.some((m) => m.voiceToVoiceMs === v2v), 'the metrics event told it');
  const started = call.events.filter((e) => e.type === 'reply_started' && 'turn' in e && e.turn !== undefined);
  assert.ok(started.length >= 1, 'the read-back reply names the caller turn it answers');
  assert.equal(call.agentTurns.find((t) => t.text === 'ما رقم ملفك؟')?.metrics, undefined, 'the first prompt answers no turn');
});


test("a tool's task asks its question in answer to the caller's turn: that question carries the turn's figures, not the tool's reply after the whole task", async () => {
  const agent: Agent = {
    ...callCentre,
    name: 'orders',
    tools: [
      plainTool('order_status', 'Where an order is', async (_args, ctx) => {
        const order = await ctx.session!.runTask(digitsTask({ kind: 'custom', length: 4, prompt: 'ما رقم طلبك؟' }));
        return { order: order.ok ? order.value : null, status: 'shipped' };
      }),
    ],
    intents: [{ name: 'order', examples: ['أين طلبي'], tool: { name: 'order_status' }, reply: 'طلبك في الطريق.' }],
  };
  const call = await runCall(agent, [{ say: 'أين طلبي' }, { say: 'واحد اثنان ثلاثة أربعة' }, { say: 'نعم' }, { hangup: true }], { sandbox });
  const question = call.agentTurns.find((t) => t.text === 'ما رقم طلبك؟');
  const answer = call.agentTurns.find((t) => t.text === 'طلبك في الطريق.');
  assert.ok(question && answer, call.agentTurns.map((t) => t.text).join(' | '));
  // The caller heard the question in answer to "أين طلبي": that is the turn's voice-to-voice.
  assert.equal(question.metrics?.endOfTurnCue, 'question:اين', JSON.stringify(question.metrics));
  assert.ok(question.metrics?.voiceToVoiceMs !== undefined);
  assert.equal(call.metrics.filter((m) => m.endOfTurnCue === 'question:اين').length, 1, 'one set of figures for the turn');
  // The "نعم" that ended the task got no line of the task's: the reply after the task answers it,
  // timed from that turn (not from "أين طلبي", the whole task before), the tool call's model time left out.
  const yes = call.events.find((e) => e.type === 'user_turn' && e.text === 'نعم');
  assert.ok(yes && yes.type === 'user_turn');
  assert.equal(answer.metrics?.turn, yes.turn, JSON.stringify(answer.metrics));
  assert.ok(answer.metrics?.voiceToVoiceMs !== undefined && answer.metrics.voiceToVoiceMs > 0, JSON.stringify(answer.metrics));
  assert.equal(answer.metrics?.llmFirstTokenMs, undefined, 'the tool call came before the task: not this turn\'s');
  assertEveryAnsweredTurnMeasured(call);
});

/** Every caller turn the agent answered has one `metrics` event naming it (the last turn, a hang-up's, may have none). */
function assertEveryAnsweredTurnMeasured(call: Awaited<ReturnType<typeof runCall>>): void {
  const turns = call.events.flatMap((e) => (e.type === 'user_turn' && e.turn !== undefined ? [e.turn] : []));
  const measured = call.events.flatMap((e) => (e.type === 'metrics' && e.metrics.turn !== undefined ? [e.metrics.turn] : []));
  const answered = turns.filter((n) => call.events.some((e) => e.type === 'reply_started' && e.turn === n) || measured.includes(n));
  assert.deepEqual(measured.toSorted((a, b) => a - b), answered, `caller turns ${turns.join(', ')}; measured ${measured.join(', ')}`);
  assert.ok(turns.slice(0, -1).every((n) => measured.includes(n)), `every turn but the last has its metrics: turns ${turns.join(', ')}, measured ${measured.join(', ')}`);
}

test("a caller turn that ends a task, then a hook's line: the line answers the turn, with the turn's metrics", async () => {
  const thanks = 'شكرًا، سجلت رقم ملفك.';
  const agent: Agent = {
    ...callCentre,
    name: 'file-desk',
    hooks: { onEnter: (session) => void session.runTask(digitsTask({ kind: 'custom', length: 4, prompt: 'ما رقم ملفك؟' })).then(() => session.say(thanks)) },
  };
  const call = await runCall(agent, [{ say: 'واحد اثنان ثلاثة أربعة' }, { say: 'نعم' }, { hangup: true, pauseMs: 4_000 }], { sandbox });
  const line = call.agentTurns.find((t) => t.text === thanks);
  assert.ok(line, call.agentTurns.map((t) => t.text).join(' | '));
  const yes = call.events.find((e) => e.type === 'user_turn' && e.text === 'نعم');
  assert.ok(yes && yes.type === 'user_turn');
  assert.equal(line.metrics?.turn, yes.turn, `the hook's line carries the turn that ended the task: ${JSON.stringify(line.metrics)}`);
  assert.ok(line.metrics?.voiceToVoiceMs !== undefined && line.metrics.voiceToVoiceMs > 0);
  assert.ok(call.metrics.some((m) => m.turn === yes.turn), 'a metrics event for it');
  const thanksReply = call.events.flatMap((x) => (x.type === 'agent_turn' && x.text === thanks ? [x.reply] : []))[0];
  assert.ok(!call.events.some((e) => e.type === 'line_metrics' && e.reply === thanksReply), 'not told as a line');
  assertEveryAnsweredTurnMeasured(call);
});

test("after a handoff, the next agent's generateReply runs a tool whose task ends on the caller's yes: the reply after the task answers that turn, with its figures; the next agent's greeting is not said", async () => {
  const booked = 'تم حجز موعدك.';
  const booking: Agent = {
    ...callCentre,
    name: 'booking',
    greeting: 'قسم الحجز.',
    tools: [
      plainTool('book', 'Books an appointment', async (_args, ctx) => {
        const file = await ctx.session!.runTask(digitsTask({ kind: 'custom', length: 4, prompt: 'ما رقم ملفك؟' }));
        return { booked: file.ok };
      }),
    ],
    intents: [{ name: 'book', examples: ['أريد حجز موعد'], tool: { name: 'book' }, reply: booked }],
    // It answers the request the caller made to reception (handed the full conversation).
    hooks: { onEnter: (session) => session.generateReply() },
  };
  const reception: Agent = {
    ...callCentre,
    name: 'reception',
    tools: [plainTool('to_booking', 'Hands the caller to booking', () => handoff(booking, { carry: 'full' }))],
    intents: [{ name: 'book', examples: ['أريد حجز موعد'], tool: { name: 'to_booking' }, reply: 'أحولك إلى قسم الحجز.' }],
    handoffs: [booking],
  };
  const call = await runCall(reception, [{ say: 'أريد حجز موعد' }, { say: 'واحد اثنان ثلاثة أربعة' }, { say: 'نعم' }, { hangup: true }], { sandbox });
  const texts = call.agentTurns.map((t) => t.text);
  assert.ok(texts.includes('ما رقم ملفك؟') && texts.includes(booked), texts.join(' | '));
  assert.ok(!texts.includes('قسم الحجز.'), `a greeting opens the call, not a handoff: ${texts.join(' | ')}`);
  const yes = call.events.find((e) => e.type === 'user_turn' && e.text === 'نعم');
  assert.ok(yes && yes.type === 'user_turn');
  const answer = call.agentTurns.find((t) => t.text === booked)!;
  assert.equal(answer.metrics?.turn, yes.turn, `the reply after the task answers the "نعم" that ended it: ${JSON.stringify(answer.metrics)}`);
  assert.ok(answer.metrics?.voiceToVoiceMs !== undefined && answer.metrics.voiceToVoiceMs > 0, JSON.stringify(answer.metrics));
  assert.equal(answer.metrics?.llmFirstTokenMs, undefined, "the tool call came before the task: not this turn's");
  assert.ok(call.metrics.some((m) => m.turn === yes.turn), 'a metrics event for it');
  // The first prompt follows the handoff's line, which answered "أريد حجز موعد": it answers no turn.
  assert.equal(call.agentTurns.find((t) => t.text === 'ما رقم ملفك؟')?.metrics, undefined);
  assertEveryAnsweredTurnMeasured(call);
});

import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { z } from 'zod';
import { OpenAiLlm, ScriptedLlm, defineTool, matchIntent, runTools, streamReply, type ChatMessage, type Intent } from '../../src/llm/index.ts';
import { Deadline } from '../helpers/deadline.ts';

/** A local server speaking the Chat Completions streaming protocol (SSE). */
const requests: any[] = [];
let server: ReturnType<typeof createServer>;
let baseURL = '';
const sse = (res: ServerResponse, chunks: object[], delayMs = 5) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  let i = 0;
  const next = () => {
    if (res.destroyed) return;
    if (i < chunks.length) {
      res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: chunks[i++], finish_reason: null }] })}\n\n`);
      setTimeout(next, delayMs);
    } else res.end('data: [DONE]\n\n');
  };
  next();
};
before(async () => {
  server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    for await (const c of req) body += c;
    const json = JSON.parse(body);
    requests.push({ json, auth: req.headers.authorization });
    const last = json.messages.at(-1);
    if (last.role === 'tool') {
      const balance = json.messages.find((m: any) => m.tool_call_id === 'call_a');
      return sse(res, [{ content: 'رصيدك ' }, { content: JSON.parse(balance.content).balance + ' ريال.' }]);
    }
    if (last.content.includes('رصيد')) {
      return sse(res, [
        { tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_balance', arguments: '{"acc' } }] },
        { tool_calls: [{ index: 0, function: { arguments: 'ount":"main"}' } }] },
        { tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'get_branch_hours', arguments: '{}' } }] },
      ]);
    }
    if (last.content.includes('طويل')) return sse(res, Array.from({ length: 200 }, () => ({ content: 'كلمة ' })), 20);
    sse(res, [{ role: 'assistant', content: 'مرحبا ' }, { content: 'بك في ' }, { content: 'البنك.' }]);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
after(() => server.close());

const tools = [
  defineTool({ name: 'get_balance', description: 'balance', parameters: z.object({ account: z.string() }), execute: async ({ account }) => ({ account, balance: 250 }) }),
  defineTool({ name: 'get_branch_hours', description: 'hours', parameters: z.object({}), execute: () => ({ open: '9:00' }) }),
];
const llm = () => new OpenAiLlm({ baseURL, apiKey: 'sk-llm-test', model: 'test-model' });

test('openai adapter: text deltas stream in order, with model, key and tools declared', async () => {
  const out: string[] = [];
  for await (const e of llm().stream({ messages: [{ role: 'user', content: 'مرحبا' }], tools, signal: new AbortController().signal })) {
    if (e.type === 'text') out.push(e.delta);
  }
  // Deltas that arrive in one read are handed on as one text event (on purpose: each event costs
  // the turn a step through the reply's stages), so how many events come depends on how the
  // server's three writes were read; what must hold is the text, in order, with no empty event.
  assert.equal(out.join(''), 'مرحبا بك في البنك.');
  assert.ok(out.length >= 1 && out.length <= 3 && out.every((d) => d.length > 0), JSON.stringify(out));
  const sent = requests.at(-1)!;
  assert.equal(sent.json.model, 'test-model');
  assert.equal(sent.json.stream, true);
  assert.equal(sent.auth, 'Bearer sk-llm-test');
  assert.equal(sent.json.tools[0].function.parameters.properties.account.type, 'string');
});

test('tool round trip: streamed tool-call deltas assembled, both tools run, result fed back', async () => {
  const events = [];
  for await (const e of streamReply(llm(), [{ role: 'user', content: 'كم رصيدي' }], tools, new AbortController().signal)) events.push(e);
  const started = events.filter((e) => e.type === 'tool_started').map((e) => e.type === 'tool_started' && e.name);
  assert.deepEqual(started, ['get_balance', 'get_branch_hours']);
  const text = events.filter((e) => e.type === 'text').map((e) => (e.type === 'text' ? e.delta : '')).join('');
  assert.equal(text, 'رصيدك 250 ريال.');
  const second = requests.at(-1)!.json.messages;
  assert.equal(second.at(-3).tool_calls[0].function.arguments, '{"account":"main"}');
  assert.equal(second.at(-2).role, 'tool');
  assert.equal(second.at(-2).tool_call_id, 'call_a');
});

test('abort stops the stream promptly', async () => {
  const ctrl = new AbortController();
  let n = 0;
  const prompt = new Deadline(2000);
  try {
    for await (const e of llm().stream({ messages: [{ role: 'user', content: 'رد طويل' }], tools: [], signal: ctrl.signal })) {
      if (e.type === 'text' && ++n === 3) ctrl.abort();
    }
  } catch (err) {
    assert.match(String((err as Error).name), /Abort/); // ending quietly or with an abort error are both fine
  }
  assert.ok(!prompt.expired, 'within 2 s of the machine\'s time');
  assert.ok(n < 10);
});

test('runTools: parallel, and bad arguments or throwing tools become readable errors', async () => {
  // Parallel means both slow calls start before either ends (order, not a stopwatch).
  const log: string[] = [];
  const slow = defineTool({
    name: 'slow',
    description: '',
    parameters: z.object({}),
    execute: async () => {
      log.push('start');
      await new Promise((r) => setTimeout(r, 50));
      log.push('end');
      return 'ok';
    },
  });
  const boom = defineTool({ name: 'boom', description: '', parameters: z.object({}), execute: () => { throw new Error('service down'); } });
  const out = await runTools(
    [
      { id: '1', name: 'slow', arguments: '{}' },
      { id: '2', name: 'slow', arguments: '{}' },
      { id: '3', name: 'boom', arguments: '{}' },
      { id: '4', name: 'get_balance', arguments: '{"account":5}' },
      { id: '5', name: 'nope', arguments: '{}' },
      { id: '6', name: 'slow', arguments: '{oops' },
    ],
    [...tools, slow, boom],
    { signal: new AbortController().signal },
  );
  assert.deepEqual(log, ['start', 'start', 'end', 'end'], 'the two slow calls ran together');
  assert.deepEqual(out.map((o) => o.error ?? 'ok'), ['ok', 'ok', 'service down', out[3]!.error, 'unknown tool nope', 'arguments are not valid JSON']);
  assert.match(out[3]!.error!, /invalid arguments/);
});

const intents: Intent[] = [
  { name: 'balance', examples: ['كم رصيدي', 'رصيد حسابي'], tool: { name: 'get_balance', args: () => ({ account: 'main' }) }, reply: (r) => `رصيدك ${(r as { balance: number }).balance} ريال.` },
  { name: 'hours', examples: ['متى يفتح الفرع'], reply: 'يفتح الفرع الساعة التاسعة.' },
];

test('scripted dialogue: intents matched after normalization, tools called, replies streamed', async () => {
  assert.equal(matchIntent(intents, 'أُريدُ معرفةَ رَصيد حسابي من فضلك')?.name, 'balance');
  assert.equal(matchIntent(intents, 'متى يفتح الفرع غدا')?.name, 'hours');
  assert.equal(matchIntent(intents, 'الطقس جميل'), undefined);
  const scripted = new ScriptedLlm({ intents, fallback: 'عذرا لم أفهم.', tokenDelayMs: 1, firstTokenDelayMs: 1 });
  const messages: ChatMessage[] = [{ role: 'user', content: 'كم رصيدي' }];
  let text = '';
  for await (const e of streamReply(scripted, messages, tools, new AbortController().signal)) if (e.type === 'text') text += e.delta;
  assert.equal(text, 'رصيدك 250 ريال.');
  let fallback = '';
  for await (const e of streamReply(scripted, [{ role: 'user', content: 'الطقس' }], tools, new AbortController().signal)) if (e.type === 'text') fallback += e.delta;
  assert.equal(fallback, 'عذرا لم أفهم.');
});

test('scripted model asked again for a turn it answered (generateReply from a tool): says the answer again from the tool result, the tool not run again', async () => {
  const scripted = new ScriptedLlm({ intents, fallback: 'عذرا لم أفهم.', tokenDelayMs: 1, firstTokenDelayMs: 1 });
  let runs = 0;
  const counted = tools.map((t) => (t.name === 'get_balance' ? { ...t, execute: (...a: Parameters<typeof t.execute>) => (runs++, t.execute(...a)) } : t));
  const answered: ChatMessage[] = [
    { role: 'user', content: 'كم رصيدي' },
    { role: 'assistant', content: '', tool_calls: [{ id: 'call_1', name: 'get_balance', arguments: '{"account":"main"}' }] },
    { role: 'tool', tool_call_id: 'call_1', name: 'get_balance', content: '{"balance":250}' },
    { role: 'assistant', content: 'رصيدك 250 ريال.' },
  ];
  let again = '';
  for await (const e of streamReply(scripted, answered, counted, new AbortController().signal)) {
    assert.notEqual(e.type, 'tool_started', 'no tool call for a turn already answered');
    if (e.type === 'text') again += e.delta;
  }
  assert.equal(again, 'رصيدك 250 ريال.');
  assert.equal(runs, 0);
  // Another tool's round after the turn (a handoff to the agent now asked): the turn is still to
  // answer, and its intent's tool runs.
  const handedOff: ChatMessage[] = [
    answered[0]!,
    { role: 'assistant', content: '', tool_calls: [{ id: 'call_0', name: 'to_accounts', arguments: '{}' }] },
    { role: 'tool', tool_call_id: 'call_0', name: 'to_accounts', content: '"ok"' },
    { role: 'assistant', content: 'أحولك إلى قسم الحسابات.' },
  ];
  let after = '';
  for await (const e of streamReply(scripted, handedOff, counted, new AbortController().signal)) if (e.type === 'text') after += e.delta;
  assert.equal(after, 'رصيدك 250 ريال.');
  assert.equal(runs, 1);
  // A new caller turn after an answered one: the tool runs as ever.
  let fresh = '';
  for await (const e of streamReply(scripted, [...answered, { role: 'user', content: 'رصيد حسابي' }], counted, new AbortController().signal)) if (e.type === 'text') fresh += e.delta;
  assert.equal(fresh, 'رصيدك 250 ريال.');
  assert.equal(runs, 2);
});

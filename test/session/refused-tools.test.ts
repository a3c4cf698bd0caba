// A tool call refused before the tool ran, because the agent has no such tool (not allowed) or
// the reply already had its `maxToolRounds` (over the limit), is marked failed as docs/agents.md
// says: `{ error }` in a tool message marked `failed: true`, the report's and `toolCalls`' entry
// with its `error` and no `threw`; a reply whose calls were all refused still says something.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import callCentre from '../../agents/call-centre/index.ts';
import { REPLY_DEFAULTS } from '../../src/pipeline/reply.ts';
import { streamReply, ToolRoundsExceeded, type ChatMessage, type Llm, type ReplyEvent } from '../../src/llm/index.ts';
import { runCall, startTestSandbox, type TestSandbox } from '../../src/testing/index.ts';
import { balanceTool } from './flow-tools.ts';

let sandbox: TestSandbox;
before(async () => (sandbox = await startTestSandbox()));
after(() => sandbox.close());

/** A model that calls `tool` whatever it is told, or says `line` once a tool has answered. */
const modelCalling = (tool: string, line?: string): Llm => {
  let n = 0;
  return {
    name: `calls-${tool}`,
    async *stream(req) {
      if (line && req.messages.at(-1)?.role === 'tool') yield { type: 'text', delta: line };
      else yield { type: 'tool_calls', calls: [{ id: `call_${++n}`, name: tool, arguments: '{}' }] };
    },
  };
};

test('streamReply: calls past maxRounds are refused as failed outcomes and tool messages, and the reply fails', async () => {
  const events: ReplyEvent[] = [];
  const tools = [balanceTool('Balance', () => ({ balance: 1 }))];
  await assert.rejects(async () => {
    for await (const e of streamReply(modelCalling('get_balance'), [{ role: 'user', content: 'كم رصيدي' }], tools, new AbortController().signal, { maxRounds: 1 })) events.push(e);
  }, ToolRoundsExceeded);
  const outcomes = events.flatMap((e) => (e.type === 'tool_finished' ? [e.outcome] : []));
  assert.deepEqual(outcomes.map((o) => [o.error ?? 'ran', o.threw ?? false]), [['ran', false], [outcomes[1]!.error, false]]);
  assert.match(outcomes[1]!.error!, /^refused: .*maxToolRounds/);
  const messages = events.flatMap((e) => (e.type === 'messages' ? e.added : [])).filter((m): m is Extract<ChatMessage, { role: 'tool' }> => m.role === 'tool');
  assert.deepEqual(messages.map((m) => m.failed ?? false), [false, true], 'the refused call is a failed tool message');
});

test("a call the agent has no tool for, and one over maxToolRounds, are in the report as failed (error, no threw); the caller hears an answer", async () => {
  const [notAllowed, overLimit] = await Promise.all([
    runCall(callCentre, [{ say: 'كم رصيدي' }, { hangup: true }], { sandbox, llm: modelCalling('launch_rockets', 'لا أستطيع ذلك.') }),
    runCall(callCentre, [{ say: 'كم رصيدي' }, { hangup: true }], { sandbox, llm: modelCalling('get_balance') }),
  ]);
  const entry = (call: typeof notAllowed) => call.report.tools?.map((t) => ({ name: t.name, error: t.error, threw: t.threw ?? false }));
  assert.deepEqual(entry(notAllowed), [{ name: 'launch_rockets', error: 'unknown tool launch_rockets', threw: false }]);
  assert.deepEqual(notAllowed.toolCalls.map((t) => t.error), ['unknown tool launch_rockets']);
  assert.ok(notAllowed.agentTurns.some((t) => t.text === 'لا أستطيع ذلك.'), 'the model answered the failed call');
  const limit = REPLY_DEFAULTS.maxToolRounds;
  const tools = entry(overLimit)!;
  assert.equal(tools.length, limit + 1, `${limit} rounds ran, the next was refused: ${JSON.stringify(tools)}`);
  assert.ok(tools.slice(0, limit).every((t) => !t.error));
  assert.match(tools[limit]!.error ?? '', /^refused: .*maxToolRounds/);
  assert.equal(tools[limit]!.threw, false);
  const said = overLimit.agentTurns.map((t) => t.text);
  assert.ok(said.includes(REPLY_DEFAULTS.modelErrorLine), `the caller heard the recovery line, not an empty reply: ${said.join(' | ')}`);
  assert.ok(!said.includes(''), 'no empty reply');
  const errors = overLimit.events.flatMap((e) => (e.type === 'error' ? [`${e.source}:${e.kind}: ${e.message}`] : []));
  assert.deepEqual(errors, [`llm:model: the language model failed to produce an answer (it still asked for tools after ${limit} rounds of them in one reply: maxToolRounds)`]);
});

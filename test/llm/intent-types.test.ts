/**
 * `defineIntent`: an intent's `reply` gets what its tool returns, typed, and its `args` are checked
 * against the tool's parameters. The `@ts-expect-error` lines are the test of the types: the
 * project's type check (`npx tsc --noEmit -p .`, and `npm test`'s) fails if one of them compiles.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import { defineIntent, defineTool, ScriptedLlm, type Intent, type LlmEvent, type Tool } from '../../src/index.ts';

const getBalance = defineTool({
  name: 'get_balance',
  description: 'Balance of an account',
  parameters: z.object({ account: z.enum(['current', 'savings']).default('current') }),
  execute: async ({ account }) => ({ account, balance: 12500, currency: 'SAR' as const }),
});

const balance = defineIntent(getBalance, {
  name: 'balance',
  examples: ['كم رصيدي'],
  args: (t) => ({ account: /توفير/.test(t) ? 'savings' : 'current' }),
  // `r` is the tool's result, not `unknown`: no cast.
  reply: (r) => `رصيد ${r.account === 'savings' ? 'التوفير' : 'الجاري'} ${r.balance.toLocaleString('en-US')} ${r.currency}.`,
});

/** Misuses the compiler refuses (never run: they only have to fail to compile). */
export function refused(): Intent[] {
  return [
    // @ts-expect-error the tool returns no `overdraft`
    defineIntent(getBalance, { name: 'x', examples: ['x'], reply: (r) => `${r.overdraft}` }),
    // @ts-expect-error `balance` is a number, not a string
    defineIntent(getBalance, { name: 'x', examples: ['x'], reply: (r) => r.balance.toUpperCase() }),
    // @ts-expect-error `cheque` is not an account the tool's parameters take
    defineIntent(getBalance, { name: 'x', examples: ['x'], args: () => ({ account: 'cheque' }), reply: 'x' }),
  ];
}

test("defineIntent: the intent calls its tool, with its args, and says reply(result) from the tool's result", async () => {
  // The intent and the tool go into an agent's `intents` and `tools` as before.
  const intents: Intent[] = [balance];
  const tools: Tool[] = [getBalance];
  assert.deepEqual(intents[0]!.tool?.name, 'get_balance');
  assert.deepEqual(intents[0]!.tool?.args?.('رصيد التوفير'), { account: 'savings' });
  const llm = new ScriptedLlm({ intents, fallback: 'لم أفهم', firstTokenDelayMs: 0, tokenDelayMs: 0 });
  const signal = new AbortController().signal;
  const text = async (events: AsyncIterable<LlmEvent>) => {
    let out = '';
    for await (const e of events) if (e.type === 'text') out += e.delta;
    return out;
  };
  const first: LlmEvent[] = [];
  for await (const e of llm.stream({ messages: [{ role: 'user', content: 'كم رصيدي' }], tools, signal })) first.push(e);
  const call = first.find((e) => e.type === 'tool_calls')?.calls[0];
  assert.equal(call?.name, 'get_balance');
  const result = await tools[0]!.execute(getBalance.parameters.parse(JSON.parse(call!.arguments)), { signal });
  const said = await text(
    llm.stream({
      messages: [
        { role: 'user', content: 'كم رصيدي' },
        { role: 'assistant', content: '', tool_calls: [call!] },
        { role: 'tool', tool_call_id: call!.id, name: call!.name, content: JSON.stringify(result) },
      ],
      tools,
      signal,
    }),
  );
  assert.equal(said, 'رصيد الجاري 12,500 SAR.');
});

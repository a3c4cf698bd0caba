// The tool filler: said once while a slow tool works, and not while the tool runs a task (the
// task's question is what the caller hears then; "one moment" after it was said before).
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { z } from 'zod';
import { ScriptedLlm, defineTool, streamReply, type Tool } from '../../src/llm/index.ts';
import type { SessionControl } from '../../src/session/control.ts';

const llm = new ScriptedLlm({ intents: [{ name: 'book', examples: ['أريد موعدا'], tool: { name: 'book', args: () => ({}) }, reply: 'تم.' }], fallback: '؟', tokenDelayMs: 1, firstTokenDelayMs: 1 });

/** A session whose tasks take `ms` to get the caller's answer. */
const session = (ms: number): SessionControl => ({
  agent: { name: 'a', instructions: '', voice: { voice_id: 'v' }, outOfServiceLine: '' },
  say: async () => {},
  generateReply: async () => {},
  handoff: async () => {},
  runTask: async () => (await sleep(ms), { ok: true, value: true }) as never,
  summarize: async () => '',
});

async function fillerLines(execute: Tool['execute']): Promise<string[]> {
  const tools = [defineTool({ name: 'book', description: 'Books', parameters: z.object({}), execute })];
  const lines: string[] = [];
  const events = streamReply(llm, [{ role: 'user', content: 'أريد موعدا' }], tools, new AbortController().signal, { session: session(400), toolFiller: { line: 'لحظة من فضلك', afterMs: 50 } });
  for await (const e of events) if (e.type === 'tool_slow') lines.push(e.line);
  return lines;
}

test('a slow tool gets the filler line; a tool that runs a task for as long does not', async () => {
  assert.deepEqual(await fillerLines(async () => (await sleep(400), { booked: true })), ['لحظة من فضلك']);
  assert.deepEqual(await fillerLines(async (_args, ctx) => ({ booked: (await ctx.session!.runTask({ name: 'confirm', start: () => ({ say: '؟' }), next: () => ({ done: { ok: true, value: true } }), timeout: () => ({}) })).ok })), []);
});

test('a tool still working after its task has ended gets the filler then: the lookup of what the task collected', async () => {
  const task = { name: 'confirm', start: () => ({ say: '؟' }), next: () => ({ done: { ok: true as const, value: true } }), timeout: () => ({}) };
  // The task takes 400 ms, then the tool works 400 ms more: the filler comes after the task.
  assert.deepEqual(await fillerLines(async (_args, ctx) => (await ctx.session!.runTask(task), await sleep(400), { booked: true })), ['لحظة من فضلك']);
  // Done soon after its task (within afterMs): none.
  assert.deepEqual(await fillerLines(async (_args, ctx) => (await ctx.session!.runTask(task), await sleep(5), { booked: true })), []);
});

// What `hiwar demo|serve|call --agent` and `runCall` refuse before a call starts: an agent whose
// tools cannot run, or whose scripted intents call a tool it lacks (before: "tool x → null" mid-call).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import callCentre from '../../agents/call-centre/index.ts';
import { billing, cards, greeter } from '../../agents/call-centre/flow.ts';
import { defineTool } from '../../src/llm/types.ts';
import { Handoff, handoff } from '../../src/session/handoff.ts';
import type { Agent } from '../../src/session/agent.ts';
import { agentProblem, reachableAgents } from '../../src/session/check-agent.ts';
import { agentPhrases } from '../../src/session/agent-phrases.ts';

const base: Agent = { name: 'x', instructions: 'y', voice: { voice_id: 'ar-hijazi-female-1' }, outOfServiceLine: 'z' };
const tool = defineTool({ name: 'book', description: 'Books', parameters: z.object({}), execute: () => ({ booked: true }) });

test('the shipped agents pass', () => {
  for (const agent of [callCentre, greeter, cards, billing, { ...base, tools: [tool], intents: [{ name: 'b', examples: ['موعد'], tool: { name: 'book' }, reply: 'تم.' }] }]) assert.equal(agentProblem(agent), undefined, agent.name);
});

test('tools that cannot run and intents calling a missing tool are named', () => {
  const problem = (extra: object) => agentProblem({ ...base, ...extra });
  assert.equal(problem({ intents: [{ name: 'balance', examples: ['كم رصيدي'], tool: { name: 'get_balance' }, reply: 'ok' }] }), 'intent balance calls tool get_balance, which the agent does not have (its tools: none)');
  assert.equal(problem({ tools: [tool], intents: [{ name: 'b', examples: ['x'], tool: { name: 'bok' }, reply: 'ok' }] }), 'intent b calls tool bok, which the agent does not have (its tools: book)');
  assert.equal(problem({ tools: [{ name: 't', description: 'd', parameters: { type: 'object' }, execute: () => 1 }] }), 'tool t: parameters is not a zod schema (z.object({…}); defineTool makes one)');
  assert.equal(problem({ tools: [{ ...tool, execute: undefined }] }), 'tool book has no execute function');
  assert.equal(problem({ tools: [{ ...tool, timeoutMs: 0 }] }), 'tool book: timeoutMs is 0; give milliseconds above 0, or false for no limit');
  assert.equal(problem({ tools: [{ ...tool, timeoutMs: false }] }), undefined);
  assert.equal(problem({ tools: [tool, tool] }), 'two tools are named book');
  assert.equal(problem({ tools: [{ description: 'd' }] }), 'tools[0] has no name');
  assert.equal(problem({ tools: tool }), 'tools is not an array');
});

test('a hook under a name the session never calls (it was kept and never ran) and a hook that is not a function are named', () => {
  const problem = (extra: object) => agentProblem({ ...base, ...extra });
  assert.equal(problem({ hooks: { onStart: () => {} } }), 'hooks.onStart is not a hook (the hooks: onCallStart, onUserTurn, onAgentTurn, onDtmf, onEnter, onExit)');
  assert.equal(problem({ hooks: { onEnter: 'greet' } }), 'hooks.onEnter is not a function');
  assert.equal(problem({ hooks: [] }), 'hooks is not an object of functions');
  assert.equal(problem({ hooks: { onEnter: async () => {}, onExit: undefined } }), undefined);
});

test('a handoff names what is wrong with the next agent (it is inside a tool, out of sight of the checks before the call)', () => {
  assert.throws(() => handoff({ ...base, outOfServiceLine: undefined } as unknown as Agent), /^TypeError: handoff: the first argument is not an Agent \(missing outOfServiceLine\)$/);
  assert.throws(() => handoff({ ...base, intents: [{ name: 'b', examples: ['x'], tool: { name: 'book' }, reply: 'ok' }] }), /handoff: the first argument is not an Agent \(intent b calls tool book, which the agent does not have \(its tools: none\)\)/);
  assert.equal(handoff({ ...base, tools: [tool] }).agent.name, 'x');
});


test('the agents in `handoffs` are checked too, followed on and each once (a flow may loop back)', () => {
  const broken = { ...base, name: 'desk', outOfServiceLine: undefined } as unknown as Agent;
  assert.equal(agentProblem({ ...base, handoffs: [{ ...base, name: 'mid', handoffs: [broken] }] }), 'handoffs: agent desk: missing outOfServiceLine');
  assert.equal(agentProblem({ ...base, handoffs: [{ ...base, name: 'mid', handoffs: 'desk' }] }), 'handoffs: agent mid: handoffs is not an array');
  assert.equal(agentProblem({ ...base, handoffs: [null] }), 'handoffs: an agent: it is null, not an object');
  const a: Agent = { ...base, name: 'a' };
  const b: Agent = { ...base, name: 'b', handoffs: [a] };
  a.handoffs = [b, a];
  assert.deepEqual(reachableAgents(a).map((x) => x.name), ['a', 'b']);
  assert.equal(agentProblem(a), undefined);
});

test("the offline recognizer is taught the examples of the agents a flow hands to, keys left out", () => {
  const phrases = agentPhrases(greeter);
  for (const said of ['بطاقتي ضاعت', 'كم رصيدي', 'أريد التحدث مع موظف', 'موظف خدمة العملاء']) assert.ok(phrases.includes(said), said);
  assert.ok(!phrases.some((p) => p.includes('DTMF')));
  assert.equal(new Set(phrases).size, phrases.length, 'each once');
  assert.deepEqual(agentPhrases({ ...greeter, handoffs: undefined }), greeter.intents!.flatMap((i) => i.examples), 'without handoffs: its own');
});

test('a handoff made by another copy of hiwar is a handoff here (a global CLI running an agent that imports its own)', async () => {
  // A query makes another module of the same file, as a second install of hiwar is (the file of
  // this run: the sources, or the compiled tree scripts/test.mjs runs).
  const own = new URL(`../../src/session/handoff.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url);
  const copy = (await import(`${own.href}?copy`)) as typeof import('../../src/session/handoff.ts');
  assert.notEqual(copy.Handoff, Handoff, 'two copies of the module');
  const theirs = copy.handoff({ ...base, name: 'desk' }, { carry: 'none' });
  assert.ok(theirs instanceof Handoff);
  assert.ok(handoff({ ...base }) instanceof copy.Handoff);
  for (const notOne of [{ agent: base, carry: 'none' }, null, undefined, 'handoff', JSON.parse(JSON.stringify(theirs))]) assert.equal(notOne instanceof Handoff, false, String(notOne));
});

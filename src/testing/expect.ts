import { AssertionError, deepStrictEqual } from 'node:assert';
import type { ReportHandoff, ReportTask, ReportTurn, SessionEvent } from '../session/events.ts';
import type { TestCall, TestToolCall } from './run-call.ts';

/**
 * Assertions on a finished call for any test runner: each returns what it found, or throws an
 * `AssertionError` whose message shows what the call did instead (the turns, the tools), so a
 * failure in CI says what happened without a rerun.
 */

const matches = (text: string, pattern: string | RegExp) => (typeof pattern === 'string' ? text.includes(pattern) : pattern.test(text));

const fail = (message: string, actual: unknown, expected: unknown, fn: Function): never => {
  throw new AssertionError({ message, actual, expected, operator: fn.name, stackStartFn: fn });
};

/** Each key of `expected` equals (deeply) the same key of `actual`; other keys of `actual` are free. */
function partiallyEqual(actual: unknown, expected: Record<string, unknown>): boolean {
  if (!actual || typeof actual !== 'object') return false;
  try {
    for (const [k, v] of Object.entries(expected)) deepStrictEqual((actual as Record<string, unknown>)[k], v);
    return true;
  } catch {
    return false;
  }
}

const listTools = (call: TestCall) => (call.toolCalls.length ? call.toolCalls.map((t) => `${t.name}(${JSON.stringify(t.args)})`).join(', ') : 'none');
const listTurns = (turns: string[]) => (turns.length ? turns.map((t) => `\n  - ${t}`).join('') : ' none');

/**
 * The first call of tool `name` whose arguments include `args` (each key given equal, deeply;
 * keys not given are not checked).
 */
export function expectToolCall(call: TestCall, name: string, args?: Record<string, unknown>): TestToolCall {
  const found = call.toolCalls.find((t) => t.name === name && (args === undefined || partiallyEqual(t.args, args)));
  if (found) return found;
  return fail(`expected a call of tool ${name}${args ? ` with ${JSON.stringify(args)}` : ''}; tools called: ${listTools(call)}`, call.toolCalls, { name, args }, expectToolCall);
}

/** Fails if tool `name` ran at all. */
export function expectNoToolCall(call: TestCall, name: string): void {
  const found = call.toolCalls.find((t) => t.name === name);
  if (found) fail(`expected no call of tool ${name}; tools called: ${listTools(call)}`, call.toolCalls, undefined, expectNoToolCall);
}

/** The first agent turn whose text contains `pattern` (or matches it). */
export function expectAgentSaid(call: TestCall, pattern: string | RegExp): ReportTurn {
  const found = call.agentTurns.find((t) => matches(t.text, pattern));
  if (found) return found;
  return fail(`expected the agent to say ${String(pattern)}; it said:${listTurns(call.agentTurns.map((t) => t.text))}`, call.agentTurns.map((t) => t.text), pattern, expectAgentSaid);
}

/** The first caller turn the agent heard whose text contains `pattern` (or matches it). */
export function expectHeard(call: TestCall, pattern: string | RegExp): string {
  const found = call.userTurns.find((t) => matches(t, pattern));
  if (found !== undefined) return found;
  return fail(`expected the agent to hear ${String(pattern)}; it heard:${listTurns(call.userTurns)}`, call.userTurns, pattern, expectHeard);
}

/** Fails if the session reported an error (a failed socket, a model error, a hook that threw). */
export function expectNoErrors(call: TestCall): void {
  const errors = call.events.flatMap((e) => (e.type === 'error' ? [`${e.source}/${e.kind}: ${e.message}`] : []));
  if (errors.length) fail(`expected no errors; the session reported:${listTurns(errors)}`, errors, [], expectNoErrors);
}

/** The first handoff to agent `to` (from agent `from`, when given). */
export function expectHandoff(call: TestCall, to: string, from?: string): ReportHandoff {
  const found = call.report.handoffs.find((h) => h.to === to && (from === undefined || h.from === from));
  if (found) return found;
  const made = call.report.handoffs.map((h) => `${h.from} → ${h.to} (${h.carry})`);
  return fail(`expected a handoff${from ? ` from ${from}` : ''} to ${to}; handoffs:${listTurns(made)}`, call.report.handoffs, { from, to }, expectHandoff);
}

/** The first task named `name` (`digits:phone`, `date`, `confirm`…) whose result includes `result` (each key given equal, deeply). */
export function expectTask(call: TestCall, name: string, result?: Record<string, unknown>): ReportTask {
  const found = call.report.tasks.find((t) => t.name === name && (result === undefined || partiallyEqual(t.result, result)));
  if (found) return found;
  const ran = call.report.tasks.map((t) => `${t.name} → ${JSON.stringify(t.result)}`);
  return fail(`expected a task ${name}${result ? ` ending ${JSON.stringify(result)}` : ''}; tasks run:${listTurns(ran)}`, call.report.tasks, { name, result }, expectTask);
}

/** The first `error` event whose fields include `fields` (`{ source: 'agent', kind: 'tool', tool: 'get_balance' }`). */
export function expectError(call: TestCall, fields: Partial<Pick<Extract<SessionEvent, { type: 'error' }>, 'source' | 'kind' | 'tool' | 'task' | 'fatal'>> = {}): Extract<SessionEvent, { type: 'error' }> {
  const errors = call.events.filter((e): e is Extract<SessionEvent, { type: 'error' }> => e.type === 'error');
  const found = errors.find((e) => partiallyEqual(e, fields));
  if (found) return found;
  return fail(`expected an error ${JSON.stringify(fields)}; the session reported:${listTurns(errors.map((e) => `${e.source}/${e.kind}${e.tool ? ` (tool ${e.tool})` : ''}: ${e.message}`))}`, errors, fields, expectError);
}

import { AssertionError, deepStrictEqual } from 'node:assert';
import type { ReportTurn } from '../session/events.ts';
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

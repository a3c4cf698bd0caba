/**
 * Call variables in an agent's text: `{name}` in the greeting and the instructions is replaced
 * by the call's parameter of that name ("مرحبًا {name}، معك سارة…"). A placeholder is a name
 * of letters (Arabic too), digits and `_` in braces; other braces (JSON in instructions) are left
 * alone. A placeholder with no value is an error, never spoken as "{name}".
 */
import type { Agent } from './agent.ts';

const PLACEHOLDER = /\{([\p{L}_][\p{L}\p{N}_]*)\}/gu;

/** Variables an agent's text needs but the call does not carry. */
export class MissingVariablesError extends Error {
  override readonly name = 'MissingVariablesError';
  constructor(readonly missing: string[]) {
    super(`missing call variable${missing.length > 1 ? 's' : ''}: ${missing.join(', ')} (the agent's greeting or instructions use ${missing.map((m) => `{${m}}`).join(', ')})`);
  }
}

/** The placeholder names in a text, each once, in order of appearance. */
export function placeholders(text: string | undefined): string[] {
  return [...new Set([...(text ?? '').matchAll(PLACEHOLDER)].map((m) => m[1]!))];
}

/** The variables an agent's greeting and instructions use. */
export function agentVariables(agent: Pick<Agent, 'greeting' | 'instructions'>): string[] {
  return [...new Set([...placeholders(agent.greeting), ...placeholders(agent.instructions)])];
}

/** The names `agent` uses that `values` lacks (empty values count as missing). */
export function missingVariables(agent: Pick<Agent, 'greeting' | 'instructions'>, values: Record<string, string>): string[] {
  return agentVariables(agent).filter((n) => !values[n]);
}

/** `text` with every placeholder filled; throws `MissingVariablesError` naming what is missing. */
export function fillVariables(text: string, values: Record<string, string>): string {
  const missing = placeholders(text).filter((n) => !values[n]);
  if (missing.length) throw new MissingVariablesError(missing);
  return text.replace(PLACEHOLDER, (_, n: string) => values[n]!);
}

/**
 * The agent with its greeting and instructions filled from `values` (a call's parameters). The
 * same object when it uses no variables; throws `MissingVariablesError` when one has no value.
 */
export function agentWithVariables(agent: Agent, values: Record<string, string>): Agent {
  const missing = missingVariables(agent, values);
  if (missing.length) throw new MissingVariablesError(missing);
  if (!agentVariables(agent).length) return agent;
  return {
    ...agent,
    instructions: fillVariables(agent.instructions, values),
    ...(agent.greeting !== undefined ? { greeting: fillVariables(agent.greeting, values) } : {}),
  };
}

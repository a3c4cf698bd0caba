import type { Agent } from '../session/agent.ts';

/**
 * What makes a value not an Agent (the fields every agent needs), for a one-line error; undefined
 * when it is one. Agents loaded from a user's JavaScript, or from TypeScript run without a type
 * check, reach hiwar unchecked: a missing field would otherwise surface mid-call.
 */
export function agentProblem(v: unknown): string | undefined {
  if (!v || typeof v !== 'object') return `it is ${v === null ? 'null' : typeof v}, not an object`;
  const a = v as Partial<Agent>;
  const missing = [
    typeof a.name === 'string' && a.name ? undefined : 'name',
    typeof a.instructions === 'string' ? undefined : 'instructions',
    a.voice && typeof a.voice === 'object' && typeof a.voice.voice_id === 'string' ? undefined : 'voice: { voice_id }',
    typeof a.outOfServiceLine === 'string' ? undefined : 'outOfServiceLine',
  ].filter(Boolean);
  return missing.length ? `missing ${missing.join(', ')}` : undefined;
}

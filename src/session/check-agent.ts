import type { Agent } from './agent.ts';

/**
 * What makes a value not an Agent (the fields every agent needs), for a one-line error; undefined
 * when it is one. Agents loaded from a user's JavaScript, or from TypeScript run without a type
 * check, reach hiwar unchecked: a missing field would otherwise surface mid-call.
 */
export function agentProblem(v: unknown): string | undefined {
  const own = oneAgentProblem(v);
  if (own) return own;
  for (const next of reachableAgents(v as Agent).slice(1)) {
    const problem = oneAgentProblem(next);
    if (problem) return `handoffs: ${typeof next?.name === 'string' && next.name ? `agent ${next.name}` : 'an agent'}: ${problem}`;
  }
  return undefined;
}

/**
 * The agent and every agent its `handoffs` reach, each once, in the order found: what the checks
 * before a call and the offline recognizer's phrases cover.
 */
export function reachableAgents(agent: Agent): Agent[] {
  const seen = new Set<Agent>([agent]);
  // A Set visits what is added while it is walked: each agent's handoffs are walked in turn.
  for (const a of seen) for (const next of Array.isArray(a?.handoffs) ? a.handoffs : []) seen.add(next);
  return [...seen];
}

function oneAgentProblem(v: unknown): string | undefined {
  if (!v || typeof v !== 'object') return `it is ${v === null ? 'null' : typeof v}, not an object`;
  const a = v as Partial<Agent>;
  const missing = [
    typeof a.name === 'string' && a.name ? undefined : 'name',
    typeof a.instructions === 'string' ? undefined : 'instructions',
    a.voice && typeof a.voice === 'object' && typeof a.voice.voice_id === 'string' ? undefined : 'voice: { voice_id }',
    typeof a.outOfServiceLine === 'string' ? undefined : 'outOfServiceLine',
  ].filter(Boolean);
  if (missing.length) return `missing ${missing.join(', ')}`;
  if (a.handoffs !== undefined && !Array.isArray(a.handoffs)) return 'handoffs is not an array';
  return hooksProblem(a) ?? toolsProblem(a);
}

/** The hooks an agent may have: a `Record` so that a hook added to `Agent` must be named here. */
const HOOKS: Record<keyof NonNullable<Agent['hooks']>, true> = { onCallStart: true, onUserTurn: true, onAgentTurn: true, onDtmf: true, onEnter: true, onExit: true };

/** A hook under a name the session never calls (`onStart`) was kept and never ran, silently. */
function hooksProblem(a: Partial<Agent>): string | undefined {
  if (a.hooks === undefined) return undefined;
  if (!a.hooks || typeof a.hooks !== 'object' || Array.isArray(a.hooks)) return 'hooks is not an object of functions';
  for (const [name, hook] of Object.entries(a.hooks)) {
    if (!Object.hasOwn(HOOKS, name)) return `hooks.${name} is not a hook (the hooks: ${Object.keys(HOOKS).join(', ')})`;
    if (hook !== undefined && typeof hook !== 'function') return `hooks.${name} is not a function`;
  }
  return undefined;
}

/** Tools that cannot run, or intents that call a tool the agent lacks: found mid-call otherwise ("tool x → null"). */
function toolsProblem(a: Partial<Agent>): string | undefined {
  if (a.tools !== undefined && !Array.isArray(a.tools)) return 'tools is not an array';
  const tools = a.tools ?? [];
  for (const [i, t] of tools.entries()) {
    const name = t && typeof t.name === 'string' && t.name ? t.name : undefined;
    if (!name) return `tools[${i}] has no name`;
    if (typeof t.execute !== 'function') return `tool ${name} has no execute function`;
    if (typeof (t.parameters as { safeParse?: unknown } | undefined)?.safeParse !== 'function') return `tool ${name}: parameters is not a zod schema (z.object({…}); defineTool makes one)`;
    if (tools.findIndex((o) => o.name === name) !== i) return `two tools are named ${name}`;
    const { timeoutMs } = t;
    if (timeoutMs !== undefined && timeoutMs !== false && !(typeof timeoutMs === 'number' && timeoutMs > 0 && Number.isFinite(timeoutMs)))
      return `tool ${name}: timeoutMs is ${String(timeoutMs)}; give milliseconds above 0, or false for no limit`;
  }
  const names = tools.map((t) => t.name);
  for (const intent of a.intents ?? []) {
    const tool = intent?.tool?.name;
    if (tool !== undefined && !names.includes(tool)) return `intent ${intent.name} calls tool ${tool}, which the agent does not have (its tools: ${names.join(', ') || 'none'})`;
  }
  return undefined;
}

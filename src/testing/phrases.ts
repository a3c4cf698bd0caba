import type { Agent } from '../session/agent.ts';
import { reachableAgents } from '../session/check-agent.ts';
import type { ScenarioInput } from './scenario.ts';

/** An intent example that stands for keys pressed (`[DTMF: 1]`), not for words spoken. */
const KEYS = /^\s*\[DTMF:/i;

/**
 * The phrases the offline recognizer is taught for an agent: the spoken examples of its intents
 * and of those of the agents it may hand the call to (`handoffs`, followed on): what a caller is
 * expected to say. The sandbox's recognizer knows a closed set of phrases, so without these a
 * caller's words would never become a turn.
 */
export function agentPhrases(agent: Agent): string[] {
  const examples = reachableAgents(agent).flatMap((a) => (a.intents ?? []).flatMap((i) => i.examples));
  return [...new Set(examples.filter((e) => e.trim() && !KEYS.test(e)))];
}

/**
 * What an embedded sandbox serving `agent` is taught: its phrases (`agentPhrases`) and `phrasebook`'s
 * lines, trimmed, blank ones out, each once. `hiwar serve` and `createAgentServer` teach the same.
 */
export function sandboxPhrasebook(agent: Agent | undefined, phrasebook: Iterable<string> = []): string[] {
  return [...new Set([...(agent ? agentPhrases(agent) : []), ...[...phrasebook].map((l) => l.trim())].filter(Boolean))];
}

/**
 * A call that tries each of the agent's intents once: the caller says the first spoken example of
 * each, in order, then hangs up. What `hiwar demo --agent` runs when no scenario is given; `null`
 * for an agent without spoken examples (nothing to say).
 */
export function scenarioFromIntents(agent: Agent): ScenarioInput | null {
  const lines = (agent.intents ?? []).map((i) => i.examples.find((e) => e.trim() && !KEYS.test(e))).filter((e): e is string => e !== undefined);
  if (!lines.length) return null;
  return {
    description: `one line for each intent of ${agent.name}`,
    steps: [...lines.map((say) => ({ say })), { hangup: true as const }],
  };
}

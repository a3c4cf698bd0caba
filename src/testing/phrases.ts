import type { Agent } from '../session/agent.ts';
import { isSpokenExample } from '../session/agent-phrases.ts';
import type { ScenarioInput } from './scenario.ts';

/**
 * A call that tries each of the agent's intents once: the caller says the first spoken example of
 * each, in order, then hangs up. What `hiwar demo --agent` runs when no scenario is given; `null`
 * for an agent without spoken examples (nothing to say).
 */
export function scenarioFromIntents(agent: Agent): ScenarioInput | null {
  const lines = (agent.intents ?? []).map((i) => i.examples.find(isSpokenExample)).filter((e): e is string => e !== undefined);
  if (!lines.length) return null;
  return {
    description: `one line for each intent of ${agent.name}`,
    steps: [...lines.map((say) => ({ say })), { hangup: true as const }],
  };
}

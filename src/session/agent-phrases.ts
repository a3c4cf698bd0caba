import type { Agent } from './agent.ts';
import { reachableAgents } from './check-agent.ts';

/** An intent example that stands for keys pressed (`[DTMF: 1]`), not for words spoken. */
const KEYS_EXAMPLE = /^\s*\[DTMF:/i;

/** An intent example a caller says: not blank, not keys (`[DTMF: 1]`). */
export const isSpokenExample = (example: string): boolean => example.trim() !== '' && !KEYS_EXAMPLE.test(example);

/**
 * The phrases the offline recognizer is taught for an agent: the spoken examples of its intents
 * and of those of the agents it may hand the call to (`handoffs`, followed on): what a caller is
 * expected to say. The sandbox's recognizer knows a closed set of phrases, so without these a
 * caller's words would never become a turn.
 */
export function agentPhrases(agent: Agent): string[] {
  const examples = reachableAgents(agent).flatMap((a) => (a.intents ?? []).flatMap((i) => i.examples));
  return [...new Set(examples.filter(isSpokenExample))];
}

/**
 * What an embedded sandbox serving `agent` is taught: its phrases (`agentPhrases`) and `phrasebook`'s
 * lines, trimmed, blank ones out, each once. `hiwar serve` and `createAgentServer` teach the same.
 */
export function sandboxPhrasebook(agent: Agent | undefined, phrasebook: Iterable<string> = []): string[] {
  return [...new Set([...(agent ? agentPhrases(agent) : []), ...[...phrasebook].map((l) => l.trim())].filter(Boolean))];
}

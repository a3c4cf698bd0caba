import { Speaker, FIXED_LINE_RATE } from '../pipeline/speaker.ts';
import type { ServiceClient } from '../service/client.ts';
import { normalizeForSpeech } from '../text/normalize.ts';
import { realClock } from '../transport/clock.ts';
import type { Agent } from './agent.ts';

/**
 * Renders the agent's fixed lines (its out-of-service line) into the process's cache before any
 * call needs them, as a session would render them: a server calls this at start-up, so no call
 * opens an HTTP synthesis for them. A failure is left for the first call to retry.
 */
export async function prepareFixedLines(client: ServiceClient, agent: Agent): Promise<void> {
  const speaker = new Speaker(client, { ...agent.voice, sampleRate: FIXED_LINE_RATE }, realClock());
  await speaker.render(normalizeForSpeech(agent.outOfServiceLine));
}

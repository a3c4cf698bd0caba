import type { RenderedAudio } from '../pipeline/fixed-lines.ts';
import { Speaker, FIXED_LINE_RATE } from '../pipeline/speaker.ts';
import type { ServiceClient } from '../service/client.ts';
import { normalizeForSpeech } from '../text/normalize.ts';
import { realClock, type Clock } from '../transport/clock.ts';
import type { Agent } from './agent.ts';
import type { Logger } from './logger.ts';

/**
 * Renders the agent's fixed lines (its out-of-service line) into the process's cache before any
 * call needs them, as a session would render them: a server calls this at start-up, so no call
 * opens an HTTP synthesis for them. A failure is left for the first call to retry.
 */
export async function prepareFixedLines(client: ServiceClient, agent: Agent): Promise<void> {
  await renderOutOfServiceLine(client, agent);
}

/** The agent's out-of-service line as audio, from the process's cache of fixed lines (rendered into it the first time). */
export function renderOutOfServiceLine(client: ServiceClient, agent: Agent, clock: Clock = realClock()): Promise<RenderedAudio> {
  return new Speaker(client, { ...agent.voice, sampleRate: FIXED_LINE_RATE }, clock).render(normalizeForSpeech(agent.outOfServiceLine));
}

/**
 * `prepareFixedLines` at a server's start-up (`createAgentServer`, `hiwar serve`): a failure is
 * logged and left for the first call to retry, never a start-up error.
 */
export async function prepareLines(client: ServiceClient, agent: Agent, logger: Pick<Logger, 'warn'>): Promise<void> {
  await prepareFixedLines(client, agent).catch((err: Error) => logger.warn({ err: err.message }, 'out-of-service line not rendered at start-up; the first call renders it'));
}

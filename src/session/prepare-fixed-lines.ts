import type { RenderedAudio } from '../pipeline/fixed-lines.ts';
import { Speaker, FIXED_LINE_RATE } from '../pipeline/speaker.ts';
import type { ServiceClient } from '../service/client.ts';
import { InsufficientBalanceError, PermissionDeniedError, RateLimitError } from '../service/errors.ts';
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
 * `prepareFixedLines` at a server's start-up (`createAgentServer`, `hiwar serve`, `hiwar demo`): a
 * failure is logged in one line saying why (`linesNotRendered`), never a start-up error.
 */
export async function prepareLines(client: ServiceClient, agent: Agent, logger: Pick<Logger, 'warn'>): Promise<void> {
  await prepareFixedLines(client, agent).catch((err: Error) => logger.warn({ err: err.message }, linesNotRendered(err)));
}

/**
 * The line a start-up logs when the out-of-service line could not be rendered: what the service
 * refused, by name (a key that may not call the synthesis endpoint, one over its concurrency
 * limit, an empty wallet), and what follows from it.
 */
export function linesNotRendered(err: unknown): string {
  const head = 'out-of-service line not rendered at start-up';
  // A scoped key: every call would be refused the same, so no call will render it either.
  if (err instanceof PermissionDeniedError) return `${head}: the key may not call ${err.endpoint ?? 'text-to-speech'} (${err.status}: ${err.errorMessage}); a caller the service refuses hears no line before the hang-up`;
  if (err instanceof RateLimitError) return `${head}: the key was over its concurrency or rate limit (${err.status}: ${err.errorMessage}); the first call renders it`;
  if (err instanceof InsufficientBalanceError) return `${head}: the key's wallet is empty (${err.status}); the first call after a top-up renders it`;
  return `${head}; the first call renders it`;
}

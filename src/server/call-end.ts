/**
 * How a call's end is read (`outcomeOf`: its session's end reason as the outcome the metrics and
 * hooks get) and how a drain out of time ends one (`endWithLine`: its closing line first).
 */
import type { RunningSession } from './calls.ts';
import type { CallOutcome } from './types.ts';

/** Ends `session` with its closing line when it has one, the line given `maxMs` at most (a drain: `DRAIN_DEFAULTS.closingLineMaxMs`). */
export async function endWithLine(session: RunningSession, reason: string, maxMs: number): Promise<void> {
  if (!session.endWithLine) return session.end(reason);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((r) => (timer = setTimeout(r, maxMs)));
  await Promise.race([session.endWithLine(reason).catch(() => {}), late]);
  clearTimeout(timer);
  await session.end(reason);
}

/** The end reason of a call a drain out of time ended (outcome `server-shutdown`). */
export const SHUTDOWN_REASON = 'server shutting down';

/** How a call ended, from the session's end reason. */
export function outcomeOf(reason: string, fatal: boolean): CallOutcome {
  // Ended by the server, not finished: counted apart, so a shutdown that cuts calls short shows.
  if (reason === SHUTDOWN_REASON) return 'server-shutdown';
  if (/^transferred/.test(reason)) return 'transferred';
  if (/agent hung up|agent-hangup/.test(reason)) return 'agent-hangup';
  if (fatal || /^(out of service|could not start|transport failed)/.test(reason)) return 'failed';
  if (/hung up|hangup|stopped|closed|gone/.test(reason)) return 'caller-hangup';
  return 'completed';
}

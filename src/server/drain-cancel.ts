import type { Logger } from '../session/logger.ts';

/** A placed call a drain stops waiting for: its `provider:callId`, and how to hang it up (`PromiseOptions.cancel`). */
export interface RingingCall {
  key: string;
  cancel?(): Promise<boolean>;
}

/**
 * Hangs up, with their platforms, the calls this server placed that still ring when its drain
 * stops waiting for them (their ring wait or the drain's own limit passed): answered after the
 * server stopped, their media would come to nobody. All at once; says in the log which were
 * cancelled and why any was not. Resolves with the keys cancelled.
 */
export async function cancelRinging(calls: RingingCall[], logger: Logger): Promise<string[]> {
  const results = await Promise.all(
    calls.map(async ({ key, cancel }) => {
      if (!cancel) return { key, why: 'its platform client has no cancel' };
      try {
        return { key, why: (await cancel()) ? undefined : 'no longer ringing (answered or ended meanwhile)' };
      } catch (err) {
        return { key, why: (err as Error).message };
      }
    }),
  );
  const cancelled = results.filter((r) => !r.why).map((r) => r.key);
  if (cancelled.length) logger.warn({ ringing: cancelled }, `drain: ${cancelled.length} placed call(s) still ringing when the drain stopped waiting, cancelled with their platform (${cancelled.join(', ')})`);
  const left = results.filter((r) => r.why);
  if (left.length) logger.warn({ ringing: left.map((r) => r.key) }, `drain: ${left.length} placed call(s) still ringing when the drain stopped waiting were not cancelled (${left.map((r) => `${r.key}: ${r.why}`).join('; ')}); not waiting for them any longer`);
  return cancelled;
}

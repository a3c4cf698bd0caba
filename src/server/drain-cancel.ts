import type { Logger } from '../session/logger.ts';
import type { NoMediaResult } from './types.ts';

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

/** An answered call whose media a drain stops waiting for: its `provider:callId`, and what finds out what became of it (`PromiseOptions.noMedia`). */
export interface SilentCall {
  key: string;
  noMedia?(): Promise<NoMediaResult>;
}

/**
 * Says what became of the answered calls whose media a drain stops waiting for: a webhook's
 * (nothing hiwar can do), or a placed call's, whose media may have connected to another instance
 * of the cluster, or which was hung up with its platform (else why not). Resolves with each key's result.
 */
export async function settleNoMedia(calls: SilentCall[], logger: Logger): Promise<Map<string, NoMediaResult | undefined>> {
  const results = new Map(
    await Promise.all(
      calls.map(async ({ key, noMedia }) => [key, noMedia ? await noMedia().catch((err: Error): NoMediaResult => ({ kind: 'kept', why: err.message })) : undefined] as const),
    ),
  );
  const keys = (f: (r: NoMediaResult | undefined) => boolean) => [...results].filter(([, r]) => f(r)).map(([k]) => k);
  const elsewhere = keys((r) => r?.kind === 'connected');
  if (elsewhere.length) logger.info({ media: elsewhere }, `drain: the media of ${elsewhere.length} answered call(s) connected to another instance (${elsewhere.join(', ')}); not waiting for it here`);
  const none = keys((r) => r === undefined || r.kind === 'kept');
  const kept = none.flatMap((k) => {
    const r = results.get(k);
    return r?.kind === 'kept' ? [`${k}: ${r.why}`] : [];
  });
  if (none.length) logger.info({ media: none }, `drain: no media came for ${none.length} answered call(s) (${none.join(', ')}); not waiting for it any longer${kept.length ? `; not hung up (${kept.join('; ')})` : ''}`);
  const hungUp = keys((r) => r?.kind === 'hung-up');
  if (hungUp.length) logger.warn({ media: hungUp }, `drain: no media came for ${hungUp.length} answered call(s) placed here, hung up with their platform (${hungUp.join(', ')})`);
  return results;
}

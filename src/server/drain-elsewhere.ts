/**
 * On a cluster, a call one instance promised media for (a placed call, a webhook it answered) may
 * have its media reach another instance: only the shared token ledger knows, by the call's media
 * token spent there. A drain asks it of the calls it waits for, every `DRAIN_DEFAULTS.mediaCheckMs`,
 * and stops waiting for each the ledger has spent, where it waited out the call's whole bound
 * (5 s after the answer, a placed call's ring timeout before it).
 */
import type { Logger } from '../session/logger.ts';
import { callMediaKey, type TokenLedger } from './token-ledger.ts';

/**
 * Which of `keys` (`provider:callId`) had their media connect on some instance, per the ledger.
 * A ledger that cannot say (no `spent`, unreachable) says none: the drain waits as before.
 */
export async function connectedElsewhere(keys: string[], ledger: Pick<TokenLedger, 'spent'> | undefined, logger: Logger): Promise<string[]> {
  if (!ledger?.spent || !keys.length) return [];
  const spent = await Promise.all(keys.map((k) => ledger.spent!(callMediaKey(k)).catch(() => false)));
  const elsewhere = keys.filter((_, i) => spent[i]);
  if (elsewhere.length) logger.info({ media: elsewhere }, `drain: the media of ${elsewhere.length} call(s) connected to another instance (${elsewhere.join(', ')}); not waiting for it here (the shared ledger has its token spent)`);
  return elsewhere;
}

import type { CallResult, DialAttempt, Dialer } from '../../../src/campaign/types.ts';
import type { OutboundCall, PlaceCallRequest } from '../outbound/calls.ts';
import { PlaceCallError } from '../outbound/calls.ts';

/** What the campaign dialler needs of outbound calling: `outboundCalls()`'s `placeCall` and `outcome`. */
export interface CallPlacer {
  /** Dials one call; resolves once the platform accepted it. */
  placeCall(req: PlaceCallRequest): Promise<OutboundCall>;
  /** Resolves with the call once its outcome is final. */
  outcome(id: string): Promise<OutboundCall>;
}

/** Options of `outboundDialer`. */
export interface OutboundDialerOptions {
  /** Caller ID and platform for every call of the campaign (default: the outbound options'). */
  from?: string;
  platform?: PlaceCallRequest['platform'];
  /**
   * What the call's session learnt, once it has ended: AMD class, transcript, tool results.
   * What it throws is ignored (the outcome stands without them).
   */
  details?(call: OutboundCall): Promise<Partial<CallResult> | undefined>;
}

/**
 * A campaign's dialler on hiwar's outbound calls: places the call with the contact's variables
 * and waits for the platform's final outcome. A request that is wrong as given (a variable the
 * agent needs and the row lacks) is `invalid`: nothing was dialled, and it is not retried.
 */
export function outboundDialer(calls: CallPlacer, o: OutboundDialerOptions = {}): Dialer {
  return {
    async dial(d: DialAttempt): Promise<CallResult> {
      let placed: OutboundCall;
      try {
        placed = await calls.placeCall({ to: d.contact.number, variables: d.contact.variables, ...(o.from ? { from: o.from } : {}), ...(o.platform ? { platform: o.platform } : {}) });
      } catch (err) {
        return { outcome: err instanceof PlaceCallError ? 'invalid' : 'failed', error: (err as Error).message };
      }
      const call = await calls.outcome(placed.id);
      const extra = await o.details?.(call).catch(() => undefined);
      return {
        outcome: call.outcome === 'completed' || call.outcome === 'busy' || call.outcome === 'no-answer' || call.outcome === 'canceled' ? call.outcome : 'failed',
        callId: call.id,
        ...(call.durationS !== undefined ? { durationS: call.durationS } : {}),
        ...(call.error ? { error: call.error } : {}),
        ...extra,
      };
    },
  };
}

import type { AttemptOutcome, CallResult, DialAttempt, Dialer, NotPlaced } from '../../../src/campaign/types.ts';
import { CallRefused } from '../../../src/server/types.ts';
import { sleepFor } from '../../../src/transport/clock.ts';
import type { OutboundCall, PlaceCallRequest } from '../outbound/calls.ts';
import { OUTBOUND_DEFAULTS, PlaceCallError } from '../outbound/calls.ts';
import { DialError, type StatusUpdate } from '../outbound/types.ts';

/** What the campaign dialler needs of outbound calling: `outboundCalls()`'s calls. */
export interface CallPlacer {
  /** Dials one call; resolves once the platform accepted it. */
  placeCall(req: PlaceCallRequest): Promise<OutboundCall>;
  /** Resolves with the call once its outcome is final (`session`: with its session's summary). */
  outcome(id: string, o?: { session?: boolean }): Promise<OutboundCall>;
  /** The call placed with a reference (the dial id), on any instance: for `recover`. */
  byReference?(reference: string): Promise<OutboundCall | undefined>;
  /** Asks the call's platform how it stands: for `recover`. */
  ask?(id: string): Promise<{ call: OutboundCall; said?: StatusUpdate } | undefined>;
}

/** Options of `outboundDialer`. */
export interface OutboundDialerOptions {
  /** Caller ID and platform for every call of the campaign (default: the outbound options'). */
  from?: string;
  platform?: PlaceCallRequest['platform'];
  /**
   * More of what the call learnt, once it has ended, over what its record says. What it throws
   * is ignored (the outcome stands without it).
   */
  details?(call: OutboundCall): Promise<Partial<CallResult> | undefined>;
  /** How often `recover` asks the platform about a call still going. @default OUTBOUND_DEFAULTS.recoverPollMs */
  recoverPollMs?: number;
  /** How long `recover` follows a call still going before it gives up (`failed-unknown`). @default OUTBOUND_DEFAULTS.recoverMaxMs */
  recoverMaxMs?: number;
  /** How long `recover` waits for a call no instance has heard of from the platform yet. @default OUTBOUND_DEFAULTS.recoverUnheardMs */
  recoverUnheardMs?: number;
  /** A placed call with no final callback after this long is asked of the platform, as `recover` does. @default OUTBOUND_DEFAULTS.askAfterMs */
  askAfterMs?: number;
}

/**
 * A campaign's dialler on hiwar's outbound calls: places the call with the contact's variables
 * (its dial id as the call's `reference`) and waits for the platform's final outcome and the
 * session's summary. Who answered decides the outcome of an answered call: a voicemail greeting
 * or a carrier's announcement is `machine-voicemail` / `machine-unavailable`, retried as the
 * campaign's `retryOn` says. A request that is wrong as given (a variable the agent needs and
 * the row lacks) is `invalid`: nothing was dialled, and it is not retried. A dial request the
 * platform refused or could not be reached for is `failed` (retried), with `notPlaced` saying
 * nothing was dialled (`NotPlaced`). `recover` finds a dead
 * worker's call by its dial id and asks the platform how it ended.
 */
export function outboundDialer(calls: CallPlacer, o: OutboundDialerOptions = {}): Dialer {
  const result = async (call: OutboundCall): Promise<CallResult> => ({ ...resultOfCall(call), ...(await o.details?.(call).catch(() => undefined)) });

  /** Asks the platform about a call until it has ended (or nobody can say, or `recoverMaxMs` passed). */
  async function follow(from: OutboundCall, signal?: AbortSignal): Promise<CallResult> {
    let call = from;
    const until = Date.now() + (o.recoverMaxMs ?? OUTBOUND_DEFAULTS.recoverMaxMs);
    const unheardUntil = Date.now() + (o.recoverUnheardMs ?? OUTBOUND_DEFAULTS.recoverUnheardMs);
    while (!call.outcome) {
      const asked: { call: OutboundCall; said?: StatusUpdate } | undefined = await calls.ask?.(call.id);
      if (!asked?.said) {
        // Not heard of from the platform yet: its callbacks may still be on their way to another instance.
        const now = asked?.call ?? call;
        if (!now.outcome && !now.platformCallId && Date.now() < unheardUntil) {
          call = now;
          await sleepFor(Math.min(o.recoverPollMs ?? OUTBOUND_DEFAULTS.recoverPollMs, Math.max(0, unheardUntil - Date.now())), signal);
          continue;
        }
        if (!now.outcome) return { outcome: 'failed-unknown', callId: call.id, error: `${call.platform} cannot say how call ${now.platformCallId ?? call.id} ended` };
        call = now;
        break;
      }
      call = asked.call;
      if (call.outcome) break;
      if (Date.now() >= until) return { outcome: 'failed-unknown', callId: call.id, error: `call ${call.id} was still ${call.status} when recovery gave up` };
      await sleepFor(o.recoverPollMs ?? OUTBOUND_DEFAULTS.recoverPollMs, signal);
    }
    return result(call);
  }

  return {
    async dial(d: DialAttempt): Promise<CallResult> {
      let placed: OutboundCall;
      try {
        placed = await calls.placeCall({ to: d.contact.number, variables: d.contact.variables, reference: d.dialId, ...(o.from ? { from: o.from } : {}), ...(o.platform ? { platform: o.platform } : {}) });
      } catch (err) {
        // Nothing was dialled, whichever way it failed: said, typed, and never counted as a call.
        const notPlaced = notPlacedOf(err);
        return { outcome: notPlaced === 'invalid-request' ? 'invalid' : 'failed', notPlaced, error: (err as Error).message };
      }
      // A call whose last callback never comes (lost by the platform or on the way) is asked of the platform after a while.
      const stop = new AbortController();
      const silent = async () => {
        await sleepFor(o.askAfterMs ?? OUTBOUND_DEFAULTS.askAfterMs, stop.signal);
        return follow(placed, stop.signal);
      };
      try {
        return await Promise.race([calls.outcome(placed.id, { session: true }).then(result), ...(calls.ask ? [silent()] : [])]);
      } finally {
        stop.abort();
      }
    },
    async recover(d: DialAttempt): Promise<CallResult | undefined> {
      const found = await calls.byReference?.(d.dialId);
      // Never placed as far as the records know (the worker died before its dial): the caller counts it failed-unknown.
      return found && follow(found);
    },
  };
}

/**
 * An ended call as a campaign attempt's result: the platform's outcome, except that an answered
 * call the agent found to be a machine takes the detector's class, and a call its server's drain
 * cancelled while it rang is `canceled-draining`, one answered whose media never came (hiwar
 * hung it up) `no-media`; `amd`, the transcript and the
 * tasks' results come from the session's summary.
 */
export function resultOfCall(call: OutboundCall): CallResult {
  const amd = call.session?.amd?.class;
  const platform: AttemptOutcome = call.outcome === 'completed' || call.outcome === 'busy' || call.outcome === 'no-answer' || call.outcome === 'canceled' ? call.outcome : 'failed';
  // Hung up by its own server's drain, not by the callee: counted (and retried) apart.
  const drained = platform === 'canceled' && call.cancelRequested === 'draining';
  const silent = platform === 'completed' && call.hangUpRequested === 'no-media';
  const outcome = drained ? 'canceled-draining' : silent ? 'no-media' : platform === 'completed' && (amd === 'machine-voicemail' || amd === 'machine-unavailable') ? amd : platform;
  return {
    outcome,
    callId: call.id,
    ...(amd ? { amd } : {}),
    ...(call.durationS !== undefined ? { durationS: call.durationS } : {}),
    ...(call.session?.transcript ? { transcript: call.session.transcript } : {}),
    ...(call.session?.toolResults ? { toolResults: call.session.toolResults } : {}),
    ...(call.error ? { error: call.error } : {}),
  };
}

/**
 * Why `placeCall` dialled nothing: a request wrong as given (`PlaceCallError`), the platform's
 * refusal (a `DialError` with its HTTP status) or its API out of reach (a `DialError` with status
 * 0), the server draining (`CallRefused`), or anything else before the platform (a credential
 * missing, the records' store down).
 */
export function notPlacedOf(err: unknown): NotPlaced {
  if (err instanceof PlaceCallError) return 'invalid-request';
  if (err instanceof DialError) return err.status > 0 ? 'platform-refused' : 'platform-unreachable';
  if (err instanceof CallRefused && err.reason === 'draining') return 'server-draining';
  return 'dial-error';
}

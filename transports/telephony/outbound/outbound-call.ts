/**
 * What an outbound call is, as hiwar knows it (`OutboundCall`, what `GET /calls/:id` answers),
 * what placing one takes, what the registry needs of its server, and outbound calling's defaults.
 */
import { DRAIN_DEFAULTS } from '../../../src/server/calls.ts';
import type { TokenLedger } from '../../../src/server/token-ledger.ts';
import type { CallTokens } from '../../../src/server/tokens.ts';
import type { CallHost } from '../../../src/server/types.ts';
import type { Agent } from '../../../src/session/agent.ts';
import type { Logger } from '../../../src/session/logger.ts';
import type { CallInfo } from '../../../src/transport/types.ts';
import type { CallSessionSummary } from './records.ts';
import type { OutboundPlatformName, OutboundStatus } from './types.ts';

/** Defaults of outbound calling, in one place. */
export const OUTBOUND_DEFAULTS = {
  /** Seconds the phone rings before the call counts as `no-answer`. */
  ringTimeoutS: 30,
  /**
   * How long the outcome of an answered call waits for its session's summary (the instance running
   * it may have died). A session still running in this process is waited for to its end, however
   * long a starved machine makes it; this wait then starts when it ends.
   */
  sessionWaitMs: 15_000,
  /** A dead worker's call is asked of the platform this often until it has ended, for at most `recoverMaxMs`. */
  recoverPollMs: 10_000,
  recoverMaxMs: 4 * 3600_000,
  /**
   * A dead worker's call that no instance has heard of from the platform yet (no platform id) is
   * looked up again for this long before it counts as `failed-unknown`: its dial may have reached
   * the platform just before the worker died, and its callbacks, on another instance, bring the id.
   */
  recoverUnheardMs: 30_000,
  /** A campaign's call with no final callback after this long is asked of the platform (its last callback may be lost). */
  askAfterMs: 2 * 3600_000,
  /**
   * An answered call whose media has not connected this long after the platform said it was
   * answered (to this instance or, on a cluster, another: the shared token ledger says) is hung up
   * with its platform (`hangUpRequested: 'no-media'`): the callee would hear silence, billed, until
   * they hung up. Platforms connect within a second or two; a drain waits this long too.
   * Counted in run time: a stall of this process does not hang up a call whose media arrived meanwhile.
   */
  mediaWaitMs: DRAIN_DEFAULTS.promisedMediaWaitMs,
  /** Variables of one call at most, and characters of one value. */
  maxVariables: 50,
  maxValueLength: 500,
} as const;

/** What placing one call takes. */
export interface PlaceCallRequest {
  /** The number to call, E.164 (`+9665…`). */
  to: string;
  /** The caller ID, E.164; default: the outbound options' `from` (`HIWAR_CALL_FROM`). */
  from?: string;
  /** Default: the only platform configured, else the options' `platform` (`HIWAR_CALL_PLATFORM`). */
  platform?: OutboundPlatformName;
  /** Reach the agent as `ctx.call.info.parameters` and fill `{name}` in its greeting and instructions. */
  variables?: Record<string, string>;
  /** Your name for this call (a campaign's dial id): `byReference` finds the call by it, on any instance. */
  reference?: string;
}

/** One placed call as hiwar knows it (what `GET /calls/:id` answers). */
export interface OutboundCall {
  /** hiwar's id of the call: the `callId` the agent sees. */
  id: string;
  platform: OutboundPlatformName;
  to: string;
  from: string;
  variables: Record<string, string>;
  /** The platform's id (Twilio CallSid, Telnyx call_control_id, Plivo request_uuid, Vonage uuid). */
  platformCallId?: string;
  /** The answered leg's id when the platform names it apart (Plivo's CallUUID). */
  platformLegId?: string;
  /** The request's `reference` (a campaign's dial id). */
  reference?: string;
  status: OutboundStatus;
  /** Set once final: busy, no-answer, failed, canceled or completed. */
  outcome?: Exclude<OutboundStatus, 'queued' | 'ringing' | 'answered'>;
  /** The platform's last status word (`no-answer`, `user_busy`, `unanswered`…). */
  rawStatus?: string;
  /** Seconds the answered call lasted (the platform's figure, else from the callbacks' times). */
  durationS?: number;
  /**
   * Set once hiwar asked the platform to hang the call up before it was answered, and why:
   * `draining`, the server that placed it stopped waiting for it at its drain's bound.
   */
  cancelRequested?: 'draining';
  /**
   * Set once hiwar asked the platform to hang the answered call up, and why: `no-media`, its
   * media never connected (`OUTBOUND_DEFAULTS.mediaWaitMs` after the answer, on any instance).
   * The call is then `completed` (`rawStatus` `hung up by hiwar (no media came)`); a campaign
   * counts it as `no-media`.
   */
  hangUpRequested?: 'no-media';
  /** Why the dial failed, when it did (the platform's message). */
  error?: string;
  createdAt: string;
  answeredAt?: string;
  endedAt?: string;
  /** What the answered call's session learnt, once it ended: who answered (AMD), the transcript. */
  session?: CallSessionSummary;
}

/** What the registry needs from the server it runs in. */
export interface OutboundContext {
  tokens: CallTokens;
  logger?: Logger;
  /** The agent the call would get; its variables are checked before dialling. */
  agentOf?(call: CallInfo): Promise<Agent | undefined>;
  /**
   * The server the calls' media comes back to: nothing is dialled while it drains, and a drain
   * waits for a placed call while it rings (its media is let in once answered).
   */
  host?: Pick<CallHost, 'draining' | 'promise' | 'answered' | 'withdraw' | 'warn'>;
  /**
   * Where media connections spend their tokens (the server's, a cluster's in Redis or the
   * machine's primary): whether an answered call's media reached any instance. Without `spent`,
   * no call is hung up for want of media.
   */
  ledger?: Pick<TokenLedger, 'spent'>;
}

/** The URLs one call's platform is handed, made from the server's public address. */
export interface CallUrls {
  stream: string;
  answer: string;
  status: string;
  after: string;
}

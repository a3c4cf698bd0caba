/**
 * What placing a call through a platform's REST API means, platform by platform: one short
 * client per platform (`twilio.ts`, `telnyx.ts`, `plivo.ts`, `vonage.ts`) turns a `DialRequest`
 * into the platform's request and reads its status callbacks into `StatusUpdate`s. The clients
 * hold the credentials; nothing they throw or log carries them.
 */

/** The platforms hiwar can place calls through. */
export type OutboundPlatformName = 'twilio' | 'telnyx' | 'plivo' | 'vonage';

/** Where a placed call stands: before it ends, and how it ended. */
export type OutboundStatus = 'queued' | 'ringing' | OutboundOutcome;

/**
 * What the platform reported: `answered` while the call runs; the others are final. `completed`
 * is an answered call that has ended (with its duration); `no-answer` includes the ring timeout.
 */
export type OutboundOutcome = 'answered' | 'busy' | 'no-answer' | 'failed' | 'canceled' | 'completed';

/** The outcomes after which nothing more happens to a call. */
export const FINAL_OUTCOMES: ReadonlySet<OutboundStatus> = new Set(['busy', 'no-answer', 'failed', 'canceled', 'completed']);

/** One status callback, read: the typed status, the platform's own word for it, the duration once ended. */
export interface StatusUpdate {
  status: OutboundStatus;
  /** The platform's status as it sent it (`no-answer`, `user_busy`, `unanswered`…). */
  raw: string;
  /** Seconds the answered call lasted, when the platform says. */
  durationS?: number;
  /** The platform's id of the call, when the callback names it. */
  platformCallId?: string;
}

/** What a platform client is asked to dial. Every URL carries a token that names this one call. */
export interface DialRequest {
  /** hiwar's id of the call (also the media token's call id). */
  id: string;
  /** The number called, E.164 (`+9665…`). */
  to: string;
  /** The caller ID, E.164: a number of yours on the platform. */
  from: string;
  /** The media WebSocket the answered call streams to (`wss://…/telephony/<platform>/stream/<token>`). */
  streamUrl: string;
  /** Where the platform fetches the call's markup when answered (Plivo's answer_url). */
  answerUrl: string;
  /** Where the platform reports the call's progress. */
  statusUrl: string;
  /**
   * Where the platform asks what to do once the stream ends (the telephony route's after-URL:
   * dial the transfer target the agent chose, or hang up). Twilio `<Connect action>`, Plivo
   * `<Redirect>`, Vonage's synchronous `eventUrl`.
   */
  afterUrl: string;
  /** Parameters handed to the stream as well as through the token (Twilio `<Parameter>`). */
  parameters: Record<string, string>;
  /** Seconds the phone rings before the call counts as not answered. */
  ringTimeoutS: number;
}

/** What the platform answered to the dial request. */
export interface DialResult {
  /** The platform's id of the call (Twilio CallSid, Telnyx call_control_id, Plivo request_uuid, Vonage uuid). */
  platformCallId: string;
}

/** One platform's REST client for outbound calls. */
export interface OutboundPlatform {
  readonly name: OutboundPlatformName;
  /** Places the call; rejects with `DialError` (status and the platform's message, never a credential). */
  dial(req: DialRequest): Promise<DialResult>;
  /** Reads one status callback's fields; undefined when it says nothing about progress. */
  status(params: Record<string, string>): StatusUpdate | undefined;
  /**
   * Asks the platform's call resource how the call stands (`GET` the call by its id): a status
   * update, or undefined when the platform does not say. For a call whose callbacks were lost.
   */
  fetchStatus?(call: { platformCallId?: string; platformLegId?: string }): Promise<StatusUpdate | undefined>;
  /**
   * Hangs up a call that has not been answered yet (queued or ringing), through the platform's
   * REST API: true once the platform took the request, false when it no longer had such a call
   * to cancel (answered or ended meanwhile). Rejects with `DialError` when it refused or could not
   * be reached. A draining server cancels the calls it placed that still ring at its bound.
   */
  cancel?(call: { platformCallId?: string; platformLegId?: string }): Promise<boolean>;
  /**
   * Ends an answered call, live at the platform, through its REST API: true once the platform
   * took the request, false when it no longer had such a call (over meanwhile). Rejects with
   * `DialError` when it refused or could not be reached. hiwar hangs up a call it placed whose
   * media never came (`OUTBOUND_DEFAULTS.mediaWaitMs` after the answer): the callee would hear
   * silence, and the call be billed, until they hung up.
   */
  hangUp?(call: { platformCallId?: string; platformLegId?: string }): Promise<boolean>;
  /** The markup answering the platform's answer request (Plivo's answer_url), for platforms that fetch one. */
  answer?(streamUrl: string, afterUrl: string): { contentType: string; body: string };
}

/** A dial request the platform refused, or could not be reached for. The message names no credential. */
export class DialError extends Error {
  override readonly name = 'DialError';
  constructor(
    readonly platform: OutboundPlatformName,
    /** The HTTP status of the platform's answer; 0 when it could not be reached. */
    readonly status: number,
    message: string,
  ) {
    super(status ? `${platform} refused the call (HTTP ${status}): ${message}` : `the call could not be placed through ${platform}: ${message}`);
  }
}

/** Numbers as E.164: `+` and 8 to 15 digits. */
export const E164 = /^\+[1-9]\d{7,14}$/;

/**
 * The transport contract: the only thing the core knows about how a caller is reached. Adapters
 * in `transports/*` (telephony media streams, WebRTC, local devices, files) implement it; the
 * core never imports them.
 *
 * Lifecycle: an adapter builds a `Transport` once it knows who is calling (for a telephony media
 * stream, after the platform's `start` message), hands it to an `AgentSession`, pushes caller
 * audio on `audio$` (frames that arrive before the session subscribes are kept, see
 * `CallerAudio`), reports DTMF, hang-up and playout on `events$` and `output.playback$`, and
 * completes `audio$` when the caller is gone.
 */
import type { Observable } from 'rxjs';
import type { AudioFrame } from '../audio/frame.ts';

/** Who is calling and how: known when the transport is handed to the session. */
export interface CallInfo {
  /** The platform's id for this call (Twilio CallSid, Telnyx call_control_id, a room peer id…). */
  callId: string;
  /** Which adapter carries the call: 'twilio', 'webrtc', 'local', 'pcm'… */
  provider: string;
  /** The platform's id of this media stream, where it differs from the call id. */
  streamId?: string;
  from?: string;
  to?: string;
  direction?: 'inbound' | 'outbound';
  /** Custom parameters given by the platform or the user's webhook (TwiML <Parameter>, query…). */
  parameters: Record<string, string>;
}

/** What a transport reports besides audio. */
export type TransportEvent =
  /** A key pressed by the caller (`0-9`, `*`, `#`, `A-D`). */
  | { type: 'dtmf'; digit: string; durationMs?: number }
  /** The caller or the platform ended the call. */
  | { type: 'hangup'; reason?: string }
  /** A mark written with `output.mark(id)` was reported played by the far end. */
  | { type: 'played'; id: string }
  /** The transport cannot go on (socket closed abnormally, codec failure). */
  | { type: 'error'; message: string };

/** Where playout stands, pushed by the output whenever it changes. */
export interface PlaybackUpdate {
  /**
   * Seconds of agent audio that have left the transport toward the caller since the output was
   * created (sent on the wire, handed to the loudspeaker). Monotonic.
   */
  sent: number;
  /**
   * Seconds of agent audio the caller has heard: acknowledged by the far end (marks, checkpoints)
   * or, where the platform acknowledges nothing, the sent position on the transport's clock.
   * Monotonic, never ahead of `sent`.
   */
  played: number;
  /** Seconds written and not yet sent. */
  queued: number;
  /** Clock time (ms) of the change. */
  at: number;
}

/**
 * The agent's side of a call. Every output reports what was actually played on `playback$`; the
 * session never guesses or polls when the transport knows.
 */
export interface TransportOutput {
  /** Rate the transport wants agent audio at; `write` takes frames at this rate only. */
  readonly sampleRate: number;
  /** Queues agent audio. Throws on a frame at another rate (see `ResamplingOutput`). */
  write(frame: AudioFrame): void;
  /** Resolves when everything written before it has been played (or was dropped by interrupt). */
  mark(id: string): Promise<void>;
  /**
   * Drops everything queued, tells the far end to stop (clear message) and resolves pending
   * marks; resolves with `played`. Audio written afterwards starts playing from that position.
   */
  interrupt(): Promise<number>;
  /** Playout changes, pushed by the transport (acknowledgements or its send clock). */
  readonly playback$: Observable<PlaybackUpdate>;
  /** The last pushed `played` position, in seconds (a snapshot, not a poll of the far end). */
  position(): number;
  /** Stops playout and frees the output. */
  close(): Promise<void>;
}

/** Options of a transfer. */
export interface TransferOptions {
  /**
   * A short summary of the case for the person taking the call, carried where the platform has a
   * field for it (a SIP header `X-Hiwar-Summary`, see docs/telephony.md); not spoken.
   */
  summary?: string;
}

/**
 * What an agent's tools and hooks can do to the call they run in (`ToolContext.call`). Hang-up
 * and transfer wait for the reply being spoken to be heard (the model's "I am transferring you"
 * is said first); the promise resolves once the request is taken, so a tool can await it.
 */
export interface CallControl {
  readonly info: CallInfo;
  /** Ends the call after the current reply; the transport's `hangup()` is called if it has one. */
  hangup(reason?: string): Promise<void>;
  /** Hands the call to `target` after the current reply. Rejects if the transport cannot transfer. */
  transfer(target: string, opts?: TransferOptions): Promise<void>;
  /** Plays DTMF tones to the far end now. Rejects if the transport cannot. */
  sendDtmf(digits: string): Promise<void>;
}

/** One call's audio and control, for `AgentSession`: caller audio in, agent audio out, events, call actions. */
export interface Transport {
  /** Metadata of the call this transport carries. */
  readonly call: CallInfo;
  /** Rate of the caller audio on `audio$`. */
  readonly inputRate: number;
  /** Caller audio; frames pushed before the first subscription are buffered, not lost. */
  readonly audio$: Observable<AudioFrame>;
  readonly events$: Observable<TransportEvent>;
  readonly output: TransportOutput;
  /** Ends the call from the agent's side (in-stream where the platform allows, or a user hook). */
  hangup?(reason?: string): Promise<void>;
  /** Hands the call to another number or SIP URI (with a summary where the platform carries one). */
  transfer?(target: string, opts?: TransferOptions): Promise<void>;
  /** Plays DTMF tones to the far end. */
  sendDtmf?(digits: string): Promise<void>;
}

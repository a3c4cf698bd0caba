import type { Observable } from 'rxjs';
import type { AudioFrame } from '../audio/frame.ts';
import type { InterruptionDecision } from '../pipeline/interruption.ts';
import type { Voice } from '../pipeline/reply.ts';
import type { SttEvent } from '../pipeline/stt.ts';
import type { UserTurn } from '../pipeline/turns.ts';
import type { ListenEvent } from '../service/ws/listen-events.ts';
import type { Agent } from './agent.ts';

/**
 * The stages a session is built from, each behind a small interface. Today's implementations
 * (`SttStage`, `Speaker`, `TurnDetector`, `InterruptionPolicy`, the spoken form) are the
 * defaults, built by `buildStages`; give your own in `SessionOptions.stages`.
 */

/** Caller audio in, /listen-shaped events out (`SttStage` over the service by default). */
export interface Recognizer {
  readonly events$: Observable<SttEvent>;
  /** Opens the recognizer; a rejection ends the call before it starts. */
  start(): Promise<void>;
  /** One frame of caller audio, at the transport's input rate. */
  push(frame: AudioFrame): void;
  /** Clock time (ms) of a point of the recognizer's stream timeline (seconds), when known. */
  timeOf(streamSeconds: number): number | undefined;
  /** Ends recognition (the last final is awaited). */
  finish(): Promise<void>;
  /** For fault drills: drops the connection as a network failure would. */
  dropConnection?(): void;
}

/** The agent's voice (`Speaker` over the service by default). */
export interface AgentVoice extends Voice {
  /** Rate of the audio it produces (the output is prepared to convert from it). */
  readonly socketRate: number;
  /** Opens the voice (its socket); a rejection ends the call before it starts. */
  start(): Promise<void>;
  /** A whole line rendered ahead (the out-of-service line). */
  render(text: string): Promise<{ samples: Int16Array; sampleRate: number }>;
  /** Closes the voice at the end of the call (or when a handoff brings another voice). */
  close(): Promise<void>;
}

/** Decides when the caller's turn is over (`TurnDetector` by default). */
export interface TurnPolicy {
  /** Clock time at which `tick` may decide a turn without a new event. */
  readonly deadline: number | undefined;
  /** A recognizer event at clock time `now`: the turns it ends, if any. */
  onEvent(e: ListenEvent, now: number): UserTurn[];
  /** Clock time `now` reached `deadline` with no new event: the turns that ends, if any. */
  tick(now: number): UserTurn[];
}

/** Decides what caller speech over the agent does (`InterruptionPolicy` by default). */
export interface BargeInPolicy {
  readonly deadline: number | undefined;
  /** A new reply starts. */
  reset(): void;
  /**
   * A recognizer event while the agent may be speaking: interrupt, or nothing yet. `context.yesNo`:
   * a task waits for a yes or a no, so a "نعم" over its read-back answers it (no backchannel).
   */
  onEvent(e: ListenEvent, now: number, agentSpeaking: boolean, context?: { yesNo?: boolean }): InterruptionDecision | undefined;
  /** Clock time `now` reached `deadline`: a decision that waited for more speech, if any. */
  tick(now: number, agentSpeaking: boolean): InterruptionDecision | undefined;
  /** Whether a caller turn decided while the agent goes on is only a backchannel ("آه"), dropped. Without it, none is. */
  isBackchannel?(text: string): boolean;
}

/** Replacements for the session's stages; what is left out is built as today. */
export interface SessionStages {
  /** The call's recognizer (one per call: the caller does not change with a handoff). */
  recognizer?: Recognizer;
  /** The voice of an agent (called again for each agent a handoff brings in with another voice). */
  voice?: (agent: Agent, outputRate: number) => AgentVoice;
  /** The turn policy of an agent (called again for each agent a handoff brings in). */
  turns?: (agent: Agent) => TurnPolicy;
  /** The barge-in policy of an agent (called again for each agent a handoff brings in). */
  interruption?: (agent: Agent) => BargeInPolicy;
  /** Rewrites each piece of reply text before it is voiced (after the chunker, before the spoken form). */
  transformText?: (text: string) => string;
}

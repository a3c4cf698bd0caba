import type { AmdOptions } from '../amd/options.ts';
import type { ModelDeadlines } from '../llm/deadlines.ts';
import type { Intent } from '../llm/scripted.ts';
import type { ToolFiller } from '../llm/tool-filler.ts';
import type { Llm, Tool } from '../llm/types.ts';
import type { DtmfOptions } from '../pipeline/dtmf.ts';
import type { InterruptionOptions } from '../pipeline/interruption.ts';
import type { CallControl } from '../transport/types.ts';
import type { TurnOptions } from '../pipeline/turns.ts';
import type { GenerationEndOptions } from '../service/ws/tts-generation.ts';
import type { ListenLiveness } from '../service/ws/listen.ts';
import type { SessionControl } from './control.ts';

/**
 * An agent is plain data plus functions: what it says, how it sounds, what it can do, and how
 * it takes turns. No subclassing.
 */
export interface Agent {
  name: string;
  /** System prompt for a model. */
  instructions: string;
  /** Said when the call starts; not when a handoff brings the agent in (its `hooks.onEnter` speaks then). */
  greeting?: string;
  /**
   * The voice; `firstAudioTimeoutMs`: silence from the TTS socket after which HTTP takes over;
   * `generationEnd`: how each chunk's audio end is found on the socket (see tts-generation.ts).
   */
  voice: { voice_id: string; model_id?: string; speed?: number; firstAudioTimeoutMs?: number; generationEnd?: GenerationEndOptions };
  /** The model; default: OpenAI-compatible when OPENAI_API_KEY is set, else the scripted intents. */
  llm?: Llm;
  tools?: Tool[];
  /** Offline dialogue: used by the scripted model. */
  intents?: Intent[];
  /**
   * The agents this one may hand the call to (what its tools' `handoff(next)` name, which no check
   * can see inside their code): the checks before a call look at them too, and the embedded
   * sandbox's recognizer is taught their intents' examples, so that a caller is heard after the
   * handoff. The agents they list count as well; a flow may loop back.
   */
  handoffs?: Agent[];
  /** What the scripted model says when no intent matches. */
  didNotUnderstand?: string;
  /** Said when the model fails mid-call (the call goes on). */
  modelErrorLine?: string;
  /** Said when a transfer fails and the call goes on with the agent. @default CALL_ACTION_DEFAULTS.transferFailedLine */
  transferFailedLine?: string;
  /** How long the model may keep the caller waiting (see DEFAULT_MODEL_DEADLINES). */
  modelDeadlines?: Partial<ModelDeadlines>;
  /**
   * Said while the model is slow to start answering: no first sentence to voice (and no tool
   * call) after `modelDeadlines.fillerAfterMs`, first token or not; e.g. 'لحظة من فضلك'. Off
   * when unset.
   */
  fillerLine?: string;
  /**
   * Said once while tools take longer than `afterMs` (TOOL_FILLER_DEFAULTS: 'لحظة من فضلك،
   * أتحقق من ذلك.' after 1500 ms); a tool's own `filler` wins; `false`: never.
   */
  toolFiller?: ToolFiller | false;
  /** Call-clock ms of caller silence during a task before its `timeout()` (see TASK_RUN_DEFAULTS). */
  taskSilenceMs?: number;
  /** Said before hanging up when the service refuses (empty wallet, key without access). */
  outOfServiceLine: string;
  /**
   * Tools after whose reply the call ends (goodbye). A tool can also end or transfer the call
   * itself through `ctx.call.hangup()` / `ctx.call.transfer(target)`.
   */
  endCallAfterTools?: string[];
  /** How the caller's turns end: the Arabic turn policy and its waits (TURN_DEFAULTS, docs/arabic.md#turn-taking). */
  turn?: TurnOptions;
  interruption?: InterruptionOptions;
  stt?: {
    /** Any id (`munsit`, `asr`…); default: the client's `models.stt`. */
    model?: string;
    /**
     * Silence (ms) after which a turn without a cue ends (default 700). With `turn.policy: false`,
     * the endpointing /listen is opened with; with the policy on, /listen gets `turn.listenEndpointingMs`.
     */
    endpointing?: number;
    hotwords?: string[];
    sampleRate?: 8000 | 16000;
    /**
     * Caller audio gathered into /listen messages of this many ms (see `ListenOptions`): fewer
     * writes per call for up to this much later ends of speech. @default LISTEN_DEFAULTS.uplinkFrameMs
     */
    uplinkFrameMs?: number;
    /** Caller audio gathered into /listen messages of this many ms in settled quiet (see `ListenOptions`). @default LISTEN_DEFAULTS.uplinkQuietFrameMs */
    uplinkQuietFrameMs?: number;
    /** How a black-holed /listen connection is noticed (see DEFAULT_LIVENESS). */
    liveness?: Partial<ListenLiveness>;
  };
  /** Diacritize replies through /tashkil/diacritize before synthesis. */
  diacritize?: boolean;
  /**
   * Answering-machine detection for outbound calls (docs/amd.md): when `enabled`, the greeting
   * waits until the first seconds of the call say who answered. A person (or `uncertain`) is
   * greeted; a voicemail greeting gets `voicemail` after its beep (`onMachine: 'voicemail'`) or
   * a hang-up (`'hangup'`, the default); a carrier's "unavailable" announcement is hung up on
   * and marked for a retry. `detector`: the detector's options (`AMD_DEFAULTS`).
   */
  answeringMachine?: { enabled: boolean; onMachine?: 'hangup' | 'voicemail'; detector?: AmdOptions };
  /** The message left on a voicemail (`answeringMachine.onMachine: 'voicemail'`). */
  voicemail?: string;
  /** Keys pressed by the caller: how they are gathered and whether the model reads them. */
  dtmf?: DtmfOptions;
  /**
   * The agent's code at moments of the call; any may be async. Each runs guarded: a throw (or a
   * rejected promise) becomes an `error` event (source `agent`) and a log line; the call goes on.
   */
  hooks?: {
    /** The call is about to start: its metadata (`call.info`) and controls. */
    onCallStart?(call: CallControl): void;
    /** Each final caller turn's text. */
    onUserTurn?(text: string): void;
    /** Each agent turn: what it meant to say, what the caller heard, and whether it was cut off. */
    onAgentTurn?(text: string, heard: string, interrupted: boolean): void;
    /** Each key as it is pressed; return `true` to keep it from the model (handled here). */
    onDtmf?(digit: string, call: CallControl): boolean | void;
    /** This agent takes the call (at the start, or by a handoff): say a line, run a task… */
    onEnter?(session: SessionControl, call: CallControl): void;
    /** This agent hands the call to another. */
    onExit?(session: SessionControl, call: CallControl): void;
  };
}

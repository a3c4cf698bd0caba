import type { EndOfTurnReason } from '../pipeline/turns.ts';
import type { AmdDecision } from '../amd/options.ts';
import type { ToolOutcome } from '../llm/tools.ts';
import type { AmdReport } from './answer-detection.ts';
import type { FailureKind, FailureSource } from './failure.ts';

/**
 * What a turn's latency figures are of: the caller spoke (`spoken`), the caller pressed keys
 * (`keyed`: the "end of speech" is the last key), or the agent said something no caller turn
 * asked for (`line`: the greeting, a `say` from a hook or a tool, a task's prompt, `generateReply`).
 */
export type TurnKind = 'spoken' | 'keyed' | 'line';

/** Latencies of one turn, each stage in milliseconds (defined in docs/architecture.md). */
export interface TurnMetrics {
  /** What the figures are of (none in reports written before it was recorded). */
  kind?: TurnKind;
  /**
   * The caller turn the figures belong to (`user_turn`'s `turn`: 1, 2, … in the call, spoken and
   * keyed alike); none for a line, and in reports written before it was recorded.
   */
  turn?: number;
  /** End of the caller's speech → final transcript. */
  endOfSpeechToFinalMs?: number;
  /** Final transcript → turn decided. */
  turnDecisionMs?: number;
  /** Turn decided → first token of the model. */
  llmFirstTokenMs?: number;
  /** First token of the model → its first sentence sent to synthesis (the model writing it). */
  llmFirstSentenceMs?: number;
  /** First text sent to synthesis → first audio back. */
  ttsFirstAudioMs?: number;
  /** First audio back from synthesis → first audio leaving the transport toward the caller. */
  playoutStartMs?: number;
  /**
   * End of the caller's speech (the capture time of the last recognized word's end) → the
   * first agent audio of the reply leaving the transport (its playback `sent` moving): what the
   * caller feels, minus the network and the phone's own buffers, which no server can see.
   */
  voiceToVoiceMs?: number;
  /**
   * A line (`kind: 'line'`): the session took it up (after what was being said before it) → its
   * first audio leaving the transport; the line's part of what `voiceToVoiceMs` is for a turn.
   */
  lineToVoiceMs?: number;
  /**
   * Why the caller's turn ended when it did (docs/arabic.md#turn-taking): `speech-final-complete`
   * (the turn policy heard a whole question or answer), `silence` (no cue: the ordinary wait),
   * `held-incomplete-timeout` (held open on a connector, filler or unfinished number until the
   * cap), `held-then-continued` (held, and the caller went on), or without a policy `speech-final`
   * / `utterance-end`.
   */
  endOfTurnReason?: EndOfTurnReason;
  /** The turn policy's cue for that decision (`question:كم`, `connector:و`, `digits:4/10`). */
  endOfTurnCue?: string;
  /** Ms the turn policy added to (+) or saved from (−) the ordinary silence before the turn ended. */
  endOfTurnWaitMs?: number;
  interrupted: boolean;
}

/** One turn of the call report: who spoke, what was said and heard, and its metrics. */
export interface ReportTurn {
  role: 'user' | 'agent';
  text: string;
  /** For the agent: the part the caller heard. */
  heardText?: string;
  interrupted?: boolean;
  /** Seconds since the call started: the turn was decided (caller), or its reply ended (agent). */
  at: number;
  /**
   * Seconds since the call started when the turn began: the caller's first recognized word, or
   * the reply's first audio leaving the transport. Absent when unknown (keys, a silent reply).
   */
  startedAt?: number;
  /** For the caller: seconds since the call started when their last recognized word ended. */
  speechEndedAt?: number;
  metrics?: TurnMetrics;
  /** For the agent: which agent of the flow spoke (its `name`); for both: set after a handoff too. */
  agent?: string;
  /** The task the turn belongs to (its prompt, read-back or the caller's answer), e.g. `digits:phone`. */
  task?: string;
  /**
   * For the agent: a line, not the model's reply (`ReportLineKind`): the greeting, text the
   * agent's code gave (`scripted`), or a fixed line the session said on its own (out of service,
   * closing, the apology after a model failure). Absent for the model's replies, and in reports
   * written before it was recorded.
   */
  line?: ReportLineKind;
}

/** One handoff in the call report. */
export interface ReportHandoff {
  from: string;
  to: string;
  carry: 'summary' | 'full' | 'none';
  /** Seconds since the call started. */
  at: number;
}

/** One tool call in the call report: which tool, when it returned, and whether it failed. */
export interface ReportTool {
  name: string;
  /** Seconds since the call started, when the tool returned. */
  at: number;
  /** How long it ran. */
  ms: number;
  /** The error the model read instead of a result. */
  error?: string;
  /** The tool's own code threw (the `error` is its message); a call refused before it ran has none. */
  threw?: true;
  /**
   * What it returned, as JSON would carry it (a campaign's results show it): left out when it
   * failed, handed the call over, or takes more than `REPORT_TOOL_RESULT_MAX` characters as JSON.
   */
  result?: unknown;
}

/** One task in the call report: what it collected, or why it gave up. */
export interface ReportTask {
  name: string;
  /** The agent that ran it. */
  agent: string;
  /** Seconds since the call started, when it started and ended. */
  at: number;
  endedAt: number;
  result: { ok: true; value: unknown } | { ok: false; reason: string; lastHeard?: string };
}

/**
 * A fixed line the session says on its own: `out_of_service` (the service refused or failed for
 * good: the agent's `outOfServiceLine`, then the call ends), `closing` (the server's drain ran out
 * of time: the same line, as the call's last words), `model_error` (the model's request failed or
 * timed out: the agent's `modelErrorLine`, and the call goes on).
 */
export type FixedLineKind = 'out_of_service' | 'closing' | 'model_error';

/**
 * Fixed text said as the agent, not the model's words: `greeting` (the agent's greeting, said as
 * the call starts, or once answering-machine detection found a person), `scripted` (text the
 * agent's code gave: a `say`, a task's prompt or read-back, the transfer-failed line).
 */
export type ScriptedLineKind = 'greeting' | 'scripted';

/** What an agent turn of the report was, when not the model's reply (`ReportTurn.line`). */
export type ReportLineKind = ScriptedLineKind | FixedLineKind;

/** What the session is doing: starting, listening, thinking, speaking, or ended. */
export type SessionState = 'starting' | 'listening' | 'thinking' | 'speaking' | 'ended';

/** Everything a session tells the world, typed. */
export type SessionEvent =
  | { type: 'state'; state: SessionState }
  | { type: 'transcript'; text: string; final: boolean }
  /** `turn`: the caller turn's number in the call (1, 2, …), which a reply answering it names. */
  | { type: 'user_turn'; text: string; source?: 'speech' | 'dtmf'; turn?: number }
  | { type: 'dtmf'; digit: string }
  /**
   * A reply begins: `reply` numbers it in the call (its chunks, tools, end and metrics carry it);
   * `turn` is the caller turn it answers (none for a fixed line, a task's line, `generateReply`);
   * `line`: a fixed line the session says on its own (`FixedLineKind`); `scripted`: fixed text said
   * as the agent (`ScriptedLineKind`: the greeting, a `say`, a task's line), not the model's.
   */
  | { type: 'reply_started'; reply: number; turn?: number; line?: FixedLineKind; scripted?: ScriptedLineKind }
  /** `line`: the chunk is a fixed line the session says on its own (the apology after a model failure). */
  | { type: 'agent_chunk'; text: string; reply?: number; line?: FixedLineKind }
  /**
   * `line`: a fixed line the session said on its own (`FixedLineKind`), not a reply of the
   * agent's; `model_error` when the reply was the apology after a model failure with nothing the
   * model wrote before it (a filler line may precede it).
   */
  | { type: 'agent_turn'; text: string; heardText: string; interrupted: boolean; reply?: number; line?: FixedLineKind }
  /**
   * Reply `reply` was cut before the caller heard a word of it, by the call going out of service
   * or closing with the agent's line (`reason`, the call's end reason): it is no agent turn, in
   * the events or the report.
   */
  | { type: 'reply_dropped'; reply: number; reason: string }
  /** Caller speech over the agent: paused, resumed (a false alarm), confirmed (a barge-in), or a backchannel (`text`, "آه") the agent went on over. */
  | { type: 'interruption'; kind: 'paused' | 'resumed' | 'confirmed' | 'backchannel'; text?: string }
  /**
   * A tool call of the model starts, before its tool runs (its `tool` event tells how it ended):
   * `args` as the model gave them, parsed (`undefined` when they are not JSON), as in the `tool`
   * event's call; `callId` the model's id for the call (the `tool` event's `outcome.call.id`), when
   * it gave one.
   */
  | { type: 'tool_started'; name: string; callId?: string; args: unknown; reply?: number }
  | { type: 'tool'; outcome: ToolOutcome; reply?: number }
  /**
   * A tool call given up (`reason`: past its `timeoutMs`, or `abandoned` with its reply cut off)
   * answered after all, `lateMs` real milliseconds after its `tool` event: what it returned, or
   * threw (`failed`), was dropped. A backend that answers too late shows here; one that never
   * answers tells nothing. `afterEnd`: the call had ended when it answered, so it came on
   * `AgentSession.afterEnd$`, not `events$` (which had completed).
   */
  | { type: 'tool_late'; name: string; callId?: string; lateMs: number; reason: 'timeout' | 'abandoned'; failed: boolean; reply?: number; afterEnd?: true }
  /** The agent (a tool) hung up or transferred the call. */
  | { type: 'call_action'; action: 'hangup' | 'transfer'; target?: string; ok: boolean; message?: string }
  | { type: 'metrics'; metrics: TurnMetrics; reply?: number }
  /** The latency figures of a line no caller turn asked for (`kind: 'line'`); a caller turn's are `metrics`. */
  | { type: 'line_metrics'; metrics: TurnMetrics; reply?: number }
  | { type: 'notice'; message: string }
  /**
   * The service refused (the key, its wallet) or failed for good: the caller hears the agent's
   * out-of-service line (an `agent_turn` with `line: 'out_of_service'`), then the call ends.
   */
  | { type: 'out_of_service'; reason: string }
  /** Recognition's socket dropped and is being replaced (`attempt` 1, 2, …), or is back. */
  | { type: 'reconnect'; service: 'stt'; phase: 'reconnecting' | 'reconnected'; attempt?: number }
  /** Who answered (answering-machine detection) and what the agent does about it. */
  | { type: 'amd'; decision: AmdDecision; action: AmdReport['action'] }
  /**
   * `kind` says what failed in a way an operator acts on; `message` is clean text for people.
   * `tool`: the tool whose code threw (`kind: 'tool'`) or that worked past its `timeoutMs`
   * (`kind: 'timeout'`, source `agent`); `task`: the task whose code threw
   * (`kind: 'task'`, its `name`); a hook that threw is `kind: 'hook'`.
   */
  | { type: 'error'; source: FailureSource; kind: FailureKind; message: string; fatal: boolean; tool?: string; task?: string }
  | { type: 'ended'; reason: string }
  /** Another agent takes the call over at the next reply (`handoff`). */
  | { type: 'agent_handoff'; from: string; to: string; carry: 'summary' | 'full' | 'none' }
  /**
   * A handoff to an agent the call's agents do not list in their `handoffs`: it was not checked
   * before the call and, offline, the sandbox's recognizer was not taught its phrases at the start.
   * `teaching`: the session teaches them now (`SessionOptions.teach`) while the call goes on (a
   * short line if it takes over `HANDOFF_DEFAULTS.teachingLineAfterMs`), the agent's `onEnter` after them.
   */
  | { type: 'handoff_unlisted'; from: string; to: string; teaching: boolean }
  /** A task (`runTask`) takes the caller's turns and keys until it ends. */
  | { type: 'task_started'; name: string }
  | { type: 'task_ended'; name: string; result: ReportTask['result'] };

/** A given-up tool's late answer (`tool_late`), as `AgentSession.afterEnd$` carries it once the call has ended. */
export type LateToolEvent = Extract<SessionEvent, { type: 'tool_late' }>;

/** What `AgentSession.run()` resolves with: the turns, how the call ended, and its metrics. */
export interface CallReport {
  /** The agent the call started with. */
  agent: string;
  /** Every handoff from one agent to the next, in order. */
  handoffs: ReportHandoff[];
  /** Every task run during the call, in order. */
  tasks: ReportTask[];
  /** Every tool call, in order (absent in reports written before tools were recorded). */
  tools?: ReportTool[];
  /**
   * The session clock's time (ms) when the call started, the origin of every `at`: a recording
   * made on the same clock lines up with the turns by it.
   */
  startClock?: number;
  llm: string;
  turns: ReportTurn[];
  ended: string;
  durationSeconds: number;
  notices: string[];
  /** Who answered, when the agent detects answering machines. */
  amd?: AmdReport;
}

import type { AmdDecision } from '../amd/options.ts';
import type { ToolOutcome } from '../llm/tools.ts';
import type { AmdReport } from './answer-detection.ts';
import type { FailureKind, FailureSource } from './failure.ts';

export interface TurnMetrics {
  /** End of the caller's speech → final transcript. */
  endOfSpeechToFinalMs?: number;
  /** Final transcript → turn decided. */
  turnDecisionMs?: number;
  /** Turn decided → first token of the model. */
  llmFirstTokenMs?: number;
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
  interrupted: boolean;
}

export interface ReportTurn {
  role: 'user' | 'agent';
  text: string;
  /** For the agent: the part the caller heard. */
  heardText?: string;
  interrupted?: boolean;
  /** Seconds since the call started. */
  at: number;
  metrics?: TurnMetrics;
}

export type SessionState = 'starting' | 'listening' | 'thinking' | 'speaking' | 'ended';

/** Everything a session tells the world, typed. */
export type SessionEvent =
  | { type: 'state'; state: SessionState }
  | { type: 'transcript'; text: string; final: boolean }
  | { type: 'user_turn'; text: string; source?: 'speech' | 'dtmf' }
  | { type: 'dtmf'; digit: string }
  | { type: 'agent_chunk'; text: string }
  | { type: 'agent_turn'; text: string; heardText: string; interrupted: boolean }
  | { type: 'interruption'; kind: 'paused' | 'resumed' | 'confirmed' }
  | { type: 'tool'; outcome: ToolOutcome }
  /** The agent (a tool) hung up or transferred the call. */
  | { type: 'call_action'; action: 'hangup' | 'transfer'; target?: string; ok: boolean; message?: string }
  | { type: 'metrics'; metrics: TurnMetrics }
  | { type: 'notice'; message: string }
  /** Who answered (answering-machine detection) and what the agent does about it. */
  | { type: 'amd'; decision: AmdDecision; action: AmdReport['action'] }
  /** `kind` says what failed in a way an operator acts on; `message` is clean text for people. */
  | { type: 'error'; source: FailureSource; kind: FailureKind; message: string; fatal: boolean }
  | { type: 'ended'; reason: string };

export interface CallReport {
  agent: string;
  llm: string;
  turns: ReportTurn[];
  ended: string;
  durationSeconds: number;
  notices: string[];
  /** Who answered, when the agent detects answering machines. */
  amd?: AmdReport;
}

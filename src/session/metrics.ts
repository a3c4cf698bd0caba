import type { EndOfTurn } from '../pipeline/turns.ts';
import type { TurnMetrics } from './events.ts';

const ms = (a: number | undefined, b: number | undefined) => (a && b ? Math.round((b - a) * 10) / 10 : undefined);

/** Clock times of one turn's milestones (0 or undefined when not reached). */
export interface TurnTimes {
  speechEnd: number | undefined;
  finalAt: number;
  decidedAt: number;
  firstToken: number;
  firstChunk: number;
  firstAudio: number;
  /** The first agent audio of the reply left the transport (playback `sent` moved). */
  firstSent: number | undefined;
}

/**
 * Durations between milestones, to 0.1 ms (a clock finer than Date.now() makes the sub-ms part
 * meaningful, and the latency budget is counted in single ms); a missing milestone leaves its
 * figures out.
 */
export function turnMetrics(t: TurnTimes, end?: EndOfTurn, keyed = false): Omit<TurnMetrics, 'interrupted'> {
  return {
    kind: keyed ? 'keyed' : 'spoken',
    // Keys are not recognized: a keyed turn's "final" is its last key.
    endOfSpeechToFinalMs: keyed ? undefined : ms(t.speechEnd, t.finalAt),
    turnDecisionMs: ms(t.finalAt, t.decidedAt),
    llmFirstTokenMs: ms(t.decidedAt, t.firstToken),
    llmFirstSentenceMs: ms(t.firstToken, t.firstChunk),
    ttsFirstAudioMs: ms(t.firstChunk, t.firstAudio),
    playoutStartMs: ms(t.firstAudio, t.firstSent),
    voiceToVoiceMs: ms(t.speechEnd, t.firstSent),
    ...(end ? { endOfTurnReason: end.reason, endOfTurnWaitMs: end.waitMs, ...(end.cue ? { endOfTurnCue: end.cue } : {}) } : {}),
  };
}

/**
 * The figures of a line no caller turn asked for, from `startedAt` (the session took it up): the
 * model's parts when a model wrote it (`generateReply`), synthesis, playout, and the whole.
 */
export function lineMetrics(startedAt: number, t: Omit<TurnTimes, 'speechEnd' | 'finalAt' | 'decidedAt'>): Omit<TurnMetrics, 'interrupted'> {
  return {
    kind: 'line',
    llmFirstTokenMs: ms(startedAt, t.firstToken),
    llmFirstSentenceMs: ms(t.firstToken, t.firstChunk),
    ttsFirstAudioMs: ms(t.firstChunk, t.firstAudio),
    playoutStartMs: ms(t.firstAudio, t.firstSent),
    lineToVoiceMs: ms(startedAt, t.firstSent),
  };
}

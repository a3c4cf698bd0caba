import type { EndOfTurn } from '../pipeline/turns.ts';
import type { TurnMetrics } from './events.ts';

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
export function turnMetrics(t: TurnTimes, end?: EndOfTurn): Omit<TurnMetrics, 'interrupted'> {
  const ms = (a: number | undefined, b: number | undefined) => (a && b ? Math.round((b - a) * 10) / 10 : undefined);
  return {
    endOfSpeechToFinalMs: ms(t.speechEnd, t.finalAt),
    turnDecisionMs: ms(t.finalAt, t.decidedAt),
    llmFirstTokenMs: ms(t.decidedAt, t.firstToken),
    llmFirstSentenceMs: ms(t.firstToken, t.firstChunk),
    ttsFirstAudioMs: ms(t.firstChunk, t.firstAudio),
    playoutStartMs: ms(t.firstAudio, t.firstSent),
    voiceToVoiceMs: ms(t.speechEnd, t.firstSent),
    ...(end ? { endOfTurnReason: end.reason, endOfTurnWaitMs: end.waitMs, ...(end.cue ? { endOfTurnCue: end.cue } : {}) } : {}),
  };
}

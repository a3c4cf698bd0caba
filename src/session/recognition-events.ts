/**
 * What a session does with its recognizer's events: /listen's results go to answer detection
 * and the turn detector (`Hearing`), reconnects are told as notices, and a recognizer that
 * stopped for good puts the call out of service rather than leaving the caller in silence.
 */
import type { SttEvent } from '../pipeline/stt.ts';
import type { ListenEvent } from '../service/ws/listen-events.ts';
import type { AnswerDetection } from './answer-detection.ts';
import type { SessionEvent } from './events.ts';
import { closeFailure, type Failure, type FailureSource } from './failure.ts';
import type { Hearing } from './hearing.ts';

/** What the recognizer's handlers need of their session. */
export interface RecognitionHost {
  hearing: Hearing;
  amd: AnswerDetection | undefined;
  emit(e: SessionEvent): void;
  notice(message: string): void;
  fail(source: FailureSource, f: Failure, fatal: boolean, cause?: unknown): void;
  /** Says the agent's out-of-service line and ends the call. */
  outOfService(reason: string): Promise<void>;
}

/** Handles one event of the session's recognizer. */
export function onRecognition(host: RecognitionHost, ev: SttEvent): void {
  if (ev.type === 'listen') return onListen(host, ev.event, ev.at);
  if (ev.type === 'reconnecting') {
    host.emit({ type: 'reconnect', service: 'stt', phase: 'reconnecting', attempt: ev.attempt });
    return host.notice(`speech recognition reconnecting (attempt ${ev.attempt}, close ${ev.close.code})`);
  }
  if (ev.type === 'reconnected') {
    host.emit({ type: 'reconnect', service: 'stt', phase: 'reconnected' });
    return host.notice(`speech recognition reconnected; replayed ${ev.replayedSeconds.toFixed(1)} s of caller audio`);
  }
  const f = closeFailure(ev.close, 'stt', ev.close.retryable);
  host.fail('stt', f, true, ev.message);
  // Whatever stopped recognition for good, the caller hears the out-of-service line, not silence.
  void host.outOfService(f.message);
}

function onListen(host: RecognitionHost, e: ListenEvent, at: number): void {
  host.amd?.onListen(e);
  // The recognizer heard speech it could not put into words (the sandbox's closed set): said
  // once per utterance, or a caller the sandbox does not know looks like a line that takes no turns.
  if (e.type === 'Metadata' && e.phase === 'warning') host.notice(`caller speech without words: ${e.warning}`);
  if (e.type === 'Results' && e.transcript) host.emit({ type: 'transcript', text: e.transcript, final: e.is_final });
  host.hearing.listen(e, at);
}

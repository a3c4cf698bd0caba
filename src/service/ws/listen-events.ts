import type { CloseInfo } from './close-codes.ts';

/** Events of the live /listen socket, as the client hands them on. */
export interface ListenWord {
  word: string;
  start: number;
  end: number;
  confidence?: number;
  [extra: string]: unknown;
}

/** The `/listen` socket's first message: the session's id, the model that answers, and hotwords it dropped. */
export interface ListenOpenMetadata {
  type: 'Metadata';
  phase: 'open';
  session_id?: string;
  model?: string;
  sample_rate?: number;
  dropped_hotwords: string[];
  [extra: string]: unknown;
}

/** A notice mid-stream (the sandbox uses it for speech it could not recognize). */
export interface ListenWarningMetadata {
  type: 'Metadata';
  phase: 'warning';
  warning: string;
  [extra: string]: unknown;
}

/** The `/listen` socket's last message: the audio billed and the turns counted. */
export interface ListenCloseMetadata {
  type: 'Metadata';
  phase: 'close';
  session_id?: string;
  audio_seconds_billed?: number;
  turn_count?: number;
  [extra: string]: unknown;
}

/** The service heard speech start (used for barge-in). */
export interface SpeechStarted {
  type: 'SpeechStarted';
  channel: number;
  /** Seconds from the start of the stream. */
  ts: number;
}

/** A transcript: interim or final, with words and the end-of-speech flag. */
export interface ListenResults {
  type: 'Results';
  channel: number;
  turn_id: number;
  /** Trimmed; interims are cumulative for the turn. */
  transcript: string;
  words: ListenWord[];
  is_final: boolean;
  speech_final: boolean;
  language?: string;
  confidence: number | null;
}

/** The service found the end of an utterance (the backup end of turn). */
export interface UtteranceEnd {
  type: 'UtteranceEnd';
  channel: number;
  turn_id: number;
  last_word_end: number;
}

/** A gender or sentiment label for a turn. */
export interface TurnLabel {
  type: 'Gender' | 'Sentiment';
  channel: number;
  turn_id: number;
  label: string;
  score: number;
}

/** An error the service reported on the socket. */
export interface ListenErrorEvent {
  type: 'Error';
  code: number;
  message: string;
  recoverable: boolean;
}

/** A frame that is not valid JSON or not a known shape: reported, never thrown. */
export interface ListenMalformed {
  type: 'Malformed';
  raw: string;
}

/** The socket closed; `close` says why and whether to reconnect. */
export interface ListenClosed {
  type: 'Closed';
  close: CloseInfo;
}

/** Everything a `ListenSocket` emits, typed by `type`. */
export type ListenEvent =
  | ListenOpenMetadata
  | ListenCloseMetadata
  | ListenWarningMetadata
  | SpeechStarted
  | ListenResults
  | UtteranceEnd
  | TurnLabel
  | ListenErrorEvent
  | ListenMalformed
  | ListenClosed;

const num = (v: unknown, d = 0): number => (typeof v === 'number' && Number.isFinite(v) ? v : d);

/** Turns one server frame into a typed event, tolerating the variants seen in the wild. */
export function toListenEvent(frame: Record<string, unknown>, raw: string): ListenEvent {
  switch (frame.type) {
    case 'Metadata': {
      if (typeof frame.warning === 'string') return { ...frame, type: 'Metadata', phase: 'warning', warning: frame.warning } as ListenWarningMetadata;
      const closing = 'audio_seconds_billed' in frame || 'turn_count' in frame;
      if (closing) return { ...frame, type: 'Metadata', phase: 'close' } as ListenCloseMetadata;
      const dropped = Array.isArray(frame.dropped_hotwords) ? (frame.dropped_hotwords as string[]) : [];
      return { ...frame, type: 'Metadata', phase: 'open', dropped_hotwords: dropped } as ListenOpenMetadata;
    }
    case 'SpeechStarted':
      return { type: 'SpeechStarted', channel: num(frame.channel), ts: num(frame.ts ?? frame.timestamp) };
    case 'Results':
      return {
        type: 'Results',
        channel: num(frame.channel),
        turn_id: num(frame.turn_id),
        transcript: typeof frame.transcript === 'string' ? frame.transcript.trim() : '',
        words: Array.isArray(frame.words) ? (frame.words as ListenWord[]) : [],
        is_final: frame.is_final === true,
        speech_final: frame.speech_final === true,
        language: typeof frame.language === 'string' ? frame.language : undefined,
        confidence: typeof frame.confidence === 'number' ? frame.confidence : null,
      };
    case 'UtteranceEnd':
      return { type: 'UtteranceEnd', channel: num(frame.channel), turn_id: num(frame.turn_id), last_word_end: num(frame.last_word_end) };
    case 'Gender':
    case 'Sentiment':
      return {
        type: frame.type,
        channel: num(frame.channel),
        turn_id: num(frame.turn_id),
        label: String(frame.label ?? ''),
        score: num(frame.score),
      };
    case 'Error':
      return {
        type: 'Error',
        code: num(frame.code ?? frame.errorCode),
        message: String(frame.message ?? frame.errorMessage ?? 'error'),
        recoverable: frame.recoverable === true,
      };
    default:
      return { type: 'Malformed', raw: raw.slice(0, 200) };
  }
}

import type { Observable } from 'rxjs';
import type { AudioFrame } from '../src/audio/frame.ts';

/** What a transport reports besides audio. */
export type TransportEvent =
  | { type: 'dtmf'; digit: string }
  | { type: 'hangup'; reason?: string }
  | { type: 'played'; id: string };

/**
 * The agent's side of a call. Transports report what was actually played (marks or a paced
 * clock): the session never guesses when the transport knows.
 */
export interface TransportOutput {
  /** Rate the transport wants agent audio at. */
  readonly sampleRate: number;
  write(frame: AudioFrame): void;
  /** Resolves when everything written before it has played (or was dropped by interrupt). */
  mark(id: string): Promise<void>;
  /** Drops everything queued; resolves with the played position (seconds, since the start). */
  interrupt(): Promise<number>;
  /** Seconds of agent audio played since the start of the call. */
  position(): number;
  close(): Promise<void>;
}

export interface Transport {
  /** Rate of the caller audio on `audio$`. */
  readonly inputRate: number;
  readonly audio$: Observable<AudioFrame>;
  readonly events$: Observable<TransportEvent>;
  readonly output: TransportOutput;
}

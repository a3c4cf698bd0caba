/**
 * What a session does with its transport: the caller's audio goes to the listeners (recognition,
 * answer detection, the local VAD) until it ends or fails, and the transport's events (the
 * caller's hangup, a broken connection, a key) end the call or reach the keypad.
 */
import type { Observer } from 'rxjs';
import type { AudioFrame } from '../audio/frame.ts';
import type { TransportEvent } from '../transport/types.ts';
import type { Failure, FailureSource } from './failure.ts';

/** What the transport's handlers need of their session. */
export interface TransportHost {
  /** The caller's side ended the call: the session has nothing to hang up. */
  callerGone(): void;
  end(reason: string): Promise<void>;
  fail(source: FailureSource, f: Failure, fatal: boolean, cause?: unknown): void;
  /** A key the caller pressed (the session's keypad). */
  key(digit: string): void;
}

/** The caller's audio: each frame to `listen`; its end is the caller's hangup, its error a failed call. */
export function callerAudio(host: TransportHost, listen: (frame: AudioFrame) => void): Partial<Observer<AudioFrame>> {
  return {
    next: listen,
    error: (err) => {
      host.fail('transport', { kind: 'network', message: 'the caller audio failed' }, true, err);
      void host.end('transport failed');
    },
    complete: () => {
      host.callerGone();
      void host.end('caller audio ended');
    },
  };
}

/** Handles one transport event: a hangup or an error ends the call; a key goes to the keypad. */
export function onTransportEvent(host: TransportHost, e: TransportEvent): void {
  if (e.type === 'hangup') {
    host.callerGone();
    void host.end(e.reason ?? 'hangup');
  } else if (e.type === 'error') {
    host.fail('transport', { kind: 'network', message: `the call connection failed: ${e.message}` }, true);
    void host.end(`transport error: ${e.message}`);
  } else if (e.type === 'dtmf') host.key(e.digit);
}

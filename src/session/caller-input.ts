/**
 * What the caller sends, wired to the session once the call is up: each frame of their audio to
 * the local detector, answer detection and the recognizer (in that order), a local speech start
 * as the start of a barge-in, the transport's events (hangup, a broken connection, keys), the
 * keypad, and what the recognizer hears. One subscription, let go when the call ends.
 */
import { Subscription } from '../rx.ts';
import type { CallerVad } from '../pipeline/local-vad.ts';
import type { Transport } from '../transport/types.ts';
import type { AnswerDetection } from './answer-detection.ts';
import type { Hearing } from './hearing.ts';
import type { Keypad } from './keypad.ts';
import { onRecognition, type RecognitionHost } from './recognition-events.ts';
import type { SessionOutput } from './session-output.ts';
import type { Recognizer } from './stage-types.ts';
import { callerAudio, onTransportEvent, type TransportHost } from './transport-events.ts';

/** The session's parts the caller's input goes to. */
export interface CallerInputHost {
  transport: Transport;
  stt: Recognizer;
  localVad: CallerVad | undefined;
  amd: AnswerDetection | undefined;
  keypad: Keypad;
  hearing: Hearing;
  out: Pick<SessionOutput, 'emit' | 'notice' | 'fail'>;
  /** The caller's side ended the call: the session has nothing to hang up. */
  callerGone(): void;
  end(reason: string): Promise<void>;
  /** Says the agent's out-of-service line and ends the call. */
  outOfService(reason: string): Promise<void>;
}

/** Starts listening to the caller; unsubscribing stops it all. */
export function listenToCaller(host: CallerInputHost): Subscription {
  const { transport, stt, localVad, amd, keypad, hearing, out } = host;
  const subs = new Subscription();
  const transportHost: TransportHost = { callerGone: host.callerGone, end: host.end, fail: out.fail, key: (digit) => keypad.key(digit) };
  subs.add(
    transport.audio$.subscribe(
      callerAudio(transportHost, (f) => {
        // The local detector first: a frame that starts speech pauses the agent (the platform's
        // clear written) before the same frame's uplink write and answer detection.
        localVad?.push(f);
        amd?.push(f);
        stt.push(f);
      }),
    ),
  );
  // Local speech start counts like the service's SpeechStarted; words still come from /listen.
  if (localVad) subs.add(localVad.speech$.subscribe((s) => s.type === 'start' && hearing.speechStarted(s.at)));
  subs.add(transport.events$.subscribe((e) => onTransportEvent(transportHost, e)));
  subs.add(keypad.start());
  const recognition: RecognitionHost = { hearing, amd, emit: out.emit, notice: out.notice, fail: out.fail, outOfService: host.outOfService };
  subs.add(stt.events$.subscribe((e) => onRecognition(recognition, e)));
  return subs;
}

/**
 * How a call ends: once, whoever asks first (the caller, a tool, a failure, the service refusing),
 * with every part that holds a socket, a timer or the line let go in order, and the caller hung
 * up on unless they left first. Out of service, the agent's line is said before.
 */
import type { Subscription } from '../rx.ts';
import type { CallerVad } from '../pipeline/local-vad.ts';
import type { ResamplingOutput } from '../transport/resampling-output.ts';
import type { Transport } from '../transport/types.ts';
import type { AnswerDetection } from './answer-detection.ts';
import type { Flow } from './flow.ts';
import type { Hearing } from './hearing.ts';
import type { Keypad } from './keypad.ts';
import type { Logger } from './logger.ts';
import type { OutOfServiceLine } from './out-of-service.ts';
import type { ReplyLane } from './reply-lane.ts';
import type { SessionOutput } from './session-output.ts';
import type { Recognizer } from './stage-types.ts';
import type { AgentStages } from './stages.ts';

/** The parts of a session its end lets go of. */
export interface CallParts {
  log: Logger;
  out: SessionOutput;
  transport: Transport;
  /** The target of a transfer in progress: the call ends as transferred, whatever asked. */
  transferring(): string | undefined;
  flow: Flow;
  lane: ReplyLane;
  subs: Subscription;
  hearing: Hearing;
  stages(): AgentStages;
  outOfServiceLine: OutOfServiceLine;
  stt: Recognizer;
  localVad: CallerVad | undefined;
  amd: AnswerDetection | undefined;
  keypad: Keypad;
  output: ResamplingOutput;
  /** Lets go of whoever waits for the call to be up (a task of the first onEnter). */
  live(): void;
}

export class CallEnding {
  private ending: Promise<void> | undefined;
  private lineEnd: Promise<void> | undefined;
  private resolveEnded!: () => void;
  /** Resolves once the call has ended (sockets closed, `ended` emitted). */
  readonly ended = new Promise<void>((r) => (this.resolveEnded = r));
  /** Why the call ended (empty until it has begun to end). */
  reason = '';
  /**
   * Why the call is going out of service or closing with the agent's line, from the moment it
   * starts to (the reply in flight is cut then): a reply the caller heard nothing of is dropped.
   */
  closingWith: string | undefined;
  /** The caller's side ended the call: nothing to hang up. */
  callerGone = false;

  /** `parts`: looked up when the call ends (the session makes them after this). */
  constructor(private readonly parts: () => CallParts) {}

  /** The call is ending or has ended. */
  get isEnding(): boolean {
    return this.ending !== undefined;
  }

  /** Resolves when the end that has begun is over (at once when none has). */
  get over(): Promise<void> | undefined {
    return this.ending;
  }

  /** Ends the call: the last final is awaited, sockets closed, the transport's output stopped. */
  end(reason: string): Promise<void> {
    this.ending ??= (async () => {
      const p = this.parts();
      reason = p.transferring() ?? reason;
      this.reason = reason;
      p.flow.end();
      p.live();
      await p.lane.stop();
      p.subs.unsubscribe();
      p.hearing.cancel();
      await p.stages().replies.current?.stop();
      await p.outOfServiceLine.stop();
      await p.stt.finish().catch(() => {});
      p.localVad?.close();
      p.amd?.close();
      await p.stages().speaker.close().catch(() => {});
      p.keypad.close();
      await p.output.close().catch(() => {});
      // The session ends a call the caller is still on (a tool, out of service, a failure).
      if (!this.callerGone) await p.transport.hangup?.(reason).catch((err: Error) => p.log.warn({ err: err.message }, 'transport hangup failed'));
      p.out.ended(reason);
      this.resolveEnded();
    })();
    return this.ending;
  }

  /** The caller's audio ended: they are gone. */
  callerLeft(): void {
    this.callerGone = true;
    void this.end('caller audio ended');
  }

  /** The service refuses (wallet, access): say the agent's line and hang up. */
  outOfService(reason: string): Promise<void> {
    return this.lineThenEnd(`out of service: ${reason}`, true);
  }

  /**
   * The server shuts down with the call still on (its drain's time is up): the caller hears the
   * agent's out-of-service line, rendered at start-up, then the hang-up, rather than a line gone
   * dead mid-sentence. `reason` is the end's.
   */
  endWithLine(reason: string): Promise<void> {
    return this.lineThenEnd(reason, false);
  }

  /** Once, whichever asks first: what is being said stops, the line is said, the call ends. */
  private lineThenEnd(reason: string, notice: boolean): Promise<void> {
    this.lineEnd ??= (async () => {
      if (this.ending) return;
      this.closingWith = reason;
      const p = this.parts();
      if (notice) {
        p.out.notice(reason);
        p.out.emit({ type: 'out_of_service', reason });
      }
      // A task waiting on the caller would hold the reply whose tool runs it, and the line with
      // it, until its silences ran out (24 s of silence by default): it is let go first.
      p.flow.end();
      await p.lane.cancel();
      // Rendered at start-up (the speaker's process-wide cache of fixed lines): said even when
      // the service failed before this call had its own copy.
      await p.outOfServiceLine.say(p.stages().speaker, notice ? 'out_of_service' : 'closing');
      await this.end(reason);
    })();
    return this.lineEnd;
  }
}

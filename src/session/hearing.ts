import type { InterruptionDecision } from '../pipeline/interruption.ts';
import type { ReplyPlayout } from '../pipeline/playout.ts';
import type { UserTurn } from '../pipeline/turns.ts';
import type { ListenEvent } from '../service/ws/listen-events.ts';
import { Alarm, type Clock } from '../transport/clock.ts';
import type { SessionEvent } from './events.ts';
import type { AgentStages } from './stages.ts';

/** A reply that asks the caller something (Arabic or Latin question mark). */
const ASKS = /[؟?]/;

/** What hearing the caller needs from the session. */
export interface HearingHost {
  clock: Clock;
  /** The stages of the agent speaking now (its turn and interruption policies, its playout). */
  stages(): AgentStages;
  isEnding(): boolean;
  /** A caller turn was decided. */
  turn(t: UserTurn): void;
  /** The caller is speaking (a task's silence count starts again). */
  heard(): void;
  /** A confirmed barge-in: what the agent is saying stops. */
  interrupt(): void;
  /** A task waits for a yes or a no (a read-back): "نعم" over it answers, it is no backchannel. */
  awaitsYesNo?(): boolean;
  /** Resolves once no reply is in flight (its record written): a turn given then cuts nothing off. */
  repliesIdle?(): Promise<void>;
  emit(e: SessionEvent): void;
}

/**
 * Turns and barge-ins, decided from what the recognizer hears by the agent's turn and
 * interruption policies, with one timer for the next moment either may decide something
 * without a new event (an end-of-turn delay, a false-alarm timeout). Nothing runs between
 * events otherwise.
 */
export class Hearing {
  private readonly alarm: Alarm;

  constructor(private readonly host: HearingHost) {
    this.alarm = new Alarm(host.clock, () => this.onDeadline());
  }

  /** An event of the recognizer. */
  listen(e: ListenEvent, at: number): void {
    if (e.type === 'SpeechStarted' || (e.type === 'Results' && e.transcript)) this.host.heard();
    const { turns, interruption } = this.host.stages();
    this.decide(interruption.onEvent(e, at, this.agentSpeaking(), { yesNo: this.host.awaitsYesNo?.() }));
    for (const t of turns.onEvent(e, at)) this.turn(t);
    this.schedule();
  }

  /**
   * A turn the turn policy decided, unless it is only a backchannel ("آه", "إيه") said while the
   * agent goes on: that one is told (`interruption`, kind `backchannel`) and the agent carries on.
   * Over a task's read-back (a yes or a no awaited) it is the answer, as before; over a reply that
   * asks something, it is the answer said early, the caller's turn once the reply has ended.
   */
  private turn(t: UserTurn): void {
    const { interruption, replies } = this.host.stages();
    const reply = replies.current;
    if (reply && this.agentSpeaking() && !this.host.awaitsYesNo?.() && interruption.isBackchannel?.(t.text)) {
      this.host.emit({ type: 'interruption', kind: 'backchannel', text: t.text });
      this.answerIfAsked(reply, t);
      return;
    }
    this.early = undefined;
    this.host.turn(t);
  }

  /** The backchannel said over a reply, kept until that reply ends (a later turn replaces it). */
  private early: UserTurn | undefined;

  private answerIfAsked(reply: ReplyPlayout, t: UserTurn): void {
    this.early = t;
    void reply.finished.then(async (how) => {
      if (how !== 'done' || !ASKS.test(reply.fullText())) return;
      await this.host.repliesIdle?.();
      if (this.early !== t || this.host.isEnding()) return;
      this.early = undefined;
      this.host.turn(t);
    });
  }

  /** Speech started by the local VAD: it counts for barge-in like the service's SpeechStarted; words still come from the recognizer. */
  speechStarted(at: number): void {
    this.host.heard();
    this.decide(this.host.stages().interruption.onEvent({ type: 'SpeechStarted', channel: 0, ts: 0 }, at, this.agentSpeaking()));
    this.schedule();
  }

  /** Arms the timer for the next deadline of either policy. */
  schedule(): void {
    const { turns, interruption } = this.host.stages();
    const due = [turns.deadline, interruption.deadline].filter((t): t is number => t !== undefined);
    this.alarm.set(this.host.isEnding() || !due.length ? undefined : Math.min(...due));
  }

  cancel(): void {
    this.alarm.cancel();
  }

  agentSpeaking(): boolean {
    return !!this.host.stages().replies.current?.speaking;
  }

  private onDeadline(): void {
    if (this.host.isEnding()) return;
    const now = this.host.clock.now();
    const { turns, interruption } = this.host.stages();
    for (const t of turns.tick(now)) this.turn(t);
    this.decide(interruption.tick(now, this.agentSpeaking()));
    this.schedule();
  }

  private decide(d: InterruptionDecision | undefined): void {
    const playout = this.host.stages().replies.current;
    if (!d || !playout) return;
    if (d === 'pause') {
      void playout.pause();
      this.host.emit({ type: 'interruption', kind: 'paused' });
    } else if (d === 'resume') {
      playout.resume();
      this.host.emit({ type: 'interruption', kind: 'resumed' });
    } else {
      this.host.emit({ type: 'interruption', kind: 'confirmed' });
      this.host.interrupt();
    }
  }
}

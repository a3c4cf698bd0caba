/**
 * Who answered an outbound call, for the session: runs the answering-machine detector on the
 * caller's first seconds and the recognizer's transcripts, holds the greeting until it decides,
 * then greets a person, leaves `agent.voicemail` after the beep, or hangs up (and marks a
 * carrier's "unavailable" for a retry). Kept apart from the session so it only wires it in.
 */
import { AmdDetector, type AmdDecision } from '../amd/index.ts';
import type { AudioFrame } from '../audio/frame.ts';
import type { ListenEvent } from '../service/ws/listen-events.ts';
import type { Clock } from '../transport/clock.ts';
import type { CallControl } from '../transport/types.ts';
import type { Agent } from './agent.ts';
import type { SessionEvent } from './events.ts';

/** The decision as the call report keeps it. */
export interface AmdReport {
  class: AmdDecision['class'];
  /** ms from the start of the call to the decision. */
  decisionMs: number;
  reason: string;
  /** What the agent did about it. */
  action: 'greeted' | 'voicemail' | 'hangup';
  /** Seconds since the call started when the beep ended (voicemail with a beep). */
  beepEndAt?: number;
  /** The contact should be called again later (the carrier said it cannot be reached). */
  retry: boolean;
  signals: AmdDecision['signals'];
}

/** What the detection needs from its session. */
export interface AnswerDetectionHost {
  clock: Clock;
  control: CallControl;
  emit(e: SessionEvent): void;
  /** Says a fixed line as the agent (the greeting, the voicemail message). */
  say(text: string): void;
  /** Whether the call is ending already. */
  ending(): boolean;
  notice(message: string): void;
}

/** Clock ms without a caller frame after which the line counts as having stopped sending. */
const LINE_QUIET_MS = 500;

/** One call's answering-machine detection and what the agent does with its decision. */
export class AnswerDetection {
  private detector!: AmdDetector;
  private startedAt = 0;
  private lastFrameAt: number | undefined;
  private readonly timer = new AbortController();
  private resolve!: (d: AmdDecision) => void;
  private readonly decided = new Promise<AmdDecision>((r) => (this.resolve = r));
  private decision: AmdDecision | undefined;
  /** Set once acted upon: the call report's `amd`. */
  report: AmdReport | undefined;

  constructor(
    private readonly agent: Agent,
    private readonly host: AnswerDetectionHost,
  ) {
    const mode = agent.answeringMachine?.onMachine ?? 'hangup';
    if (mode !== 'hangup' && mode !== 'voicemail') throw new Error(`agent ${agent.name}: answeringMachine.onMachine is 'hangup' or 'voicemail', not ${String(mode)}`);
    if (mode === 'voicemail' && !agent.voicemail?.trim()) throw new Error(`agent ${agent.name}: answeringMachine.onMachine is 'voicemail' but agent.voicemail (the message) is empty`);
    // The detector's options are checked now, with the agent, not when a call is answered.
    new AmdDetector(agent.answeringMachine?.detector);
  }

  /** The detection an agent asks for (`agent.answeringMachine.enabled`), or none. */
  static forAgent(agent: Agent, host: AnswerDetectionHost): AnswerDetection | undefined {
    return agent.answeringMachine?.enabled ? new AnswerDetection(agent, host) : undefined;
  }

  /** The call is answered: listening starts now. */
  start(): void {
    this.startedAt = this.host.clock.now();
    this.detector = new AmdDetector(this.agent.answeringMachine?.detector, this.startedAt);
    this.arm();
  }

  /** The detector is still listening: the caller's words are not a turn yet. */
  get pending(): boolean {
    return !this.decision;
  }

  /** Whether a user turn whose speech ended at `speechEndAt` (clock ms) belongs to the detection (the "ألو" it decided on). */
  swallows(speechEndAt: number | undefined): boolean {
    return !this.decision || (speechEndAt !== undefined && speechEndAt <= this.decision.at);
  }

  push(frame: AudioFrame): void {
    this.lastFrameAt = this.host.clock.now();
    if (!this.decision && this.detector) this.settle(this.detector.push(frame));
  }

  onListen(e: ListenEvent, at: number): void {
    if (!this.decision && this.detector && e.type === 'Results' && e.transcript) this.settle(this.detector.transcript(e.transcript, e.is_final, at));
  }

  /** Waits for the decision and acts on it; the greeting is said here instead of at the start. */
  async run(): Promise<void> {
    const d = await this.decided;
    if (this.host.ending()) return;
    const { agent, host } = this;
    const mode = agent.answeringMachine?.onMachine ?? 'hangup';
    const machine = d.class === 'machine-voicemail' || d.class === 'machine-unavailable';
    const action: AmdReport['action'] = !machine ? 'greeted' : d.class === 'machine-voicemail' && mode === 'voicemail' ? 'voicemail' : 'hangup';
    this.report = {
      class: d.class,
      decisionMs: d.decisionMs,
      reason: d.reason,
      action,
      ...(d.beepEndAt !== undefined ? { beepEndAt: Math.round(d.beepEndAt - this.startedAt) / 1000 } : {}),
      retry: d.class === 'machine-unavailable',
      signals: d.signals,
    };
    host.emit({ type: 'amd', decision: d, action });
    if (action === 'greeted') {
      if (agent.greeting) host.say(agent.greeting);
    } else if (action === 'voicemail') {
      if (d.messageAt === undefined) host.notice('voicemail: the greeting was still going at the time limit; the message is left anyway');
      host.say(agent.voicemail!);
      // Asked while the message is being said: the hang-up waits for it to be heard.
      await host.control.hangup('agent hung up: voicemail left');
    } else await host.control.hangup(`agent hung up: ${d.class}`);
  }

  close(): void {
    this.timer.abort();
  }

  private settle(d: AmdDecision | undefined): void {
    if (!d || this.decision) return;
    this.decision = d;
    this.timer.abort();
    this.resolve(d);
  }

  /**
   * A line that stops sending audio still gets a decision, at the detector's deadline. While
   * frames still arrive, the detector decides on their own times: a frame late on the wire is not
   * silence, and a person's "ألو" still in flight must not turn into `uncertain`.
   */
  private arm(): void {
    const due = this.detector.deadline ?? this.startedAt + this.detector.o.initialSilenceMs;
    this.host.clock.sleep(Math.max(0, due - this.host.clock.now()), this.timer.signal).then(
      () => {
        const now = this.host.clock.now();
        if (this.lastFrameAt !== undefined && now - this.lastFrameAt < LINE_QUIET_MS) {
          this.host.clock.sleep(LINE_QUIET_MS, this.timer.signal).then(() => !this.decision && this.arm(), () => {});
          return;
        }
        this.settle(this.detector.tick(now));
        if (!this.decision) this.arm();
      },
      () => {},
    );
  }
}

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
  /** Says a fixed line as the agent (`greeting`: it is the agent's greeting; else the voicemail message). */
  say(text: string, greeting?: boolean): void;
  /** Whether the call is ending already. */
  ending(): boolean;
  notice(message: string): void;
}

/**
 * Clock ms with no caller frame, seen twice in a row, after which the line counts as having
 * stopped sending. Twice: a machine that stalls delays the timer and the frames alike, and the
 * timer may run before the frames that queued meanwhile, so quiet is confirmed after they had their turn.
 */
const LINE_QUIET_MS = 500;

/** One call's answering-machine detection and what the agent does with its decision. */
export class AnswerDetection {
  /** Made at the caller's first frame (or, if none comes, at the deadline): stream time starts there. */
  private detector: AmdDetector | undefined;
  private readonly o: AmdDetector['o'];
  private started = false;
  private startedAt = 0;
  /** Clock ms the last caller frame arrived, how many arrived, and the stream time they reached. */
  private lastFrameAt: number | undefined;
  private frames = 0;
  private streamAtLastFrame = 0;
  /** Clock ms the decision was made (its `at` is stream time). */
  private decidedAt: number | undefined;
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
    this.o = new AmdDetector(agent.answeringMachine?.detector).o;
  }

  /** The detection an agent asks for (`agent.answeringMachine.enabled`), or none. */
  static forAgent(agent: Agent, host: AnswerDetectionHost): AnswerDetection | undefined {
    return agent.answeringMachine?.enabled ? new AnswerDetection(agent, host) : undefined;
  }

  /** The call is answered: listening starts now. */
  start(): void {
    this.started = true;
    this.startedAt = this.streamAtLastFrame = this.host.clock.now();
    this.arm();
  }

  /**
   * The detector, from stream time `origin`: the caller's first frame (a stream that took a while
   * to start sending on a loaded machine has not been silent meanwhile); each frame is then timed
   * by the audio before it.
   */
  private detectorFrom(origin: number): AmdDetector {
    if (!this.detector) {
      this.detector = new AmdDetector(this.agent.answeringMachine?.detector, origin);
      this.streamAtLastFrame = origin;
    }
    return this.detector;
  }

  /** The detector is still listening: the caller's words are not a turn yet. */
  get pending(): boolean {
    return !this.decision;
  }

  /** Whether a user turn whose speech ended at `speechEndAt` (clock ms) belongs to the detection (the "ألو" it decided on). */
  swallows(speechEndAt: number | undefined): boolean {
    return !this.decision || (speechEndAt !== undefined && speechEndAt <= this.decidedAt!);
  }

  /** A caller frame (stamped by its place in the stream, not by when it came). */
  push(frame: AudioFrame): void {
    if (this.decision || !this.started) return;
    this.lastFrameAt = this.host.clock.now();
    this.frames++;
    const det = this.detectorFrom(this.lastFrameAt);
    this.settle(det.push(frame));
    this.streamAtLastFrame = det.position!;
  }

  /** The recognizer's events: its transcripts go to the detector (weighed at the audio heard so far). */
  onListen(e: ListenEvent): void {
    if (!this.decision && this.detector && e.type === 'Results' && e.transcript) this.settle(this.detector.transcript(e.transcript, e.is_final));
  }

  /**
   * Waits for the decision and acts on it; the greeting is said here instead of at the start.
   * Resolves with what it did (undefined when the call ended first).
   */
  async run(): Promise<AmdReport['action'] | undefined> {
    const d = await this.decided;
    if (this.host.ending()) return undefined;
    const { agent, host } = this;
    const mode = agent.answeringMachine?.onMachine ?? 'hangup';
    const machine = d.class === 'machine-voicemail' || d.class === 'machine-unavailable';
    const action: AmdReport['action'] = !machine ? 'greeted' : d.class === 'machine-voicemail' && mode === 'voicemail' ? 'voicemail' : 'hangup';
    this.report = {
      class: d.class,
      decisionMs: d.decisionMs,
      reason: d.reason,
      action,
      ...(d.beepEndAt !== undefined ? { beepEndAt: Math.round(d.beepEndAt - (d.at - d.decisionMs)) / 1000 } : {}),
      retry: d.class === 'machine-unavailable',
      signals: d.signals,
    };
    host.emit({ type: 'amd', decision: d, action });
    if (action === 'greeted') {
      if (agent.greeting) host.say(agent.greeting, true);
    } else if (action === 'voicemail') {
      if (d.messageAt === undefined) host.notice('voicemail: the greeting was still going at the time limit; the message is left anyway');
      host.say(agent.voicemail!);
      // Asked while the message is being said: the hang-up waits for it to be heard.
      await host.control.hangup('agent hung up: voicemail left');
    } else await host.control.hangup(`agent hung up: ${d.class}`);
    return action;
  }

  close(): void {
    this.timer.abort();
  }

  private settle(d: AmdDecision | undefined): void {
    if (!d || this.decision) return;
    this.decision = d;
    this.decidedAt = this.host.clock.now();
    this.timer.abort();
    this.resolve(d);
  }

  /**
   * A line that stops sending audio still gets a decision, at the detector's deadline. While
   * frames still come, the detector decides on their stream times alone: a frame late on the wire
   * is not silence, and a person's "ألو" still in flight must not turn into `uncertain`. The timer
   * only wakes to see whether frames stopped; a gap counts as silence only once it has lasted
   * all the time left to the deadline, and it counts from the last frame.
   */
  private arm(): void {
    const det = this.detector;
    const last = this.streamAtLastFrame;
    const due = det?.deadline ?? this.startedAt + this.o.initialSilenceMs;
    this.wake(Math.max(LINE_QUIET_MS, due - (det?.position ?? last)), () => {
      const quiet = this.host.clock.now() - (this.lastFrameAt ?? this.startedAt);
      if (quiet < Math.max(LINE_QUIET_MS, due - last)) return this.arm();
      const seen = this.frames;
      this.wake(LINE_QUIET_MS, () => {
        if (this.frames !== seen) return this.arm();
        const silent = this.host.clock.now() - (this.lastFrameAt ?? this.startedAt);
        this.settle(this.detectorFrom(this.startedAt).tick(this.streamAtLastFrame + silent));
        if (!this.decision) this.arm();
      });
    });
  }

  private wake(ms: number, then: () => void): void {
    this.host.clock.sleep(ms, this.timer.signal).then(() => !this.decision && then(), () => {});
  }
}

/**
 * Runs each request of a session's reply lane as one reply: numbers it, tells it
 * (`reply_started`), lets a task its tool starts take the caller's turn it answers, records it
 * once over (reply-record.ts) and says what comes after it (a failure's out-of-service line, the
 * call actions its tools asked for, a handoff).
 */
import type { ReplyOutcome } from '../pipeline/reply.ts';
import type { Clock } from '../transport/clock.ts';
import type { SessionState } from './events.ts';
import { classifyFailure, type Failure, type FailureSource } from './failure.ts';
import { scriptedKind, type LaneRequest } from './reply-lane.ts';
import { onReplyEvent, recordReply, type ReplyRecordHost } from './reply-record.ts';
import type { AgentStages } from './stages.ts';
import { TurnInFlight, type AnsweredTurn } from './task-runner.ts';

/** A request of the lane, with what the session reports about it. */
export interface ReplyRequest extends LaneRequest {
  /** The task whose line this is. */
  task?: string;
  /** The caller's turn a task's line answers (its latency is measured as a model reply's). */
  answers?: AnsweredTurn;
}

/** What the reply runner needs of its session. */
export interface ReplyRunnerHost {
  clock: Clock;
  /** The agent speaking now and its stages. */
  stages(): AgentStages;
  /** The session as the reply handlers see it. */
  record: ReplyRecordHost;
  setState(state: SessionState): void;
  fail(source: FailureSource, f: Failure, fatal: boolean, cause?: unknown): void;
  /** A reply is over: the turn detector may hear the caller's next turn. */
  replied(): void;
  /** Why the call is going out of service or closing with the agent's line, once it is. */
  closing(): string | undefined;
  /** The voice failed for good: the out-of-service line, then the end. */
  outOfService(reason: string): Promise<void>;
  /** After a reply that did not fail: the call actions its tools asked for, the end of a transfer, a handoff. */
  after(r: ReplyOutcome, req: ReplyRequest): Promise<void>;
}

export class ReplyRunner {
  /** Replies begun so far (`reply_started`'s numbers). */
  private replies = 0;
  /** The caller's turn the model reply in flight answers, until a task of its tool takes it. */
  private turnInFlight: TurnInFlight | undefined;
  /**
   * The caller's turn that ended a task with no line of the task's (`TaskRun.unanswered`): the
   * next reply that answers no turn of its own (a hook's `say`, a `generateReply`, the model's
   * reply its tool's task interrupted) answers it, and its metrics are that turn's.
   */
  private unanswered: AnsweredTurn | undefined;
  /** Clock time `unanswered` was left (its task's end): model times before it are not that turn's. */
  private unansweredAt = 0;
  /** What the agent said last (its turn policy hears a yes or a no to a yes/no question as a whole turn). */
  lastAgentLine: string | undefined;

  constructor(private readonly host: ReplyRunnerHost) {}

  /** The caller's turn the reply in flight answers, for a task its tool starts now (once; see `TurnInFlight`). */
  takeTurnInFlight(): ReturnType<TurnInFlight['take']> {
    return this.turnInFlight?.take(() => this.host.clock.now());
  }

  /** A task ended on the caller's turn `answers` with nothing said: the next reply answers it. */
  leftUnanswered(answers: AnsweredTurn): void {
    this.unanswered = answers;
    this.unansweredAt = this.host.clock.now();
  }

  /** The caller spoke again: the turn a task ended on unanswered stays so (the next line answers the new turn, if anything). */
  spokeAgain(): void {
    this.unanswered = undefined;
  }

  /** The turn left unanswered, once (a request answering a turn of its own drops it: the caller has spoken since). */
  private takeUnanswered(req: ReplyRequest): AnsweredTurn | undefined {
    const left = this.unanswered;
    this.unanswered = undefined;
    return req.turn || req.answers ? undefined : left;
  }

  /** A number for a reply told outside the lane (the out-of-service line), after those begun so far. */
  nextId(): number {
    return ++this.replies;
  }

  /** Runs one request of the lane to its end. */
  async run(req: ReplyRequest, signal: AbortSignal): Promise<void> {
    const host = this.host;
    const { agent, replies, interruption } = host.stages();
    interruption.reset();
    if (req.turn) host.setState('thinking');
    // Numbered, and its events told as its own: a task's line may run inside a reply whose tool waits.
    const id = this.nextId();
    const { answers: own, ...ask } = req;
    // A line or reply of code answers the caller's turn a task ended on, when none came between.
    const answers = own ?? this.takeUnanswered(req);
    // A task's line answering the caller's turn counts as that turn's reply (metrics, traces), but
    // goes to the reply stage as a fixed line: the task already put the turn in the history.
    const answered = answers ? { ...ask, turn: answers.turn, speechEndAt: answers.speechEndAt, turnNumber: answers.turnNumber, keyed: answers.keyed } : ask;
    const startedAt = host.clock.now();
    const scripted = scriptedKind(req);
    host.record.emit({ type: 'reply_started', reply: id, ...(answered.turn && answered.turnNumber ? { turn: answered.turnNumber } : {}), ...(scripted ? { scripted } : {}) });
    // A model reply to the caller's turn: a task its tool runs may take the turn (below).
    const inFlight = req.turn && !req.task ? new TurnInFlight({ turn: req.turn, speechEndAt: req.speechEndAt, keyed: req.keyed, turnNumber: req.turnNumber ?? 0 }) : undefined;
    if (inFlight) this.turnInFlight = inFlight;
    const events = (e: Parameters<typeof onReplyEvent>[1]) => {
      // Words of the reply went out first ("let me check"): they answered the turn, not the task.
      if (inFlight && e.type === 'agent_chunk') inFlight.spoke = true;
      onReplyEvent(host.record, e, id);
    };
    const r = await replies.run({ ...ask, events }, signal).finally(() => {
      if (this.turnInFlight === inFlight) this.turnInFlight = undefined;
    });
    if (r.text) this.lastAgentLine = r.text;
    host.replied();
    const fatal = r.fatal ? classifyFailure(r.fatal.error, 'tts') : undefined;
    // Cut by the service refusing (its own synthesis, or recognition, failing for good) before the
    // caller heard a word: no agent turn of nothing in the transcript, a typed event saying why.
    const cutBy = r.heard ? undefined : fatal ? `out of service: ${fatal.message}` : host.closing();
    // The turn was answered by the task's question: what follows the task answers the turn that
    // ended the task, if the task said nothing to it; else it is a line, timed from the task's end.
    // A model reply answering no turn (a `generateReply`, as after a handoff) whose tool ran the
    // task answers that turn the same way: nothing was said to it before this reply went on.
    const endedAt = this.unansweredAt;
    const ranTask = !answered.turn && !req.task && this.unanswered !== undefined && endedAt >= startedAt;
    const ending = inFlight?.taken || ranTask ? this.takeUnanswered({}) : undefined;
    const from = inFlight ? (inFlight.resumedAt ?? startedAt) : endedAt;
    if (cutBy) host.record.emit({ type: 'reply_dropped', reply: id, reason: cutBy });
    else if (ending) recordReply(host.record, agent, { ...ask, turn: ending.turn, speechEndAt: ending.speechEndAt, turnNumber: ending.turnNumber, keyed: ending.keyed }, resumed(r, from), id, startedAt);
    else if (inFlight?.taken) recordReply(host.record, agent, { ...answered, turn: undefined }, r, id, inFlight.resumedAt ?? startedAt);
    else recordReply(host.record, agent, answered, r, id, startedAt);
    if (!host.stages().replies.current) host.setState('listening');
    if (fatal) {
      host.fail('tts', fatal, true, r.fatal!.error);
      void host.outOfService(fatal.message);
      return;
    }
    await host.after(r, req);
  }
}

/** A reply its tool's task interrupted, as heard after the task: the model's milestones before it (the tool call) are not this turn's. */
function resumed(r: ReplyOutcome, at: number): ReplyOutcome {
  const after = (t: number) => (t >= at ? t : 0);
  return { ...r, times: { ...r.times, firstToken: after(r.times.firstToken), firstChunk: after(r.times.firstChunk) } };
}

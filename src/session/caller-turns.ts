/**
 * The caller's turns in a session, spoken or keyed: each is reported, given to the agent's
 * `onUserTurn` hook and told as a `user_turn` event, then taken by the task running or answered
 * by the model. A spoken turn is stamped on the call's clock from the recognizer's timeline, and
 * the "ألو" answering-machine detection decided on is no turn.
 */
import type { UserTurn } from '../pipeline/turns.ts';
import type { TaskInput } from '../tasks/types.ts';
import type { Agent } from './agent.ts';
import type { AnswerDetection } from './answer-detection.ts';
import type { SessionEvent } from './events.ts';
import { guarded } from './guarded.ts';
import type { ChatHistory } from './history.ts';
import type { LaneRequest } from './reply-lane.ts';
import type { ReportBuilder } from './report.ts';
import type { Recognizer } from './stage-types.ts';
import type { AnsweredTurn, TaskRun } from './task-runner.ts';

/** What the caller's turns need of their session. */
export interface CallerTurnsHost {
  report: ReportBuilder;
  history: ChatHistory;
  stt: Recognizer;
  amd: AnswerDetection | undefined;
  /** The agent speaking now. */
  agent(): Agent;
  task(): TaskRun<unknown> | undefined;
  isEnding(): boolean;
  emit(e: SessionEvent): void;
  threw(hook: string, err: unknown): void;
  /** Has the model answer a turn. */
  answer(req: LaneRequest): void;
  /** A new caller turn: a turn that ended a task unanswered is no longer the one the next line answers. */
  spokeAgain?(): void;
}

/** Where the caller's turns go: the task running, else the model. */
export class CallerTurns {
  /** The number of the caller's last turn (`user_turn`'s `turn`); 0 before the first. */
  last = 0;

  constructor(private readonly host: CallerTurnsHost) {}

  /**
   * A caller turn, reported and given to the hook; a task running takes it (returns true),
   * else it is for the model.
   */
  said(text: string, source: 'speech' | 'dtmf', input: TaskInput, span: { from?: number; to?: number } = {}, spoken?: Omit<AnsweredTurn, 'turnNumber'>): boolean {
    const h = this.host;
    h.spokeAgain?.();
    const task = h.task();
    const agent = h.agent();
    h.report.user(text, { agent: agent.name, task: task?.task.name, startedAt: h.report.since(span.from), speechEndedAt: h.report.since(span.to) });
    guarded('onUserTurn', () => h.agent().hooks?.onUserTurn?.(text), h.threw);
    h.emit({ type: 'user_turn', text, source, turn: ++this.last });
    if (!task) return false;
    h.history.addUser(text);
    task.input(input, spoken && { ...spoken, turnNumber: this.last });
    return true;
  }

  /** A turn the turn detector decided on. */
  spoken(turn: UserTurn): void {
    const h = this.host;
    if (h.isEnding()) return;
    // Stamped now: the recognizer's timeline is mapped while its checkpoints are fresh.
    const speechEndAt = turn.lastWordEnd !== undefined ? h.stt.timeOf(turn.lastWordEnd) : undefined;
    if (h.amd?.swallows(speechEndAt)) return; // the "ألو" the detection decided on is no turn
    const speechStartAt = turn.firstWordStart !== undefined ? h.stt.timeOf(turn.firstWordStart) : undefined;
    this.said(turn.text, 'speech', { kind: 'speech', text: turn.text }, { from: speechStartAt, to: speechEndAt }, { turn, speechEndAt }) || h.answer({ turn, speechEndAt, turnNumber: this.last });
  }
}

import type { UserTurn } from '../pipeline/turns.ts';
import type { CollectTask, TaskInput, TaskResult, TaskStep } from '../tasks/types.ts';
import { Alarm, type Clock } from '../transport/clock.ts';

/** The defaults of running a task, in one place. */
export const TASK_RUN_DEFAULTS = {
  /** Call-clock ms of caller silence, after a task's line has been spoken, before `task.timeout()`. */
  silenceMs: 8000,
} as const;

/** The caller's spoken turn a task's line answers: that line's latency is the turn's, as a model reply's is. */
export interface AnsweredTurn {
  turn: UserTurn;
  /** Clock time the caller stopped speaking (for keys: pressed the last one). */
  speechEndAt: number | undefined;
  /** The turn is keys the caller pressed. */
  keyed?: boolean;
  /** The turn's number (`user_turn`'s `turn`). */
  turnNumber: number;
}

/**
 * The caller's turn a model reply answers. A task its tool starts takes it (once), unless the
 * reply said something first: the task's question is then what answered the turn, and the reply
 * after the task is a line, timed from `resumedAt`.
 */
export class TurnInFlight {
  taken = false;
  /** Words of the reply went out before any task: the turn's figures are the reply's own. */
  spoke = false;
  /** Clock time the task that took the turn was over. */
  resumedAt: number | undefined;
  constructor(readonly answers: AnsweredTurn) {}

  /** The turn for a task starting now, and what to call when it is over; undefined when it is not to be taken. */
  take(now: () => number): { answers: AnsweredTurn; resumed(): void } | undefined {
    if (this.taken || this.spoke) return undefined;
    this.taken = true;
    return { answers: this.answers, resumed: () => (this.resumedAt = now()) };
  }
}

/** What a running task needs from the session. */
export interface TaskHost {
  clock: Clock;
  /** Speaks one of the task's lines (open to barge-in), answering `answers` when given; resolves once spoken or cut off. */
  speak(text: string, signal: AbortSignal, answers?: AnsweredTurn): Promise<void>;
}

/**
 * One task running in a call: feeds it the caller's inputs one at a time, speaks what it
 * answers, calls `timeout()` after `silenceMs` of silence, and settles `result` when it is done.
 * A task that throws rejects `result` (the session reports it).
 */
export class TaskRun<T> {
  readonly result: Promise<TaskResult<T>>;
  private settle!: (r: TaskResult<T>) => void;
  private reject!: (err: unknown) => void;
  private chain: Promise<void> = Promise.resolve();
  private line: AbortController | undefined;
  private readonly alarm: Alarm;
  /** The task waits for the caller (its line spoken): silence counts. */
  private waiting = false;
  /**
   * The caller's turn that ended the task without a line of the task's answering it (its last
   * step said nothing): what the session says next answers it (its metrics are that turn's).
   */
  unanswered: AnsweredTurn | undefined;
  private over = false;

  constructor(
    readonly task: CollectTask<T>,
    private readonly host: TaskHost,
    private readonly silenceMs: number = TASK_RUN_DEFAULTS.silenceMs,
  ) {
    this.result = new Promise((resolve, reject) => {
      this.settle = resolve;
      this.reject = reject;
    });
    this.alarm = new Alarm(host.clock, () => {
      this.waiting = false;
      this.step(() => (this.task.timeout ? this.task.timeout() : { done: { ok: false, reason: 'no_input' } }));
    });
  }

  /** Speaks the task's first prompt (answering `answers` when a tool's task asks it in reply to that turn). */
  begin(answers?: AnsweredTurn): void {
    this.step(() => this.task.start(), answers);
  }

  /** The caller answered (a final turn or gathered keys; `answers`: the spoken turn): a line still playing stops. */
  input(input: TaskInput, answers?: AnsweredTurn): void {
    this.cancelLine();
    this.quiet();
    this.step(() => this.task.next(input), answers);
  }

  /** The caller is speaking: the silence count starts again. */
  heard(): void {
    if (this.waiting) this.alarm.set(this.host.clock.now() + this.silenceMs);
  }

  /** A confirmed barge-in over the task's line. */
  cancelLine(): void {
    this.line?.abort();
  }

  get speaking(): boolean {
    return this.line !== undefined;
  }

  /** The call ended first. */
  abort(): void {
    this.cancelLine();
    this.finish({ ok: false, reason: 'no_input' });
  }

  private quiet(): void {
    this.waiting = false;
    this.alarm.cancel();
  }

  /** One step of the task, after the steps before it: its line spoken, then done or waiting. */
  private step(next: () => TaskStep<T>, answers?: AnsweredTurn): void {
    this.chain = this.chain.then(async () => {
      if (this.over) return;
      let s: TaskStep<T>;
      try {
        s = next();
      } catch (err) {
        this.over = true;
        this.quiet();
        return this.reject(err);
      }
      if (s.say) {
        const ctrl = new AbortController();
        this.line = ctrl;
        await this.host.speak(s.say, ctrl.signal, answers).catch(() => {});
        if (this.line === ctrl) this.line = undefined;
      }
      if (s.done) {
        if (!s.say && answers) this.unanswered = answers;
        return this.finish(s.done);
      }
      if (this.over) return;
      this.waiting = true;
      this.alarm.set(this.host.clock.now() + this.silenceMs);
    });
  }

  private finish(r: TaskResult<T>): void {
    if (this.over) return;
    this.over = true;
    this.quiet();
    this.settle(r);
  }
}

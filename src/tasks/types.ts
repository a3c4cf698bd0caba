/**
 * A task collects one value from the caller (digits, a date, a yes/no, an amount, a name) as a
 * pure state machine: the session feeds it what the caller said or keyed and speaks what it
 * answers. No I/O here, so every task is tested on text alone; the session owns the audio.
 */
import type { TurnExpectation } from '../pipeline/turn-policy.ts';

/** What the caller gave the task: a final transcript, or keys pressed (gathered, in order). */
export type TaskInput = { kind: 'speech'; text: string } | { kind: 'dtmf'; digits: string };

/** Why a task gave up. */
export type TaskFailureReason = 'max_attempts' | 'caller_declined' | 'no_input';

/** How a task ended: the value the caller confirmed, or why it gave up. */
export type TaskResult<T> =
  | { ok: true; value: T }
  | { ok: false; reason: TaskFailureReason; /** the last value heard, unconfirmed */ lastHeard?: string };

/** One step: speak `say` (if any), then either wait for the next input or end with `done`. */
export interface TaskStep<T> {
  say?: string;
  done?: TaskResult<T>;
}

/** A task that collects one value of type `T` from the caller; run it with `session.runTask(task)`. */
export interface CollectTask<T> {
  /** Shown in events and the call report, e.g. `digits:phone`. */
  readonly name: string;
  /** The first prompt, spoken when the task starts. */
  start(): TaskStep<T>;
  /** The caller's next input; returns what to say and whether the task is over. */
  next(input: TaskInput): TaskStep<T>;
  /** The caller said nothing for the session's silence timeout (re-prompt or give up). */
  timeout?(): TaskStep<T>;
  /** What the task waits for now (a number of known length, a yes or a no): the turn policy holds or ends turns by it. */
  expecting?(): TurnExpectation | undefined;
}

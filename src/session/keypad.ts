/**
 * The caller's keys in a session: each key is told (a `dtmf` event, the agent's `onDtmf` hook),
 * then gathered into an entry (`DtmfCollector`: terminator, clear key, pause) for the task
 * running, or for the model as a user turn when the agent lets keys reach it.
 */
import type { Subscription } from 'rxjs';
import { DtmfCollector, type DtmfOptions } from '../pipeline/dtmf.ts';
import type { Clock } from '../transport/clock.ts';
import type { CallControl } from '../transport/types.ts';
import type { TaskInput } from '../tasks/types.ts';
import type { Agent } from './agent.ts';
import type { SessionEvent } from './events.ts';
import { guarded } from './guarded.ts';
import type { LaneRequest } from './reply-lane.ts';
import type { AnsweredTurn, TaskRun } from './task-runner.ts';

/** What the keypad needs of its session. */
export interface KeypadHost {
  clock: Clock;
  /** The agent speaking now (its `onDtmf` hook). */
  agent(): Agent;
  control(): CallControl;
  /** The task running, which reads keys whether or not the model would. */
  task(): TaskRun<unknown> | undefined;
  isEnding(): boolean;
  emit(e: SessionEvent): void;
  threw(hook: string, err: unknown): void;
  /** A caller turn: true when the task running took it (its line answering `answered`), false when it is for the model. */
  callerSaid(text: string, input: TaskInput, answered: Omit<AnsweredTurn, 'turnNumber'>): boolean;
  /** Has the model answer a turn. */
  answer(req: LaneRequest): void;
}

/** A session's keypad: keys in (`key`), entries out to the task or the model. */
export class Keypad {
  private readonly collector: DtmfCollector;
  /** When the last gathered key was pressed: a keyed turn's "end of speech". */
  private lastKeyAt = 0;

  constructor(options: DtmfOptions | undefined, private readonly host: KeypadHost) {
    this.collector = new DtmfCollector(host.clock, options);
  }

  /** Starts handing entries on; the subscription ends with the call's. */
  start(): Subscription {
    return this.collector.entries$.subscribe((digits) => this.entered(digits));
  }

  /** One key the caller pressed. */
  key(digit: string): void {
    const h = this.host;
    h.emit({ type: 'dtmf', digit });
    const handled = guarded('onDtmf', () => h.agent().hooks?.onDtmf?.(digit, h.control()), h.threw) === true;
    // A task reads keys whether or not the model would.
    if (!handled && (this.collector.o.toModel || h.task())) {
      this.lastKeyAt = h.clock.now();
      this.collector.push(digit);
    }
  }

  /** Keys the caller entered reach the task running, else the model as a user turn. */
  private entered(digits: string): void {
    const h = this.host;
    if (h.isEnding()) return;
    const text = this.collector.o.format(digits);
    // Its "final" is the last key; decided now (at once after a terminator, after the pause else).
    const turn = { text, lastWordEnd: undefined, finalAt: this.lastKeyAt, decidedAt: h.clock.now() };
    const answered = { turn, speechEndAt: this.lastKeyAt, keyed: true };
    h.callerSaid(text, { kind: 'dtmf', digits }, answered) || h.answer(answered);
  }

  /** The call ended: a pending entry's timer stops. */
  close(): void {
    this.collector.close();
  }
}

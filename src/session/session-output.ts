/**
 * What a session tells the world: its typed events (at debug level, a log line for each worth
 * one), a failure as an `error` event with a clean message (the raw cause goes to the log only),
 * the agent's code that threw, notices, and the session's state.
 */
import { Subject, type Observable } from '../rx.ts';
import { debugRecord } from './debug-log.ts';
import { redactDigitRuns } from './digit-redaction.ts';
import type { LateToolEvent, SessionEvent, SessionState } from './events.ts';
import { ToolTimeoutError } from '../llm/tool-deadline.ts';
import { failureMessage, taskFailure, toolFailure, toolTimeout, type Failure, type FailureSource } from './failure.ts';
import type { Logger } from './logger.ts';
import type { ReportBuilder } from './report.ts';

export class SessionOutput {
  private readonly subject = new Subject<SessionEvent>();
  /** Everything the session reports, typed; completes when the call has ended. */
  readonly events$: Observable<SessionEvent> = this.subject.asObservable();
  private readonly late = new Subject<LateToolEvent>();
  /**
   * What the session tells after its call ended: a given-up tool's late answer (`tool_late` with
   * `afterEnd: true`), which `events$`, complete by then, can no longer carry. It does not
   * complete: such a tool may answer any time, or never; it goes with the session.
   */
  readonly afterEnd$: Observable<LateToolEvent> = this.late.asObservable();
  /** The call has ended: `events$` is complete. */
  private over = false;
  private state: SessionState = 'starting';
  /**
   * What a task threw, reported as the task's: the hook or tool that awaited `runTask` throws the
   * same error on, and one failure is one event (and one count in `/metrics`), not two.
   */
  private readonly taskErrors = new WeakSet<object>();

  /** `agentName`: the agent speaking now, for the log lines (none before the session has one). */
  constructor(
    private readonly log: Logger,
    private readonly report: ReportBuilder,
    private readonly agentName: () => string | undefined,
    /** Debug lines show the keys pressed and what tasks collected (`SessionOptions.logKeys`). */
    private readonly logKeys = false,
  ) {}

  readonly emit = (e: SessionEvent): void => {
    if (this.over) return this.afterEnd(e);
    this.debug(e);
    this.subject.next(e);
  };

  /** The event's debug line, if it has one and the level is on. */
  private debug(e: SessionEvent): void {
    if (!this.log.isLevelEnabled('debug')) return;
    const line = debugRecord(e, this.logKeys);
    if (line) this.log.debug({ agent: this.agentName(), ...line.fields }, line.message);
  }

  /**
   * An event told once the call has ended: a given-up tool's late answer still counts (its log
   * line, `afterEnd$`: the server's metrics and events); anything else is over with the call.
   */
  private afterEnd(e: SessionEvent): void {
    if (e.type !== 'tool_late') return;
    const late: LateToolEvent = { ...e, afterEnd: true };
    this.debug(late);
    this.late.next(late);
  }

  /** A typed `error` event with a clean message; the raw cause goes to the log only. */
  readonly fail = (source: FailureSource, f: Failure, fatal: boolean, cause?: unknown): void => {
    const named = { ...(f.tool ? { tool: f.tool } : {}), ...(f.task ? { task: f.task } : {}) };
    const said = cause instanceof Error ? cause.message : cause;
    // The agent's own code handles what callers give (a card, an account): its messages lose their long numbers.
    const err = source === 'agent' && typeof said === 'string' && !this.logKeys ? redactDigitRuns(said) : said;
    this.log.warn({ agent: this.agentName(), source, kind: f.kind, ...named, err }, f.message);
    this.emit({ type: 'error', source, kind: f.kind, message: f.message, fatal, ...named });
  };

  /** The agent's hook threw: an event and a log line, and the call goes on. */
  readonly threw = (hook: string, err: unknown): void => {
    if (this.fromTask(err)) return;
    this.fail('agent', { kind: 'hook', message: failureMessage('agent', 'hook', hook) }, false, err);
  };

  /** The code of the agent's tool threw: an event of kind `tool` naming it (`timeout` when it worked past its deadline), and the call goes on. */
  readonly toolThrew = (tool: string, err: unknown): void => {
    if (this.fromTask(err)) return;
    this.fail('agent', err instanceof ToolTimeoutError ? toolTimeout(tool) : toolFailure(tool), false, err);
  };

  /** The code of the agent's task threw (`err`: what it threw as an Error, `taskError`): an event of kind `task` naming it, and the call goes on. */
  readonly taskThrew = (task: string, err: Error): void => {
    this.taskErrors.add(err);
    this.fail('agent', taskFailure(task), false, err);
  };

  /** `err` is a task's, reported already (passed on by the hook or tool that ran the task). */
  private fromTask(err: unknown): boolean {
    if (typeof err !== 'object' || err === null || !this.taskErrors.has(err)) return false;
    this.log.debug({ err: (err as Error).message }, "a task's error passed on by the code that ran it (reported as the task's)");
    return true;
  }

  readonly setState = (state: SessionState): void => {
    if (this.state === state || this.state === 'ended') return;
    this.state = state;
    this.emit({ type: 'state', state });
  };

  /** A notice for people: in the report, the log and an event. `logged`: false when a failure's warn line says it already. */
  readonly notice = (message: string, logged = true): void => {
    this.report.notices.push(message);
    if (logged) this.log.info({ agent: this.agentName() }, message);
    this.emit({ type: 'notice', message });
  };

  /** The call is over: the `ended` state and event, then the events complete. */
  ended(reason: string): void {
    this.setState('ended');
    this.emit({ type: 'ended', reason });
    this.over = true;
    this.subject.complete();
  }
}

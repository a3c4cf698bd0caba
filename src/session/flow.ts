import { REPLY_DEFAULTS } from '../pipeline/reply.ts';
import type { TaskResult, CollectTask } from '../tasks/types.ts';
import type { Clock } from '../transport/clock.ts';
import type { CallControl } from '../transport/types.ts';
import type { Agent } from './agent.ts';
import { controlWith, type GenerateReplyOptions, type SessionControl } from './control.ts';
import { DroppablePromise } from './droppable.ts';
import type { ReportTask, SessionEvent } from './events.ts';
import { taskError } from './failure.ts';
import { guarded, guardedAsync, type HookThrew } from './guarded.ts';
import { HANDOFF_DEFAULTS, Handoff, carriedHistory, handoff, summarize, type HandoffOptions } from './handoff.ts';
import type { ChatHistory } from './history.ts';
import type { Logger } from './logger.ts';
import type { ReplyLane } from './reply-lane.ts';
import type { ReportBuilder } from './report.ts';
import { reachableAgents } from './check-agent.ts';
import { buildStages, type AgentStages, type StageContext } from './stages.ts';
import { TASK_RUN_DEFAULTS, TaskRun, type AnsweredTurn } from './task-runner.ts';

/** What the flow needs from the session. */
export interface FlowHost {
  lane: ReplyLane;
  clock: Clock;
  history: ChatHistory;
  report: ReportBuilder;
  log: Logger;
  stageContext: StageContext;
  control: CallControl;
  /** The session as the agent's hooks get it. */
  session: SessionControl;
  /** The call is up (greeting asked for): tasks may start speaking. */
  live: Promise<void>;
  isEnding(): boolean;
  emit(e: SessionEvent): void;
  threw: HookThrew;
  /** The code of task `task` threw (its `start`, `next` or `timeout`; `err` as an Error): an event of kind `task`. */
  taskThrew(task: string, err: Error): void;
  /** Speaks a task's line as a reply of the session (report, events, barge-in). */
  speakTaskLine(text: string, task: string, signal: AbortSignal, answers?: AnsweredTurn): Promise<void>;
  /** Teaches an offline recognizer an unlisted handoff agent's phrases (`SessionOptions.teach`). */
  teach?: (agent: Agent) => Promise<void>;
  /**
   * The caller's turn the reply in flight answers, handed to a task its tool starts (once): the
   * task's first line is then what answers that turn. `resumed` is called when the task is over.
   */
  takeTurnInFlight(): { answers: AnsweredTurn; resumed(): void } | undefined;
  /** The caller's turn that ended a task with no line of the task's: the next reply answers it (ReplyRunner). */
  leftUnanswered(answers: AnsweredTurn): void;
}

/**
 * The session as tools see it (`ctx.session`): a handoff or a task waits for the tool's reply, not
 * for idle. A line, a model reply or a handoff asked by a tool comes after the tool's own reply,
 * so its promise resolves once it is queued: awaited inside the tool, "once spoken" waited for
 * the tool itself, and the call hung in silence until the caller hung up.
 */
export function toolControl(session: SessionControl, flow: () => Flow): SessionControl {
  const queued = (request: Promise<void>) => (request.catch(() => {}), Promise.resolve());
  return controlWith(session, {
    say: (text) => (sayRefusal(text) ? session.say(text) : queued(session.say(text))),
    generateReply: (o) => queued(session.generateReply(o)),
    handoff: (next, o) => queued(flow().handoff(true, next, o)),
    runTask: (task) => flow().runTask(true, task),
  });
}

/** Why `say(text)` is refused, if it is. */
function sayRefusal(text: unknown): string | undefined {
  return typeof text !== 'string' || !text.trim() ? 'say: the text to speak is empty' : undefined;
}

/** Why `runTask(task)` is refused, if it is: not a task, or another one still running (or about to start: `running` is its name). */
function taskRefusal(task: CollectTask<unknown> | undefined, running: string | undefined): Error | undefined {
  if (!task || typeof task.start !== 'function' || typeof task.next !== 'function') return new TypeError('runTask: not a task (it needs start() and next())');
  if (running !== undefined) return new Error(`runTask: task ${running} is still running`);
  return undefined;
}

/**
 * What the agent's code does with the conversation: lines said without the model, model replies
 * with one-off instructions, handoffs from one agent to the next, and tasks that take the
 * caller's turns for a while. The session owns the audio; this owns who speaks and what for.
 */
export class Flow {
  /** The agent speaking now and the stages built for it. */
  stages: AgentStages;
  /** The task taking the caller's turns, if any. */
  task: TaskRun<unknown> | undefined;
  /**
   * The task accepted and waiting to start (for the greeting, for idle): it holds the one task
   * place from the check on, so a second `runTask` in the same tick is refused, not run over it.
   */
  private starting: string | undefined;
  /** A handoff asked during a reply, done when it ends. */
  private pending: { next: Handoff; done: () => void } | undefined;
  /** The agents whose phrases an offline recognizer was taught for this call: the first and its `handoffs`, followed on. */
  private readonly listed: Set<Agent>;

  constructor(
    agent: Agent,
    private readonly host: FlowHost,
  ) {
    this.stages = buildStages(agent, host.stageContext);
    this.listed = new Set(reachableAgents(agent));
  }

  say(text: string): Promise<void> {
    const refused = sayRefusal(text);
    if (refused) return Promise.reject(new TypeError(refused));
    return new Promise((done) => this.host.lane.enqueue({ text, done }));
  }

  generateReply(opts: GenerateReplyOptions = {}): Promise<void> {
    return new Promise((done) => this.host.lane.enqueue({ instructions: opts.instructions, done }));
  }

  summarize(): Promise<string> {
    return summarize(this.host.history.turns(), this.summarizer());
  }

  /** The model that writes summaries: the agent's, unless it is the offline scripted one. */
  private summarizer() {
    return this.stages.rawLlm.name === 'scripted' ? undefined : this.stages.rawLlm;
  }

  /** Hands the call to `next`: from a tool, once its reply has been spoken; else once nothing is being said. */
  handoff(fromTool: boolean, next: Agent, opts: HandoffOptions = {}): Promise<void> {
    const h = next instanceof Handoff ? next : handoff(next, opts);
    return new Promise<void>((done) => {
      if (this.host.isEnding()) return done();
      if (fromTool && this.host.lane.busy) {
        this.pending?.done();
        this.pending = { next: h, done };
      } else void this.host.lane.idle().then(() => this.takeOver(h)).then(done, done);
    });
  }

  /** A reply (not a task's line) has ended: a handoff its tool asked for is done now. */
  async afterReply(): Promise<void> {
    const p = this.pending;
    if (!p) return;
    this.pending = undefined;
    await this.takeOver(p.next).finally(p.done);
  }

  /** The call is ending: whoever waits is let go. */
  end(): void {
    this.task?.abort();
    this.pending?.done();
    this.pending = undefined;
  }

  /** The next agent takes the call: its prompt, tools, voice and turn settings, and what it is told. */
  private async takeOver(h: Handoff): Promise<void> {
    const { host } = this;
    if (host.isEnding()) return;
    const from = this.stages;
    // Started now; the next agent's onEnter (the line the caller answers) waits for it.
    const taught = this.unlisted(from.agent, h.agent);
    guarded('onExit', () => from.agent.hooks?.onExit?.(host.session, host.control), host.threw);
    host.history.replace(h.agent.instructions, await carriedHistory(host.history.turns(), h.carry, this.summarizer()));
    this.stages = buildStages(h.agent, host.stageContext, from);
    if (this.stages.speaker !== from.speaker) {
      // A new voice: its socket opens before the next reply (else HTTP voices it); the old one closes.
      await this.stages.speaker.start().catch((err: unknown) => host.log.warn({ err: (err as Error)?.message }, "the next agent's voice socket did not open"));
      void from.speaker.close().catch(() => {});
    }
    host.report.handoff({ from: from.agent.name, to: h.agent.name, carry: h.carry });
    host.emit({ type: 'agent_handoff', from: from.agent.name, to: h.agent.name, carry: h.carry });
    // Not awaited: a handoff asked by a tool is taken over inside the reply that ran the tool, and
    // an onEnter that awaits `say` or `runTask` waits for that reply to end (a deadlock before).
    const enter = () => void this.enter(h.agent);
    if (!taught) return enter();
    // Nor is the teaching: awaited here it held the reply, so the caller heard nothing for as long
    // as the phrases took to voice. The call goes on; onEnter (what the caller answers) waits for them.
    const stages = this.stages;
    // Not when the call ended meanwhile, or went on to another agent.
    void this.whileTeaching(taught, h.agent).then(() => void (host.isEnding() || this.stages !== stages || enter()));
  }

  /**
   * The handed-to agent's onEnter. One that throws before it had anything said (a line, a reply, a
   * task's question) leaves the caller, just told they are being put through, in silence: the
   * agent's recovery line is said then, as after a task that threw in a hook.
   */
  private async enter(agent: Agent): Promise<void> {
    const { host } = this;
    const before = host.lane.enqueued;
    await guardedAsync('onEnter', () => agent.hooks?.onEnter?.(host.session, host.control), (hook, err) => {
      host.threw(hook, err);
      if (host.lane.enqueued === before && !host.isEnding() && this.stages.agent === agent) void this.say(agent.modelErrorLine ?? REPLY_DEFAULTS.modelErrorLine).catch(() => {});
    });
  }

  /**
   * Waits for an unlisted agent's phrases to be taught; the agent says a short line (its
   * `fillerLine`, else `HANDOFF_DEFAULTS.teachingLine`) if that takes longer than
   * `HANDOFF_DEFAULTS.teachingLineAfterMs`, so the caller is not left in silence.
   */
  private async whileTeaching(taught: Promise<void>, next: Agent): Promise<void> {
    const { host } = this;
    const wait = new AbortController();
    const slow = host.clock.sleep(HANDOFF_DEFAULTS.teachingLineAfterMs, wait.signal).then(
      () => true,
      () => false,
    );
    if (await Promise.race([taught.then(() => false), slow])) {
      if (!host.isEnding()) void this.say(next.fillerLine ?? HANDOFF_DEFAULTS.teachingLine).catch(() => {});
    }
    wait.abort();
    await taught;
  }

  /**
   * A handoff to an agent no `handoffs` of the call's agents lists: offline, the recognizer was not
   * taught its phrases, so the caller was not heard after it. Said as an event and a warning naming
   * `Agent.handoffs`, and taught now where the session can (`teach`), each agent once a call.
   */
  private unlisted(from: Agent, next: Agent): Promise<void> | undefined {
    const { host } = this;
    // A copy filled with one call's variables (agentWithVariables) is the agent it was made from.
    if ([...this.listed].some((a) => a === next || (a.name === next.name && a.intents === next.intents))) return undefined;
    for (const a of reachableAgents(next)) this.listed.add(a);
    const teaching = !!host.teach;
    host.emit({ type: 'handoff_unlisted', from: from.name, to: next.name, teaching });
    host.log.warn(
      { from: from.name, to: next.name },
      `agent "${from.name}" handed the call to "${next.name}", which no Agent.handoffs of this call lists: it was not checked before the call and, offline, the recognizer was not taught its phrases${teaching ? ' (teaching them now)' : " (the caller may not be heard)"}; add it to ${from.name}'s handoffs`,
    );
    return host.teach?.(next).catch((err: unknown) => host.log.warn({ to: next.name, err: (err as Error)?.message }, "teaching the next agent's phrases failed; the call goes on without them"));
  }

  /**
   * Runs `task` to its result; from outside a reply, after the greeting and once nothing is being
   * said. The promise is safe to drop (`void session.runTask(task)` in a hook), and so is any
   * promise chained off it (`.then(f)` with no catch): its failure is reported here, so one
   * nobody handles must not crash a process with no `unhandledRejection` handler of its own;
   * whoever awaits or catches it still gets the rejection.
   */
  runTask<T>(fromTool: boolean, task: CollectTask<T>): Promise<TaskResult<T>> {
    return DroppablePromise.of(this.run(fromTool, task));
  }

  private async run<T>(fromTool: boolean, task: CollectTask<T>): Promise<TaskResult<T>> {
    const { host } = this;
    const refused = taskRefusal(task, this.starting ?? (this.task ? String(this.task.task.name) : undefined));
    if (refused) {
      // Said in the log too: a dropped promise's rejection is heard by no one.
      host.log.warn({ task: (task as { name?: unknown } | undefined)?.name }, refused.message);
      throw refused;
    }
    // Checked and taken in the same tick: the waits below would let another runTask pass the check.
    this.starting = String(task.name);
    try {
      if (!fromTool) {
        await host.live;
        await host.lane.idle();
      }
    } finally {
      this.starting = undefined;
    }
    if (host.isEnding()) return { ok: false, reason: 'no_input' };
    const agent = this.stages.agent.name;
    const run = new TaskRun<T>(task, { clock: host.clock, speak: (text, signal, answers) => host.speakTaskLine(text, task.name, signal, answers) }, this.stages.agent.taskSilenceMs ?? TASK_RUN_DEFAULTS.silenceMs);
    this.task = run as TaskRun<unknown>;
    const at = host.report.elapsed();
    host.emit({ type: 'task_started', name: task.name });
    // Started by a tool of a reply to the caller's turn: the task's question is that turn's answer.
    const inFlight = fromTool ? host.takeTurnInFlight() : undefined;
    run.begin(inFlight?.answers);
    try {
      const result = await run.result;
      if (run.unanswered) host.leftUnanswered(run.unanswered);
      inFlight?.resumed();
      this.taskEnded(task.name, agent, at, result);
      return result;
    } catch (thrown) {
      // An Error, so that the hook or tool passing it on is told apart (a bare string has no identity).
      const err = taskError(task.name, thrown);
      host.taskThrew(task.name, err);
      this.taskEnded(task.name, agent, at, { ok: false, reason: 'error' });
      // The caller is not left in silence: a tool's task fails its tool, whose error the model
      // answers; outside a tool the agent's recovery line is said (queued, not awaited).
      if (!fromTool && !host.isEnding()) void this.say(this.stages.agent.modelErrorLine ?? REPLY_DEFAULTS.modelErrorLine).catch(() => {});
      throw err;
    }
  }

  private taskEnded(name: string, agent: string, at: number, result: ReportTask['result']): void {
    this.task = undefined;
    this.host.report.task({ name, agent, at, result });
    this.host.emit({ type: 'task_ended', name, result });
  }
}

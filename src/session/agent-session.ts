import { Subscription, type Observable } from '../rx.ts';
import { createLocalVad, type CallerVad } from '../pipeline/local-vad.ts';
import { SpeakerFatal } from '../pipeline/speaker.ts';
import { SpokenForm } from '../pipeline/spoken.ts';
import type { Recognizer } from './stage-types.ts';
import type { CollectTask, TaskResult } from '../tasks/types.ts';
import { realClock, type Clock } from '../transport/clock.ts';
import { ResamplingOutput } from '../transport/resampling-output.ts';
import type { CallControl, CallInfo } from '../transport/types.ts';
import type { Agent } from './agent.ts';
import { AnswerDetection } from './answer-detection.ts';
import { CALL_ACTION_DEFAULTS, CallActions } from './call-actions.ts';
import { CallEnding } from './call-ending.ts';
import type { GenerateReplyOptions, SessionControl } from './control.ts';
import type { CallReport, LateToolEvent, SessionEvent } from './events.ts';
import { classifyFailure } from './failure.ts';
import { guarded } from './guarded.ts';
import { Hearing } from './hearing.ts';
import { Flow, toolControl } from './flow.ts';
import type { HandoffOptions } from './handoff.ts';
import { ChatHistory } from './history.ts';
import { CallerTurns } from './caller-turns.ts';
import { listenToCaller } from './caller-input.ts';
import { Keypad } from './keypad.ts';
import { OutOfServiceLine } from './out-of-service.ts';
import { createLogger, type Logger } from './logger.ts';
import { ReplyLane } from './reply-lane.ts';
import { onReplyEvent, type ReplyRecordHost } from './reply-record.ts';
import { ReplyRunner } from './reply-runner.ts';
import { ReportBuilder } from './report.ts';
import { SessionOutput } from './session-output.ts';
import { buildStt, defaultLlm, listenEndpointing, type AgentStages, type StageContext } from './stages.ts';
import type { TaskRun } from './task-runner.ts';
import type { SessionOptions } from './session-options.ts';

export { defaultLlm };
export type { SessionOptions };

/**
 * One call: a transport, an agent and the service, wired as a pipeline. Caller audio goes to
 * /listen; turns and barge-ins are decided from its events; each turn's reply runs LLM →
 * chunker → TTS → playout and is switched off by the next turn or a confirmed interruption.
 * The agent can change by handoff; a task can take the caller's turns for a while.
 * Nothing throws out of `run()`: failures, the agent's code included, become events and, when
 * they must, a clean end.
 *
 * @example
 * const session = new AgentSession({ client: new ServiceClient(), transport, agent });
 * session.events$.subscribe((e) => e.type === 'user_turn' && console.log(e.text));
 * const report = await session.run(); // when the call ends; never throws
 */
export class AgentSession implements SessionControl {
  /** Its events, log lines and state (session-output.ts). */
  private readonly out: SessionOutput;
  private readonly actions: CallActions;
  private readonly clock: Clock;
  private readonly output: ResamplingOutput;
  private readonly keypad: Keypad;
  private readonly turns: CallerTurns;
  /** The session as the reply handlers see it (reply-record.ts). */
  private readonly replyHost: ReplyRecordHost;
  /** Runs each request of the lane as a numbered reply (reply-runner.ts). */
  private readonly replies: ReplyRunner;
  private readonly log: Logger;
  private readonly history: ChatHistory;
  private readonly stt: Recognizer;
  private readonly localVad: CallerVad | undefined;
  /** Who answered (outbound calls): holds the greeting until it decides. */
  private readonly amd: AnswerDetection | undefined;
  private readonly spoken: SpokenForm;
  /** Who speaks and what for: the agent now (its stages), handoffs, the task running. */
  private readonly flow: Flow;
  /** Turns and barge-ins from what the recognizer hears. */
  private readonly hearing: Hearing;
  private readonly lane: ReplyLane;
  private readonly subs = new Subscription();
  private readonly report: ReportBuilder;
  private readonly outOfServiceLine: OutOfServiceLine;
  /** How the call ends, once (call-ending.ts). */
  private readonly closing: CallEnding;
  private resolveLive!: () => void;
  /** The call is up (sockets open, greeting asked for): tasks may start speaking. */
  private readonly live = new Promise<void>((r) => (this.resolveLive = r));

  constructor(private readonly opts: SessionOptions) {
    const { agent, client, transport } = opts;
    this.clock = opts.clock ?? realClock();
    this.log = opts.logger ?? createLogger();
    this.report = new ReportBuilder(this.clock);
    this.out = new SessionOutput(this.log, this.report, () => this.flow?.stages.agent.name, opts.logKeys ?? globalThis.process?.env?.HIWAR_LOG_KEYS === '1');
    this.closing = new CallEnding(() => ({
      log: this.log,
      out: this.out,
      transport,
      transferring: () => this.actions.transferring,
      flow: this.flow,
      lane: this.lane,
      subs: this.subs,
      hearing: this.hearing,
      stages: () => this.stages,
      outOfServiceLine: this.outOfServiceLine,
      stt: this.stt,
      localVad: this.localVad,
      amd: this.amd,
      keypad: this.keypad,
      output: this.output,
      live: () => this.resolveLive(),
    }));
    this.history = new ChatHistory(agent.instructions);
    this.replyHost = {
      report: this.report,
      log: this.log,
      emit: this.out.emit,
      setState: this.out.setState,
      fail: this.out.fail,
      threw: this.out.threw,
      toolThrew: this.out.toolThrew,
      handoff: (h) => void this.flow.handoff(true, h.agent, { carry: h.carry }),
    };
    this.replies = new ReplyRunner({
      clock: this.clock,
      stages: () => this.stages,
      record: this.replyHost,
      setState: this.out.setState,
      fail: this.out.fail,
      replied: () => this.hearing.schedule(),
      closing: () => this.closing.closingWith,
      outOfService: (reason) => this.outOfService(reason),
      after: async (r, req) => {
        // A tool of endCallAfterTools ran (a goodbye, or a transfer the line could not carry out,
        // or whose hook failed): the agent hangs up rather than leave the caller on a silent line.
        const endCall = () => void this.end('agent hung up after its reply (endCallAfterTools)');
        if (this.actions.hasPending) void this.actions.runPending(r.endCall).then((done) => !done && r.endCall && endCall());
        else if (r.endCall) endCall();
        // A handoff asked by a tool of this reply: the next agent takes over before the next reply.
        else if (!req.task) await this.flow.afterReply();
      },
    });
    this.stt = opts.stages?.recognizer ?? buildStt(agent, client, transport.inputRate, this.clock);
    this.localVad = createLocalVad(agent.interruption, transport.inputRate, this.clock);
    // What goes to the line is what can come back as echo: the local detector hears it (energy only).
    this.output = new ResamplingOutput(transport.output, this.localVad?.playing ? (f) => this.localVad!.playing!(f) : undefined);
    this.keypad = new Keypad(agent.dtmf, {
      clock: this.clock,
      agent: () => this.agent,
      control: () => this.control,
      task: () => this.task,
      isEnding: () => this.closing.isEnding,
      emit: this.out.emit,
      threw: this.out.threw,
      callerSaid: (text, input, answered) => this.turns.said(text, 'dtmf', input, {}, answered),
      answer: (req) => this.lane.answer({ ...req, turnNumber: this.turns.last }),
    });
    this.actions = new CallActions(transport, {
      isEnding: () => this.closing.isEnding,
      end: (reason) => this.end(reason),
      emit: this.out.emit,
      fail: this.out.fail,
      released: () => (this.closing.callerGone = true),
      // A failed transfer the call goes on after: the model is told, then the caller hears the agent stays.
      stayWithCaller: (note) => void (this.history.addNote(note), this.flow.say(this.agent.transferFailedLine ?? CALL_ACTION_DEFAULTS.transferFailedLine).catch(() => {})),
    });
    this.hearing = new Hearing({
      clock: this.clock,
      stages: () => this.stages,
      isEnding: () => this.closing.isEnding,
      turn: (t) => this.turns.spoken(t),
      heard: () => this.task?.heard(),
      interrupt: () => this.interrupt(),
      awaitsYesNo: () => this.task?.task.expecting?.()?.yesNo === true,
      repliesIdle: () => this.lane.idle(),
      emit: this.out.emit,
    });
    this.spoken = new SpokenForm(client, { diacritize: agent.diacritize }, this.out.notice);
    this.outOfServiceLine = new OutOfServiceLine({
      output: this.output,
      clock: this.clock,
      line: agent.outOfServiceLine,
      spoken: (t) => this.spoken.normalize(t),
      warn: (m, err) => this.log.warn({ err: (err as Error)?.message }, m),
      said: (line, kind) => this.report.agent({ text: line, heardText: line, interrupted: false, agent: this.agent.name, line: kind }),
      emit: this.out.emit,
      nextReply: () => this.replies.nextId(),
    });
    this.lane = new ReplyLane(
      (req, signal) => this.actions.during(() => this.replies.run(req, signal)),
      (err) => this.log.error({ err: (err as Error)?.message ?? err }, 'reply failed'),
    );
    this.amd = AnswerDetection.forAgent(agent, {
      clock: this.clock,
      control: this.control,
      emit: this.out.emit,
      say: (text, greeting) => this.lane.enqueue({ text, ...(greeting ? { greeting } : {}) }),
      ending: () => this.closing.isEnding,
      notice: this.out.notice,
    });
    this.turns = new CallerTurns({
      report: this.report,
      history: this.history,
      stt: this.stt,
      amd: this.amd,
      agent: () => this.agent,
      task: () => this.task,
      isEnding: () => this.closing.isEnding,
      emit: this.out.emit,
      threw: this.out.threw,
      answer: (req) => this.lane.answer(req),
      spokeAgain: () => this.replies.spokeAgain(),
    });
    const stageContext: StageContext = {
      client,
      clock: this.clock,
      llm: opts.llm,
      outputRate: transport.output.sampleRate,
      stages: opts.stages,
      notice: this.out.notice,
      failed: this.out.fail,
      listenEndpointingMs: opts.stages?.recognizer ? undefined : listenEndpointing(agent),
      turnContext: () => ({ expect: this.task?.task.expecting?.(), lastAgentLine: this.replies.lastAgentLine }),
      reply: { output: this.output, clock: this.clock, history: this.history, spoken: this.spoken, call: this.control, session: toolControl(this, () => this.flow), events: (e) => onReplyEvent(this.replyHost, e) },
    };
    this.flow = new Flow(agent, {
      lane: this.lane,
      clock: this.clock,
      history: this.history,
      report: this.report,
      log: this.log,
      stageContext,
      control: this.control,
      session: this,
      live: this.live,
      isEnding: () => this.closing.isEnding,
      emit: this.out.emit,
      threw: this.out.threw,
      taskThrew: this.out.taskThrew,
      speakTaskLine: (text, task, signal, answers) => this.actions.during(() => this.replies.run({ text, task, answers }, signal)),
      teach: opts.teach,
      takeTurnInFlight: () => this.replies.takeTurnInFlight(),
      leftUnanswered: (answers) => this.replies.leftUnanswered(answers),
    });
  }

  /** The agent speaking now and the stages built for it. */
  private get stages(): AgentStages {
    return this.flow.stages;
  }

  private get task(): TaskRun<unknown> | undefined {
    return this.flow.task;
  }

  /** Controls of this call, as tools and hooks get them. */
  get control(): CallControl {
    return this.actions.control;
  }

  /** Metadata of the call (id, from, to, custom parameters). */
  get call(): CallInfo {
    return this.opts.transport.call;
  }

  /** The agent speaking now (changes with a handoff). */
  get agent(): Agent {
    return this.stages.agent;
  }

  /** Everything the session reports, typed; completes when the call has ended. */
  get events$(): Observable<SessionEvent> {
    return this.out.events$;
  }

  /**
   * What the session tells after its call ended, when `events$` has completed: a given-up tool's
   * late answer (`tool_late` with `afterEnd: true`). Never completes (such a tool may answer at
   * any time, or never): it goes with the session.
   */
  get afterEnd$(): Observable<LateToolEvent> {
    return this.out.afterEnd$;
  }

  /** Runs the call to its end and returns the report. Never rejects. */
  async run(): Promise<CallReport> {
    try {
      await this.runCall();
    } catch (err) {
      // A bug of ours must not end the process either: the call ends cleanly instead.
      this.log.error({ err: (err as Error)?.message ?? err }, 'session failed');
      await this.end('session failed').catch(() => {});
    }
    return this.finalReport();
  }

  private async runCall(): Promise<void> {
    this.report.start();
    const { transport, agent } = this.opts;
    guarded('onCallStart', () => agent.hooks?.onCallStart?.(this.control), this.out.threw);
    try {
      const { speaker } = this.stages;
      await Promise.all([this.stt.start(), speaker.start(), this.localVad?.start(), this.output.prepare(speaker.socketRate)]);
    } catch (err) {
      const fatal = err instanceof SpeakerFatal ? err.error : err;
      const source = err instanceof SpeakerFatal ? 'tts' : 'stt';
      const f = classifyFailure(fatal, source);
      this.out.fail(source, f, true, fatal);
      // The caller is on the line: the out-of-service line (kept from start-up) before hanging up,
      // unless they are gone already or hang up meanwhile (the caller's audio ends).
      this.subs.add(transport.audio$.subscribe({ complete: () => this.closing.callerLeft(), error: () => this.closing.callerLeft() }));
      await this.outOfService(`could not start: ${f.message}`);
      await this.closing.over;
      return;
    }
    if (this.closing.isEnding) {
      // A hook hung up before the call got going.
      await this.closing.ended;
      return;
    }
    void this.outOfServiceLine.prepare(this.stages.speaker);
    this.amd?.start();
    this.subs.add(
      listenToCaller({
        transport,
        stt: this.stt,
        localVad: this.localVad,
        amd: this.amd,
        keypad: this.keypad,
        hearing: this.hearing,
        out: this.out,
        callerGone: () => (this.closing.callerGone = true),
        end: (reason) => this.end(reason),
        outOfService: (reason) => this.outOfService(reason),
      }),
    );
    this.out.setState('listening');
    const enter = () => guarded('onEnter', () => agent.hooks?.onEnter?.(this, this.control), this.out.threw);
    // With answer detection the first agent enters once a person is found, after its greeting:
    // a line or a task of its onEnter said at once went over a voicemail's greeting, before any
    // decision. On a machine it does not enter (the message or the hang-up is the call).
    if (this.amd) {
      void this.amd.run().then(
        (action) => action === 'greeted' && enter(),
        (err: Error) => this.log.error({ err: err.message }, 'answering-machine detection failed'),
      );
    } else if (agent.greeting) this.lane.enqueue({ text: agent.greeting, greeting: true });
    this.lane.start();
    if (!this.amd) enter();
    this.resolveLive();
    await this.closing.ended;
  }

  private finalReport(): CallReport {
    const report = this.report.build({ agent: this.opts.agent.name, llm: this.stages.llm.name, ended: this.closing.reason });
    return this.amd?.report ? { ...report, amd: this.amd.report } : report;
  }

  // ── What the agent's code can do (SessionControl, see flow.ts) ──

  say(text: string): Promise<void> {
    return this.flow.say(text);
  }

  generateReply(opts?: GenerateReplyOptions): Promise<void> {
    return this.flow.generateReply(opts);
  }

  handoff(next: Agent, opts?: HandoffOptions): Promise<void> {
    return this.flow.handoff(false, next, opts);
  }

  runTask<T>(task: CollectTask<T>): Promise<TaskResult<T>> {
    return this.flow.runTask(false, task);
  }

  summarize(): Promise<string> {
    return this.flow.summarize();
  }

  // ── The caller ──

  /** A confirmed barge-in. Over a task's line only that line stops (the reply whose tool runs the task goes on). */
  private interrupt(): void {
    if (this.task?.speaking) this.task.cancelLine();
    else void this.lane.cancel(); // the speaker clears what the service still generates
  }

  /** The service refuses (wallet, access): say the agent's line and hang up. */
  private outOfService(reason: string): Promise<void> {
    return this.closing.outOfService(reason);
  }

  /** Ends the call: the last final is awaited, sockets closed, the transport's output stopped. */
  end(reason: string): Promise<void> {
    return this.closing.end(reason);
  }

  /**
   * Ends the call as the server shuts down (a drain out of time): what is being said stops, the
   * agent's out-of-service line is said (rendered at start-up), then the call ends with `reason`.
   */
  endWithLine(reason: string): Promise<void> {
    return this.closing.endWithLine(reason);
  }

  /** For fault drills and tests: drops the recognition socket as a network failure would. */
  dropRecognition(): void {
    this.stt.dropConnection?.();
  }
}

import { Observable, Subject, Subscription, switchMap } from 'rxjs';
import { DEFAULT_MODEL_DEADLINES, withDeadlines, type ModelDeadlines } from '../llm/deadlines.ts';
import { ScriptedLlm } from '../llm/scripted.ts';
import type { Llm } from '../llm/types.ts';
import { DtmfCollector } from '../pipeline/dtmf.ts';
import { InterruptionPolicy } from '../pipeline/interruption.ts';
import { LocalVad } from '../pipeline/local-vad.ts';
import { ReplyPlayout } from '../pipeline/playout.ts';
import { ReplyStage, type ReplyEvent } from '../pipeline/reply.ts';
import { Speaker, SpeakerFatal } from '../pipeline/speaker.ts';
import { SpokenForm } from '../pipeline/spoken.ts';
import { SttStage, type SttEvent } from '../pipeline/stt.ts';
import { TurnDetector, type UserTurn } from '../pipeline/turns.ts';
import type { ServiceClient } from '../service/client.ts';
import type { ListenEvent } from '../service/ws/listen-events.ts';
import { Alarm, realClock, type Clock } from '../transport/clock.ts';
import { ResamplingOutput } from '../transport/resampling-output.ts';
import type { CallControl, CallInfo, Transport, TransportEvent } from '../transport/types.ts';
import type { Agent } from './agent.ts';
import { CallActions } from './call-actions.ts';
import type { CallReport, ReportTurn, SessionEvent, SessionState, TurnMetrics } from './events.ts';
import { classifyFailure, closeFailure, type Failure, type FailureSource } from './failure.ts';
import { turnMetrics } from './metrics.ts';
import { ChatHistory } from './history.ts';
import { createLogger, type Logger } from './logger.ts';

export interface SessionOptions {
  client: ServiceClient;
  transport: Transport;
  agent: Agent;
  clock?: Clock;
  llm?: Llm;
  logger?: Logger;
}

interface Request {
  /** A caller turn, or a fixed line (the greeting). */
  turn?: UserTurn;
  /** Clock time the caller stopped speaking, stamped when the turn was decided. */
  speechEndAt?: number;
  text?: string;
}

/**
 * The model when the session is given none: the agent's own, else its scripted intents. (The
 * CLI picks an OpenAI-compatible model from the environment: `src/cli/llm.ts`.)
 */
export function defaultLlm(agent: Agent): Llm {
  if (agent.llm) return agent.llm;
  return new ScriptedLlm({ intents: agent.intents ?? [], fallback: agent.didNotUnderstand ?? 'عذرًا، لم أفهم. هل يمكنك الإعادة؟' });
}

/**
 * One call: a transport, an agent and the service, wired as a pipeline. Caller audio goes to
 * /listen; turns and barge-ins are decided from its events; each turn's reply runs LLM →
 * chunker → TTS → playout and is switched off by the next turn or a confirmed interruption.
 * Nothing throws out of `run()`: failures become events and, when they must, a clean end.
 */
export class AgentSession {
  private readonly eventsSubject = new Subject<SessionEvent>();
  /** Everything the session reports, typed; completes when the call has ended. */
  readonly events$: Observable<SessionEvent> = this.eventsSubject.asObservable();
  private readonly actions: CallActions;
  private readonly clock: Clock;
  private readonly output: ResamplingOutput;
  private readonly dtmf: DtmfCollector;
  private readonly log: Logger;
  private readonly llm: Llm;
  private readonly deadlines: ModelDeadlines;
  private readonly history: ChatHistory;
  private readonly turns: TurnDetector;
  private readonly interruption: InterruptionPolicy;
  private readonly stt: SttStage;
  private readonly speaker: Speaker;
  private readonly localVad: LocalVad | undefined;
  private readonly spoken: SpokenForm;
  private readonly replies: ReplyStage;
  /** The one timer: the next deadline of the turn detector or the interruption policy. */
  private readonly alarm: Alarm;
  private readonly requests$ = new Subject<Request>();
  private readonly subs = new Subscription();
  private readonly report: ReportTurn[] = [];
  private readonly notices: string[] = [];
  private closing: ReplyPlayout | undefined;
  private cancelReply: (() => Promise<void>) | undefined;
  private lastCleanup: Promise<void> = Promise.resolve();
  /** The last reply has ended (its `lastCleanup` settled): the next one need not wait a tick for it. */
  private lastEnded = true;
  private outOfServiceAudio: { samples: Int16Array; sampleRate: number } | undefined;
  private outOfServiceLine: Promise<void> | undefined;
  private startedAt = 0;
  private ending: Promise<void> | undefined;
  private endReason = '';
  private resolveEnded!: () => void;
  private readonly ended = new Promise<void>((r) => (this.resolveEnded = r));
  private state: SessionState = 'starting';
  /** The caller's side ended the call: nothing to hang up. */
  private callerGone = false;

  constructor(private readonly opts: SessionOptions) {
    const { agent, client, transport } = opts;
    this.clock = opts.clock ?? realClock();
    this.log = opts.logger ?? createLogger();
    this.deadlines = { ...DEFAULT_MODEL_DEADLINES, ...agent.modelDeadlines };
    // Real time: a model's latency does not run faster with a simulated clock.
    this.llm = withDeadlines(opts.llm ?? defaultLlm(agent), this.deadlines, realClock());
    this.history = new ChatHistory(agent.instructions);
    this.turns = new TurnDetector(agent.turn);
    this.interruption = new InterruptionPolicy(agent.interruption);
    const sttRate = agent.stt?.sampleRate ?? (transport.inputRate <= 8000 ? 8000 : 16000);
    this.stt = new SttStage(
      client,
      transport.inputRate,
      {
        sample_rate: sttRate, model: agent.stt?.model, endpointing: agent.stt?.endpointing, hotwords: agent.stt?.hotwords, interim_results: true,
        liveness: agent.stt?.liveness,
        uplinkFrameMs: agent.stt?.uplinkFrameMs,
      },
      this.clock,
    );
    this.localVad = agent.interruption?.localVad ? new LocalVad(transport.inputRate, this.clock) : undefined;
    this.output = new ResamplingOutput(transport.output);
    this.dtmf = new DtmfCollector(this.clock, agent.dtmf);
    this.actions = new CallActions(transport, {
      isEnding: () => !!this.ending,
      end: (reason) => this.end(reason),
      emit: (e) => this.emit(e),
      fail: (source, f, fatal, cause) => this.fail(source, f, fatal, cause),
      released: () => (this.callerGone = true),
    });
    this.alarm = new Alarm(this.clock, () => this.onDeadline());
    this.speaker = new Speaker(
      client,
      { ...agent.voice, sampleRate: transport.output.sampleRate },
      this.clock,
      (n) => {
        if (n.type === 'fallback') this.notice(`speech synthesis switched to HTTP: ${n.reason}`);
      },
    );
    this.spoken = new SpokenForm(client, { diacritize: agent.diacritize }, (m) => this.notice(m));
    this.replies = new ReplyStage(
      {
        llm: this.llm,
        voice: this.speaker,
        output: this.output,
        clock: this.clock,
        history: this.history,
        spoken: this.spoken,
        tools: agent.tools ?? [],
        call: this.control,
        events: (e) => this.onReplyEvent(e),
      },
      {
        modelErrorLine: agent.modelErrorLine,
        endCallAfterTools: agent.endCallAfterTools,
        fillerLine: agent.fillerLine,
        fillerAfterMs: this.deadlines.fillerAfterMs,
      },
    );
  }

  /** Controls of this call, as tools and hooks get them. */
  get control(): CallControl {
    return this.actions.control;
  }

  /** Metadata of the call (id, from, to, custom parameters). */
  get call(): CallInfo {
    return this.opts.transport.call;
  }

  private emit(e: SessionEvent): void {
    this.eventsSubject.next(e);
  }

  /** A typed `error` event with a clean message; the raw cause goes to the log only. */
  private fail(source: FailureSource, f: Failure, fatal: boolean, cause?: unknown): void {
    this.log.warn({ source, kind: f.kind, err: cause instanceof Error ? cause.message : cause }, f.message);
    this.emit({ type: 'error', source, kind: f.kind, message: f.message, fatal });
  }

  private setState(state: SessionState): void {
    if (this.state === state || this.state === 'ended') return;
    this.state = state;
    this.emit({ type: 'state', state });
  }

  private notice(message: string): void {
    this.notices.push(message);
    this.log.info({ session: this.opts.agent.name }, message);
    this.emit({ type: 'notice', message });
  }

  private elapsed(): number {
    return Math.round((this.clock.now() - this.startedAt)) / 1000;
  }

  /** Runs the call to its end and returns the report. */
  async run(): Promise<CallReport> {
    this.startedAt = this.clock.now();
    const { transport, agent } = this.opts;
    agent.hooks?.onCallStart?.(this.control);
    try {
      await Promise.all([this.stt.start(), this.speaker.start(), this.localVad?.start(), this.output.prepare(this.speaker.socketRate)]);
    } catch (err) {
      const fatal = err instanceof SpeakerFatal ? err.error : err;
      const source = err instanceof SpeakerFatal ? 'tts' : 'stt';
      const f = classifyFailure(fatal, source);
      this.fail(source, f, true, fatal);
      // The caller is on the line: the out-of-service line (kept from start-up) before hanging up,
      // unless they are gone already or hang up meanwhile (the caller's audio ends).
      this.subs.add(transport.audio$.subscribe({ complete: () => this.callerLeft(), error: () => this.callerLeft() }));
      await this.outOfService(`could not start: ${f.message}`);
      await this.ending;
      return this.finalReport();
    }
    if (this.ending) {
      // A hook hung up before the call got going.
      await this.ended;
      return this.finalReport();
    }
    void this.prerenderOutOfService();
    this.subs.add(
      transport.audio$.subscribe({
        next: (f) => {
          this.stt.push(f);
          this.localVad?.push(f);
        },
        error: (err) => {
          this.fail('transport', { kind: 'network', message: 'the caller audio failed' }, true, err);
          void this.end('transport failed');
        },
        complete: () => {
          this.callerGone = true;
          void this.end('caller audio ended');
        },
      }),
    );
    if (this.localVad) {
      // Local speech start counts like the service's SpeechStarted; words still come from /listen.
      this.subs.add(
        this.localVad.speech$.subscribe((s) => {
          if (s.type !== 'start') return;
          this.onDecision(this.interruption.onEvent({ type: 'SpeechStarted', channel: 0, ts: 0 }, s.at, this.agentSpeaking()));
          this.schedule();
        }),
      );
    }
    this.subs.add(transport.events$.subscribe((e) => this.onTransportEvent(e)));
    this.subs.add(this.dtmf.entries$.subscribe((digits) => this.onDtmfEntry(digits)));
    this.subs.add(this.stt.events$.subscribe((e) => this.onStt(e)));
    this.subs.add(
      this.requests$
        .pipe(switchMap((req) => this.replyObservable(req)))
        .subscribe({ error: (err) => this.log.error({ err }, 'reply pipeline failed') }),
    );
    this.setState('listening');
    if (agent.greeting) this.requests$.next({ text: agent.greeting });
    await this.ended;
    return this.finalReport();
  }

  private finalReport(): CallReport {
    return {
      agent: this.opts.agent.name,
      llm: this.llm.name,
      turns: this.report,
      ended: this.endReason,
      durationSeconds: this.elapsed(),
      notices: this.notices,
    };
  }

  private onTransportEvent(e: TransportEvent): void {
    if (e.type === 'hangup') {
      this.callerGone = true;
      void this.end(e.reason ?? 'hangup');
    } else if (e.type === 'error') {
      this.fail('transport', { kind: 'network', message: `the call connection failed: ${e.message}` }, true);
      void this.end(`transport error: ${e.message}`);
    } else if (e.type === 'dtmf') {
      this.emit({ type: 'dtmf', digit: e.digit });
      const handled = this.opts.agent.hooks?.onDtmf?.(e.digit, this.control) === true;
      if (!handled && this.dtmf.o.toModel) this.dtmf.push(e.digit);
    }
  }

  /** Keys the caller entered reach the model as a user turn. */
  private onDtmfEntry(digits: string): void {
    if (this.ending) return;
    const text = this.dtmf.o.format(digits);
    const now = this.clock.now();
    this.report.push({ role: 'user', text, at: this.elapsed() });
    this.opts.agent.hooks?.onUserTurn?.(text);
    this.emit({ type: 'user_turn', text, source: 'dtmf' });
    this.requests$.next({ turn: { text, lastWordEnd: undefined, finalAt: now, decidedAt: now } });
  }

  /**
   * Arms one timer for the next moment the turn detector or the interruption policy may decide
   * something without a new event (an end-of-turn delay, a false-alarm timeout). Nothing runs
   * between events otherwise.
   */
  private schedule(): void {
    const due = [this.turns.deadline, this.interruption.deadline].filter((t): t is number => t !== undefined);
    this.alarm.set(this.ending || !due.length ? undefined : Math.min(...due));
  }

  private onDeadline(): void {
    if (this.ending) return;
    const now = this.clock.now();
    for (const t of this.turns.tick(now)) this.onUserTurn(t);
    this.onDecision(this.interruption.tick(now, this.agentSpeaking()));
    this.schedule();
  }

  private agentSpeaking(): boolean {
    return !!this.replies.current?.speaking;
  }

  private onStt(ev: SttEvent): void {
    if (ev.type === 'listen') return this.onListen(ev.event, ev.at);
    if (ev.type === 'reconnecting') return this.notice(`speech recognition reconnecting (attempt ${ev.attempt}, close ${ev.close.code})`);
    if (ev.type === 'reconnected') return this.notice(`speech recognition reconnected; replayed ${ev.replayedSeconds.toFixed(1)} s of caller audio`);
    const f = closeFailure(ev.close, 'stt', ev.close.retryable);
    this.fail('stt', f, true, ev.message);
    // Whatever stopped recognition for good, the caller hears the out-of-service line, not silence.
    void this.outOfService(f.message);
  }

  private onListen(e: ListenEvent, at: number): void {
    // The recognizer heard speech it could not put into words (the sandbox's closed set): said
    // once per utterance, or a caller the sandbox does not know looks like a line that takes no turns.
    if (e.type === 'Metadata' && e.phase === 'warning') this.notice(`caller speech without words: ${e.warning}`);
    if (e.type === 'Results' && e.transcript) this.emit({ type: 'transcript', text: e.transcript, final: e.is_final });
    this.onDecision(this.interruption.onEvent(e, at, this.agentSpeaking()));
    for (const t of this.turns.onEvent(e, at)) this.onUserTurn(t);
    this.schedule();
  }

  private onDecision(d: 'pause' | 'interrupt' | 'resume' | undefined): void {
    const playout = this.replies.current;
    if (!d || !playout) return;
    if (d === 'pause') {
      void playout.pause();
      this.emit({ type: 'interruption', kind: 'paused' });
    } else if (d === 'resume') {
      playout.resume();
      this.emit({ type: 'interruption', kind: 'resumed' });
    } else {
      this.emit({ type: 'interruption', kind: 'confirmed' });
      void this.cancelReply?.(); // the speaker clears what the service still generates
    }
  }

  private onUserTurn(turn: UserTurn): void {
    if (this.ending) return;
    // Stamped now: the recognizer's timeline is mapped while its checkpoints are fresh.
    const speechEndAt = turn.lastWordEnd !== undefined ? this.stt.timeOf(turn.lastWordEnd) : undefined;
    this.report.push({ role: 'user', text: turn.text, at: this.elapsed() });
    this.opts.agent.hooks?.onUserTurn?.(turn.text);
    this.emit({ type: 'user_turn', text: turn.text, source: 'speech' });
    this.requests$.next({ turn, speechEndAt });
  }

  /** A reply as an Observable: unsubscribing (switchMap on the next turn) cancels it. */
  private replyObservable(req: Request): Observable<never> {
    return new Observable<never>((subscriber) => {
      const ctrl = new AbortController();
      // No reply before this one, or it has ended: nothing to wait for (not even a tick).
      const previous = this.lastEnded ? undefined : this.lastCleanup;
      this.lastEnded = false;
      const done = (async () => {
        if (previous) await previous; // the cut-off reply has stopped its audio before this one starts
        if (ctrl.signal.aborted) return;
        await this.actions.during(() => this.reply(req, ctrl.signal));
      })()
        .catch((err) => this.log.error({ err: (err as Error).message }, 'reply failed'))
        .finally(() => subscriber.complete());
      this.lastCleanup = done;
      void done.then(() => {
        if (this.lastCleanup === done) this.lastEnded = true;
      });
      this.cancelReply = async () => {
        ctrl.abort();
        await done;
      };
      return () => ctrl.abort();
    });
  }

  private onReplyEvent(e: ReplyEvent): void {
    if (e.type === 'speaking') this.setState('speaking');
    else if (e.type === 'agent_chunk') this.emit(e);
    else if (e.type === 'tool') this.emit(e);
    else if (e.type === 'llm_error') this.fail('llm', classifyFailure(e.error, 'llm'), false, e.error);
    else this.fail('tts', classifyFailure(e.error, 'tts'), false, e.error);
  }

  private async reply(req: Request, signal: AbortSignal): Promise<void> {
    const { agent } = this.opts;
    const turn = req.turn;
    this.interruption.reset();
    if (turn) this.setState('thinking');
    const r = await this.replies.run(req, signal);
    this.schedule();
    const metrics: TurnMetrics = { interrupted: r.interrupted };
    if (turn) {
      Object.assign(
        metrics,
        turnMetrics({ speechEnd: req.speechEndAt, finalAt: turn.finalAt, decidedAt: turn.decidedAt, ...r.times }),
      );
    }
    this.report.push({ role: 'agent', text: r.text, heardText: r.heard, interrupted: r.interrupted, at: this.elapsed(), ...(turn ? { metrics } : {}) });
    agent.hooks?.onAgentTurn?.(r.text, r.heard, r.interrupted);
    this.emit({ type: 'agent_turn', text: r.text, heardText: r.heard, interrupted: r.interrupted });
    if (turn) {
      this.emit({ type: 'metrics', metrics });
      this.log.info({ agent: agent.name, metrics }, 'turn');
    }
    if (!this.replies.current) this.setState('listening');
    if (r.fatal) {
      const f = classifyFailure(r.fatal.error, 'tts');
      this.fail('tts', f, true, r.fatal.error);
      void this.outOfService(f.message);
    } else if (this.actions.hasPending) void this.actions.runPending();
    else if (r.endCall) void this.end('transferred');
  }

  private callerLeft(): void {
    this.callerGone = true;
    void this.end('caller audio ended');
  }

  /** Renders the out-of-service line while the service still answers, to play it when it stops. */
  private async prerenderOutOfService(): Promise<void> {
    try {
      this.outOfServiceAudio = await this.speaker.render(this.spoken.normalize(this.opts.agent.outOfServiceLine));
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'out-of-service line not prepared');
    }
  }

  /** The service refuses (wallet, access): say the agent's line and hang up. */
  private outOfService(reason: string): Promise<void> {
    // STT and TTS may both give up at once (an empty wallet): the line is said, and recorded, once.
    this.outOfServiceLine ??= this.sayOutOfService(reason);
    return this.outOfServiceLine;
  }

  private async sayOutOfService(reason: string): Promise<void> {
    if (this.ending) return;
    this.notice(`out of service: ${reason}`);
    await this.cancelReply?.();
    // Rendered once per process at start-up: taken from that cache, with no service call, even
    // when the service failed before this call's own copy was fetched.
    if (!this.outOfServiceAudio) await this.prerenderOutOfService();
    if (this.outOfServiceAudio?.samples.length) {
      // Not `this.playout`: the closing line is not open to barge-in.
      const playout = new ReplyPlayout(this.output, this.clock);
      this.closing = playout;
      playout.beginSegment(this.opts.agent.outOfServiceLine);
      playout.append(this.outOfServiceAudio.samples, this.outOfServiceAudio.sampleRate);
      playout.end();
      await playout.finished;
      this.report.push({ role: 'agent', text: this.opts.agent.outOfServiceLine, heardText: this.opts.agent.outOfServiceLine, interrupted: false, at: this.elapsed() });
    }
    await this.end(`out of service: ${reason}`);
  }

  /** Ends the call: the last final is awaited, sockets closed, the transport's output stopped. */
  end(reason: string): Promise<void> {
    this.ending ??= (async () => {
      reason = this.actions.transferring ?? reason;
      this.endReason = reason;
      await this.cancelReply?.().catch(() => {});
      this.subs.unsubscribe();
      this.alarm.cancel();
      await this.replies.current?.stop();
      await this.closing?.stop();
      await this.stt.finish().catch(() => {});
      this.localVad?.close();
      await this.speaker.close().catch(() => {});
      this.dtmf.close();
      await this.output.close().catch(() => {});
      // The session ends a call the caller is still on (a tool, out of service, a failure).
      if (!this.callerGone) await this.opts.transport.hangup?.(reason).catch((err: Error) => this.log.warn({ err: err.message }, 'transport hangup failed'));
      this.setState('ended');
      this.emit({ type: 'ended', reason });
      this.eventsSubject.complete();
      this.resolveEnded();
    })();
    return this.ending;
  }

  /** For fault drills and tests: drops the recognition socket as a network failure would. */
  dropRecognition(): void {
    this.stt.dropConnection();
  }
}

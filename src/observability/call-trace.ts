import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span, type Tracer } from '@opentelemetry/api';
import type { SessionEvent, TurnMetrics } from '../session/events.ts';
import type { CallInfo } from '../transport/types.ts';
import { callParentContext, TRACE_PARAMETERS, TRACER_NAME } from './trace-context.ts';

/** What a call's trace is told besides the session's events. */
export interface CallTraceOptions {
  /** The call (its id, provider and parameters: a `traceparent` among them makes the trace its child). */
  call: Pick<CallInfo, 'callId' | 'provider' | 'parameters'> & Partial<Pick<CallInfo, 'direction'>>;
  /** The agent the call starts with. */
  agent?: string;
  /** Default: the global tracer provider's `hiwar` tracer (a no-op without an SDK). */
  tracer?: Tracer;
  /** Epoch milliseconds on the call's timeline (the session's clock); default `Date.now`. */
  now?: () => number;
}

/** One reply in flight: its span and those of its parts, ended when the reply ends. */
interface Reply {
  span: Span;
  ctx: Context;
  start: number;
  /** The caller turn it answers (its span ends with the reply). */
  turn?: Span;
  llm?: Span;
  chunks: { span: Span; start: number }[];
  playout?: Span;
  /** The last moment the model gave something (a chunk, a tool's result): where its span ends. */
  modelUntil: number;
}

/** Session notices that say recognition is reconnecting, and that it did (see AgentSession.onStt). */
const RECONNECTING = /^speech recognition reconnecting \(attempt (\d+)/;
const RECONNECTED = /^speech recognition reconnected/;

/**
 * One call as an OpenTelemetry trace, built from the session's typed events alone: a `hiwar.call`
 * span; under it a `hiwar.turn` per caller turn (first words recognized → its reply ended) and a
 * `hiwar.reply` per reply, with `hiwar.llm` (time to first token as an event), a `hiwar.tts`
 * per chunk sent to synthesis (time to first audio on the first), `hiwar.playout` and
 * `hiwar.tool` spans; `hiwar.reconnect`, `hiwar.failure` and `hiwar.task` under the call.
 * Attributes carry ids, names, counts and latencies: never the caller's words, audio, digits or keys.
 */
export class CallTrace {
  private readonly tracer: Tracer;
  private readonly now: () => number;
  private readonly call: Span;
  private readonly callCtx: Context;
  /** Replies asked and not ended, oldest first: the lane runs them one at a time in this order. */
  private readonly replies: Reply[] = [];
  /** The reply that ended and waits for its turn's `metrics` event (which follows it at once). */
  private awaiting: { reply: Reply; at: number; e: Extract<SessionEvent, { type: 'agent_turn' }> } | undefined;
  /** When the caller's next turn began to be heard (its first transcript). */
  private nextTurnAt: number | undefined;
  private reconnect: Span | undefined;
  private readonly tasks = new Map<string, Span>();
  private agent: string | undefined;
  private turns = 0;
  private ended = false;

  constructor(o: CallTraceOptions) {
    this.tracer = o.tracer ?? trace.getTracer(TRACER_NAME);
    this.now = o.now ?? Date.now;
    this.agent = o.agent;
    const requestId = o.call.parameters[TRACE_PARAMETERS.requestId];
    this.call = this.tracer.startSpan(
      'hiwar.call',
      {
        kind: SpanKind.SERVER,
        startTime: this.now(),
        attributes: {
          'hiwar.call.id': o.call.callId,
          'hiwar.provider': o.call.provider,
          ...(o.call.direction ? { 'hiwar.call.direction': o.call.direction } : {}),
          ...(requestId ? { 'hiwar.request_id': requestId } : {}),
          ...(o.agent ? { 'hiwar.agent': o.agent } : {}),
        },
      },
      callParentContext(o.call.parameters),
    );
    this.callCtx = trace.setSpan(ROOT_CONTEXT, this.call);
  }

  /** Feeds one session event (subscribe it to `session.events$`). */
  onEvent(e: SessionEvent): void {
    if (this.ended) return;
    const at = this.now();
    if (this.awaiting && e.type !== 'metrics') this.finish(undefined);
    switch (e.type) {
      case 'transcript':
        this.nextTurnAt ??= at;
        break;
      case 'user_turn':
        this.userTurn(at, e.source ?? 'speech');
        break;
      case 'agent_chunk':
        this.chunk(at, e.text.length);
        break;
      case 'state':
        if (e.state === 'speaking') this.speaking(at);
        break;
      case 'tool':
        this.tool(at, e.outcome.call.name, e.outcome.ms, !!e.outcome.error, !!e.outcome.threw);
        break;
      case 'agent_turn': {
        const reply = this.replies.shift();
        if (!reply) break;
        // A caller turn's reply: its metrics come in the next event, before anything else.
        if (reply.turn) this.awaiting = { reply, at, e };
        else this.endReply(reply, at, e, undefined);
        break;
      }
      case 'metrics':
        this.finish(e.metrics);
        break;
      case 'interruption':
        (this.replies[0]?.playout ?? this.replies[0]?.span ?? this.call).addEvent(`interruption.${e.kind}`, at);
        break;
      case 'notice':
        this.notice(at, e.message);
        break;
      case 'error':
        this.failure(at, e);
        break;
      case 'agent_handoff':
        this.agent = e.to;
        this.call.addEvent('handoff', { 'hiwar.handoff.from': e.from, 'hiwar.handoff.to': e.to, 'hiwar.handoff.carry': e.carry }, at);
        break;
      case 'amd':
        this.call.setAttributes({ 'hiwar.amd.class': e.decision.class, 'hiwar.amd.action': e.action });
        this.call.addEvent('amd', { 'hiwar.amd.class': e.decision.class, 'hiwar.amd.decision_ms': e.decision.decisionMs }, at);
        break;
      case 'call_action':
        this.call.addEvent(`call_action.${e.action}`, { 'hiwar.ok': e.ok }, at);
        break;
      case 'task_started':
        this.tasks.get(e.name)?.end(at);
        this.tasks.set(e.name, this.tracer.startSpan('hiwar.task', { startTime: at, attributes: { 'hiwar.task': e.name } }, this.callCtx));
        break;
      case 'task_ended': {
        const span = this.tasks.get(e.name);
        this.tasks.delete(e.name);
        span?.setAttributes({ 'hiwar.task.ok': e.result.ok, ...(e.result.ok ? {} : { 'hiwar.task.reason': e.result.reason }) });
        span?.end(at);
        break;
      }
      case 'ended':
        this.end(at, e.reason);
        break;
      default:
        break; // dtmf (the digits may be a PIN), interim words: never recorded
    }
  }

  private userTurn(at: number, source: string): void {
    this.turns++;
    const turn = this.tracer.startSpan('hiwar.turn', { startTime: Math.min(this.nextTurnAt ?? at, at), attributes: { 'hiwar.turn.index': this.turns, 'hiwar.turn.source': source } }, this.callCtx);
    this.nextTurnAt = undefined;
    const reply = this.openReply(at, trace.setSpan(ROOT_CONTEXT, turn), 'turn');
    reply.turn = turn;
    // A reply to a caller turn asks the model: its request starts with the reply.
    reply.llm = this.tracer.startSpan('hiwar.llm', { startTime: at }, reply.ctx);
  }

  private openReply(at: number, parent: Context, kind: 'turn' | 'line'): Reply {
    const span = this.tracer.startSpan('hiwar.reply', { startTime: at, attributes: { 'hiwar.reply.kind': kind, ...(this.agent ? { 'hiwar.agent': this.agent } : {}) } }, parent);
    const reply: Reply = { span, ctx: trace.setSpan(ROOT_CONTEXT, span), start: at, chunks: [], modelUntil: at };
    this.replies.push(reply);
    return reply;
  }

  /** The reply running now; a fixed line (the greeting, `say`, a task's line) has no event before its first chunk. */
  private running(at: number): Reply {
    return this.replies[0] ?? this.openReply(at, this.callCtx, 'line');
  }

  private chunk(at: number, chars: number): void {
    const reply = this.running(at);
    reply.modelUntil = at;
    const span = this.tracer.startSpan('hiwar.tts', { startTime: at, attributes: { 'hiwar.tts.chunk': reply.chunks.length, 'hiwar.tts.chars': chars } }, reply.ctx);
    reply.chunks.push({ span, start: at });
  }

  private speaking(at: number): void {
    const reply = this.replies[0];
    if (reply && !reply.playout) reply.playout = this.tracer.startSpan('hiwar.playout', { startTime: at }, reply.ctx);
  }

  private tool(at: number, name: string, ms: number, error: boolean, threw: boolean): void {
    const reply = this.replies[0];
    // The tool's duration is wall time; on a faster clock it is clamped inside its reply.
    const start = Math.max(reply?.start ?? 0, at - ms);
    const span = this.tracer.startSpan('hiwar.tool', { startTime: start, attributes: { 'hiwar.tool.name': name, 'hiwar.tool.ms': ms, 'hiwar.tool.error': error } }, reply?.ctx ?? this.callCtx);
    if (threw || error) span.setStatus({ code: SpanStatusCode.ERROR, message: threw ? 'the tool threw' : 'the tool call was refused' });
    span.end(at);
    if (reply) reply.modelUntil = at;
  }

  private notice(at: number, message: string): void {
    const m = RECONNECTING.exec(message);
    if (m) {
      this.reconnect ??= this.tracer.startSpan('hiwar.reconnect', { startTime: at, attributes: { 'hiwar.reconnect.service': 'stt' } }, this.callCtx);
      this.reconnect.setAttribute('hiwar.reconnect.attempt', Number(m[1]));
    } else if (RECONNECTED.test(message) && this.reconnect) {
      this.reconnect.end(at);
      this.reconnect = undefined;
    }
  }

  private failure(at: number, e: Extract<SessionEvent, { type: 'error' }>): void {
    const attributes: Attributes = { 'hiwar.failure.source': e.source, 'hiwar.failure.kind': e.kind, 'hiwar.failure.fatal': e.fatal };
    const span = this.tracer.startSpan('hiwar.failure', { startTime: at, attributes }, this.replies[0]?.ctx ?? this.callCtx);
    span.setStatus({ code: SpanStatusCode.ERROR, message: e.message });
    span.end(at);
    if (e.fatal) {
      this.call.setStatus({ code: SpanStatusCode.ERROR, message: e.message });
      if (e.source === 'stt') this.endReconnect(at, 'recognition did not come back');
    }
  }

  private endReconnect(at: number, why: string): void {
    this.reconnect?.setStatus({ code: SpanStatusCode.ERROR, message: why });
    this.reconnect?.end(at);
    this.reconnect = undefined;
  }

  private finish(metrics: TurnMetrics | undefined): void {
    const a = this.awaiting;
    this.awaiting = undefined;
    if (a) this.endReply(a.reply, a.at, a.e, metrics);
  }

  private endReply(r: Reply, at: number, e: { text: string; heardText: string; interrupted: boolean } | undefined, m: TurnMetrics | undefined): void {
    r.chunks.forEach((c, i) => {
      if (i === 0 && m?.ttsFirstAudioMs !== undefined) {
        c.span.setAttribute('hiwar.tts.first_audio_ms', m.ttsFirstAudioMs);
        c.span.addEvent('first_audio', Math.min(at, c.start + m.ttsFirstAudioMs));
      }
      c.span.end(r.chunks[i + 1]?.start ?? at);
    });
    if (r.llm) {
      if (m?.llmFirstTokenMs !== undefined) {
        r.llm.setAttribute('hiwar.llm.first_token_ms', m.llmFirstTokenMs);
        r.llm.addEvent('first_token', Math.min(r.modelUntil, r.start + m.llmFirstTokenMs));
      }
      r.llm.end(r.modelUntil);
    }
    if (r.playout) {
      if (m?.playoutStartMs !== undefined) r.playout.setAttribute('hiwar.playout.start_ms', m.playoutStartMs);
      r.playout.setAttribute('hiwar.interrupted', !!e?.interrupted);
      r.playout.end(at);
    }
    r.span.setAttributes({
      'hiwar.interrupted': !!e?.interrupted,
      ...(e ? { 'hiwar.reply.chars': e.text.length, 'hiwar.reply.heard_chars': e.heardText.length } : {}),
      ...(m?.voiceToVoiceMs !== undefined ? { 'hiwar.voice_to_voice_ms': m.voiceToVoiceMs } : {}),
    });
    r.span.end(at);
    if (r.turn) {
      r.turn.setAttributes({
        ...(m?.endOfSpeechToFinalMs !== undefined ? { 'hiwar.stt.final_ms': m.endOfSpeechToFinalMs } : {}),
        ...(m?.turnDecisionMs !== undefined ? { 'hiwar.turn.decision_ms': m.turnDecisionMs } : {}),
        ...(m?.voiceToVoiceMs !== undefined ? { 'hiwar.voice_to_voice_ms': m.voiceToVoiceMs } : {}),
      });
      r.turn.end(at);
    }
  }

  /** Ends every span still open and the call's own (the `ended` event does; also for a session that never ended). */
  end(at = this.now(), reason?: string): void {
    if (this.ended) return;
    this.finish(undefined);
    for (const r of this.replies.splice(0)) this.endReply(r, at, undefined, undefined);
    this.endReconnect(at, 'the call ended first');
    for (const span of this.tasks.values()) span.end(at);
    this.tasks.clear();
    this.ended = true;
    this.call.setAttributes({ 'hiwar.turns': this.turns, ...(reason ? { 'hiwar.call.end_reason': reason } : {}) });
    this.call.end(at);
  }
}

import type { Attributes, Context, Span, Tracer } from '@opentelemetry/api';
import { otel } from './otel-api.ts';
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
  /** Its number in the call (`reply_started`). */
  id: number;
  span: Span;
  ctx: Context;
  start: number;
  /** The caller turn it answers (its span ends with the reply). */
  turn?: Span;
  llm?: Span;
  /** Its model request failed (an `error` of source llm): no first token to mark on it. */
  llmFailed?: boolean;
  chunks: { span: Span; start: number }[];
  playout?: Span;
  /** The last moment the model gave something (a chunk, a tool's result): where its span ends. */
  modelUntil: number;
}

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
  /** Replies begun and not ended, by their number (`reply_started`), in the order they began. */
  private readonly replies = new Map<number, Reply>();
  /** Caller turns no reply has taken up yet, by their number (`user_turn`'s `turn`). */
  private readonly pendingTurns = new Map<number, Span>();
  /** The reply that ended and waits for its `metrics` or `line_metrics` event (which follows it at once). */
  private awaiting: { reply: Reply; at: number; e: Extract<SessionEvent, { type: 'agent_turn' }> } | undefined;
  /** When the caller's next turn began to be heard (its first transcript). */
  private nextTurnAt: number | undefined;
  private reconnect: Span | undefined;
  private readonly tasks = new Map<string, Span>();
  /** When each tool call began (`tool_started`), by reply and call id (or name): its span's start. */
  private readonly toolStarts = new Map<string, number>();
  private agent: string | undefined;
  private turns = 0;
  /** Replies opened without a number (events of a session older than `reply_started`). */
  private unnumbered = 0;
  private ended = false;

  constructor(o: CallTraceOptions) {
    this.tracer = o.tracer ?? otel().trace.getTracer(TRACER_NAME);
    this.now = o.now ?? Date.now;
    this.agent = o.agent;
    const requestId = o.call.parameters[TRACE_PARAMETERS.requestId];
    this.call = this.tracer.startSpan(
      'hiwar.call',
      {
        kind: otel().SpanKind.SERVER,
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
    this.callCtx = otel().trace.setSpan(otel().ROOT_CONTEXT, this.call);
  }

  /** Feeds one session event (subscribe it to `session.events$`). */
  onEvent(e: SessionEvent): void {
    if (this.ended) return;
    const at = this.now();
    if (this.awaiting && e.type !== 'metrics' && e.type !== 'line_metrics') this.finish(undefined);
    switch (e.type) {
      case 'transcript':
        this.nextTurnAt ??= at;
        break;
      case 'user_turn':
        this.userTurn(at, e.source ?? 'speech', e.turn);
        break;
      case 'reply_started':
        this.replyStarted(at, e.reply, e.turn);
        if (e.line) this.replies.get(e.reply)?.span.setAttribute('hiwar.reply.line', e.line);
        break;
      case 'agent_chunk':
        this.chunk(at, e.text.length, e.reply);
        break;
      case 'state':
        if (e.state === 'speaking') this.speaking(at);
        break;
      case 'tool_started':
        this.toolStarts.set(toolKey(e.reply, e.callId || e.name), at);
        break;
      case 'tool':
        this.tool(at, e.outcome.call.name, e.outcome.call.id, e.outcome.ms, !!e.outcome.error, !!e.outcome.threw, e.reply);
        break;
      case 'agent_turn': {
        const reply = this.replyOf(e.reply);
        if (!reply) break;
        this.replies.delete(reply.id);
        // A fixed line known only once said (the apology after a model failure) is named then.
        if (e.line) reply.span.setAttribute('hiwar.reply.line', e.line);
        // Its metrics come in the next event, before anything else: `metrics` for a caller
        // turn's reply, `line_metrics` for a line (an older session's line has none: it ends then).
        this.awaiting = { reply, at, e };
        break;
      }
      case 'reply_dropped': {
        // Cut before a word was heard (the call went out of service): its span ends, marked.
        const reply = this.replies.get(e.reply);
        if (!reply) break;
        this.replies.delete(e.reply);
        reply.span.setAttribute('hiwar.reply.dropped', true);
        this.endReply(reply, at, undefined, undefined);
        break;
      }
      case 'metrics':
      case 'line_metrics':
        this.finish(e.metrics);
        break;
      case 'interruption': {
        const playing = this.playing();
        (playing?.playout ?? playing?.span ?? this.call).addEvent(`interruption.${e.kind}`, at);
        break;
      }
      case 'reconnect':
        this.reconnected(at, e.phase, e.attempt);
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
      case 'tool_late':
        // On the call: the tool's reply is usually over by then.
        this.call.addEvent('tool.late', { 'hiwar.tool.name': e.name, 'hiwar.tool.late_ms': e.lateMs, 'hiwar.tool.late_reason': e.reason, 'hiwar.tool.error': e.failed }, at);
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

  private userTurn(at: number, source: string, number: number | undefined): void {
    this.turns++;
    // A turn still waiting for its reply when the next one comes was dropped or taken by a task.
    for (const [n, waiting] of this.pendingTurns) {
      waiting.end(at);
      this.pendingTurns.delete(n);
    }
    const turn = this.tracer.startSpan('hiwar.turn', { startTime: Math.min(this.nextTurnAt ?? at, at), attributes: { 'hiwar.turn.index': this.turns, 'hiwar.turn.source': source } }, this.callCtx);
    this.nextTurnAt = undefined;
    this.pendingTurns.set(number ?? this.turns, turn);
  }

  private replyStarted(at: number, id: number, turnNumber: number | undefined): void {
    const turn = turnNumber !== undefined ? this.pendingTurns.get(turnNumber) : undefined;
    if (turnNumber !== undefined) this.pendingTurns.delete(turnNumber);
    const reply = this.openReply(at, id, turn ? otel().trace.setSpan(otel().ROOT_CONTEXT, turn) : this.callCtx, turn ? 'turn' : 'line');
    if (!turn) return;
    reply.turn = turn;
    // A reply to a caller turn asks the model: its request starts with the reply.
    reply.llm = this.tracer.startSpan('hiwar.llm', { startTime: at }, reply.ctx);
  }

  private openReply(at: number, id: number, parent: Context, kind: 'turn' | 'line'): Reply {
    const span = this.tracer.startSpan('hiwar.reply', { startTime: at, attributes: { 'hiwar.reply.kind': kind, ...(this.agent ? { 'hiwar.agent': this.agent } : {}) } }, parent);
    const reply: Reply = { id, span, ctx: otel().trace.setSpan(otel().ROOT_CONTEXT, span), start: at, chunks: [], modelUntil: at };
    this.replies.set(id, reply);
    return reply;
  }

  /** The reply an event names; without a number (an older session), the one playing. */
  private replyOf(id: number | undefined): Reply | undefined {
    return id !== undefined ? this.replies.get(id) : this.playing();
  }

  /** The reply begun last and not ended: the one the caller hears (a task's line plays inside the reply whose tool runs the task). */
  private playing(): Reply | undefined {
    return [...this.replies.values()].at(-1);
  }

  /** The reply a chunk or tool belongs to; one not begun (an older session's fixed line) is opened here. */
  private running(at: number, id: number | undefined): Reply {
    return this.replyOf(id) ?? this.openReply(at, id ?? -++this.unnumbered, this.callCtx, 'line');
  }

  private chunk(at: number, chars: number, id: number | undefined): void {
    const reply = this.running(at, id);
    reply.modelUntil = at;
    const span = this.tracer.startSpan('hiwar.tts', { startTime: at, attributes: { 'hiwar.tts.chunk': reply.chunks.length, 'hiwar.tts.chars': chars } }, reply.ctx);
    reply.chunks.push({ span, start: at });
  }

  private speaking(at: number): void {
    const reply = this.playing();
    if (reply && !reply.playout) reply.playout = this.tracer.startSpan('hiwar.playout', { startTime: at }, reply.ctx);
  }

  private tool(at: number, name: string, callId: string, ms: number, error: boolean, threw: boolean, id: number | undefined): void {
    const reply = this.replyOf(id);
    const key = toolKey(id, callId || name);
    const started = this.toolStarts.get(key);
    this.toolStarts.delete(key);
    // From its `tool_started`, on the call's clock; else (an older session) back from its duration,
    // which is wall time: on a faster clock it is clamped inside its reply.
    const start = started ?? Math.max(reply?.start ?? 0, at - ms);
    const span = this.tracer.startSpan('hiwar.tool', { startTime: start, attributes: { 'hiwar.tool.name': name, 'hiwar.tool.ms': ms, 'hiwar.tool.error': error } }, reply?.ctx ?? this.callCtx);
    if (threw || error) span.setStatus({ code: otel().SpanStatusCode.ERROR, message: threw ? 'the tool threw' : 'the tool call was refused' });
    span.end(at);
    if (reply) reply.modelUntil = at;
  }

  private reconnected(at: number, phase: 'reconnecting' | 'reconnected', attempt: number | undefined): void {
    if (phase === 'reconnecting') {
      this.reconnect ??= this.tracer.startSpan('hiwar.reconnect', { startTime: at, attributes: { 'hiwar.reconnect.service': 'stt' } }, this.callCtx);
      if (attempt !== undefined) this.reconnect.setAttribute('hiwar.reconnect.attempt', attempt);
    } else if (this.reconnect) {
      this.reconnect.end(at);
      this.reconnect = undefined;
    }
  }

  private failure(at: number, e: Extract<SessionEvent, { type: 'error' }>): void {
    const attributes: Attributes = { 'hiwar.failure.source': e.source, 'hiwar.failure.kind': e.kind, 'hiwar.failure.fatal': e.fatal, ...(e.tool ? { 'hiwar.failure.tool': e.tool } : {}), ...(e.task ? { 'hiwar.failure.task': e.task } : {}) };
    const span = this.tracer.startSpan('hiwar.failure', { startTime: at, attributes }, this.playing()?.ctx ?? this.callCtx);
    span.setStatus({ code: otel().SpanStatusCode.ERROR, message: e.message });
    span.end(at);
    // The model's request that failed is red itself, as a tool that threw is: the reply asking it now.
    const asking = e.source === 'llm' ? [...this.replies.values()].reverse().find((r) => r.llm) : undefined;
    if (asking?.llm) {
      asking.llm.setStatus({ code: otel().SpanStatusCode.ERROR, message: e.message });
      asking.llm.setAttribute('hiwar.llm.error', e.kind);
      asking.llmFailed = true;
    }
    if (e.fatal) {
      this.call.setStatus({ code: otel().SpanStatusCode.ERROR, message: e.message });
      if (e.source === 'stt') this.endReconnect(at, 'recognition did not come back');
    }
  }

  private endReconnect(at: number, why: string): void {
    this.reconnect?.setStatus({ code: otel().SpanStatusCode.ERROR, message: why });
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
      if (m?.llmFirstTokenMs !== undefined && !r.llmFailed) {
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
      ...(m?.lineToVoiceMs !== undefined ? { 'hiwar.line_to_voice_ms': m.lineToVoiceMs } : {}),
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
    for (const r of this.replies.values()) this.endReply(r, at, undefined, undefined);
    this.replies.clear();
    for (const turn of this.pendingTurns.values()) turn.end(at);
    this.pendingTurns.clear();
    this.endReconnect(at, 'the call ended first');
    for (const span of this.tasks.values()) span.end(at);
    this.tasks.clear();
    this.ended = true;
    this.call.setAttributes({ 'hiwar.turns': this.turns, ...(reason ? { 'hiwar.call.end_reason': reason } : {}) });
    this.call.end(at);
  }
}

/** A tool call's key among the started ones: its reply and its id (its name when the model gave no id). */
function toolKey(reply: number | undefined, call: string): string {
  return `${reply ?? 0}:${call}`;
}

import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { SessionEvent, TurnMetrics } from '../session/events.ts';
import { FAILURE_KINDS } from '../session/failure.ts';
import type { CallOutcome } from './types.ts';

/**
 * Stages of a turn, as the session measures them (`TurnMetrics`), exported as one histogram. The
 * parts from `stt_final` to `playout_start` add up to `voice_to_voice`, as on the call review
 * page: without `llm_first_sentence` a dashboard's stack fell short of the total by the model's
 * first sentence (about a second per turn of a scripted call).
 */
const STAGES: [keyof TurnMetrics, string][] = [
  ['endOfSpeechToFinalMs', 'stt_final'],
  ['turnDecisionMs', 'turn_decision'],
  ['llmFirstTokenMs', 'llm_first_token'],
  ['llmFirstSentenceMs', 'llm_first_sentence'],
  ['ttsFirstAudioMs', 'tts_first_audio'],
  ['playoutStartMs', 'playout_start'],
  ['voiceToVoiceMs', 'voice_to_voice'],
  ['lineToVoiceMs', 'line_to_voice'],
];

/**
 * The server's Prometheus metrics (prom-client), fed from each call's session events. Labels are
 * small closed sets (provider, outcome, stage, turn, kind, status): never a call id or a caller number.
 */
export class ServerMetrics {
  readonly registry = new Registry();
  readonly activeCalls = new Gauge({ name: 'hiwar_active_calls', help: 'Calls in progress', labelNames: ['provider'], registers: [this.registry] });
  readonly calls = new Counter({ name: 'hiwar_calls_total', help: 'Calls ended, by outcome', labelNames: ['provider', 'outcome'], registers: [this.registry] });
  readonly turns = new Counter({ name: 'hiwar_turns_total', help: 'Agent replies to caller turns', labelNames: ['provider'], registers: [this.registry] });
  readonly stageSeconds = new Histogram({
    name: 'hiwar_turn_stage_seconds',
    help: 'Per-turn latency of each stage (from the session per-turn metrics), by kind of turn (spoken, keyed, line)',
    labelNames: ['stage', 'turn'],
    buckets: [0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5],
    registers: [this.registry],
  });
  readonly interruptions = new Counter({ name: 'hiwar_interruptions_total', help: 'Barge-ins, by kind (paused, resumed, confirmed)', labelNames: ['kind'], registers: [this.registry] });
  readonly errors = new Counter({
    name: 'hiwar_errors_total',
    help: 'Session errors, by source (stt, tts, llm, transport, agent: a tool, task or hook that threw), kind (auth, balance, rate, network, timeout, protocol, model, hook, tool, task) and fatality',
    labelNames: ['source', 'kind', 'fatal'],
    registers: [this.registry],
  });
  readonly amdDecisions = new Counter({ name: 'hiwar_amd_decisions_total', help: 'Answering-machine detection decisions, by class (human, machine-voicemail, machine-unavailable, uncertain)', labelNames: ['class'], registers: [this.registry] });
  readonly amdDecisionSeconds = new Histogram({
    name: 'hiwar_amd_decision_seconds',
    help: 'Time from the answer to the answering-machine decision, by class',
    labelNames: ['class'],
    buckets: [0.5, 1, 1.5, 2, 2.5, 3, 4, 6, 8, 10, 15, 20],
    registers: [this.registry],
  });
  readonly toolLateResults = new Counter({
    name: 'hiwar_tool_late_results_total',
    help: 'Tool calls given up (reason: timeout, abandoned) that answered after all; their answers were dropped',
    labelNames: ['reason'],
    registers: [this.registry],
  });
  readonly serviceErrors = new Counter({ name: 'hiwar_service_errors_total', help: 'Errors returned by the voice service, by HTTP status (unknown when none was given)', labelNames: ['status'], registers: [this.registry] });

  constructor(opts: { defaultMetrics?: boolean } = {}) {
    if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'hiwar_' });
  }

  /** Counts one session event of a call carried by `provider`. */
  observe(provider: string, e: SessionEvent): void {
    if (e.type === 'metrics' || e.type === 'line_metrics') {
      if (e.type === 'metrics') this.turns.inc({ provider });
      const turn = e.metrics.kind ?? (e.type === 'metrics' ? 'spoken' : 'line');
      for (const [key, stage] of STAGES) {
        const v = e.metrics[key];
        if (typeof v === 'number' && v >= 0) this.stageSeconds.observe({ stage, turn }, v / 1000);
      }
    } else if (e.type === 'interruption') this.interruptions.inc({ kind: e.kind });
    else if (e.type === 'tool_late') this.toolLateResults.inc({ reason: e.reason });
    else if (e.type === 'amd') {
      this.amdDecisions.inc({ class: e.decision.class });
      this.amdDecisionSeconds.observe({ class: e.decision.class }, e.decision.decisionMs / 1000);
    }
    else if (e.type === 'error') {
      this.errors.inc({ source: e.source, kind: errorKind(e.kind), fatal: String(e.fatal) });
      if (e.source === 'stt' || e.source === 'tts') this.serviceErrors.inc({ status: serviceStatus(e.message) });
    }
  }

  /** Counts a call that started on a provider. */
  callStarted(provider: string): void {
    this.activeCalls.inc({ provider });
  }

  /** Counts a call that ended, with its outcome. */
  callEnded(provider: string, outcome: CallOutcome): void {
    this.activeCalls.dec({ provider });
    this.calls.inc({ provider, outcome });
  }

  /** The metrics in Prometheus' text format. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/** An error event's kind as a label: one of `FAILURE_KINDS`, else `other` (an event made outside a session), so the set stays closed. */
function errorKind(kind: string): string {
  return (FAILURE_KINDS as readonly string[]).includes(kind) ? kind : 'other';
}

/** The HTTP status in a service error's message ("402 40201 /listen: …", a close code 40101), else 'unknown'. */
export function serviceStatus(message: string): string {
  const m = /\b([45]\d\d)(?:\d\d)?\b/.exec(message);
  return m ? m[1]! : 'unknown';
}

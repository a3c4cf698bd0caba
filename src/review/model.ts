import type { CallSummary } from '../analytics/summary.ts';
import type { CallReport, ReportTurn, TurnMetrics } from '../session/events.ts';
import { LATENCY_PARTS, type LatencyPart, type ReviewAnalytics, type ReviewLatency, type ReviewMarker, type ReviewModel, type ReviewTurn, type Waveform } from './types.ts';

/** What `buildReviewModel` reads: a call's report and its recording's waveform. */
export interface ReviewInput {
  report: CallReport;
  waveform: Waveform;
  /** Seconds of recording. */
  seconds: number;
  /** Where the call's time 0 lies on the recording: recording time = report time + offset. */
  offsetSeconds?: number;
  title?: string;
  outcome?: string;
  endedAt?: string;
  clockNote?: string;
  summary?: CallSummary;
}

/** Seconds a caller's word takes, to place a turn whose first word's time is unknown. */
const SECONDS_PER_WORD = 0.45;

/** The review page's model of one call: turns placed on the recording, heard vs meant, latency parts, markers. */
export function buildReviewModel(input: ReviewInput): ReviewModel {
  const { report } = input;
  const offset = input.offsetSeconds ?? 0;
  const seconds = Math.max(input.seconds, report.durationSeconds + offset, 0);
  const on = (t: number) => round(Math.min(Math.max(t + offset, 0), seconds));
  const turns = placeTurns(report.turns, on);
  const latencies = turns.flatMap((t) => (t.latency ? [t.latency.totalMs] : []));
  const markers: ReviewMarker[] = [
    ...(report.tools ?? []).map((t) => ({ kind: 'tool' as const, at: on(t.at), label: t.name, ...(t.error ? { failed: true } : {}) })),
    ...report.handoffs.map((h) => ({ kind: 'handoff' as const, at: on(h.at), label: `${h.from} → ${h.to}` })),
    ...report.tasks.map((t) => ({ kind: 'task' as const, at: on(t.at), label: t.name, ...(t.result.ok ? {} : { failed: true }) })),
  ].sort((a, b) => a.at - b.at);
  return {
    version: 1,
    title: input.title ?? report.agent,
    agent: report.agent,
    ended: report.ended,
    ...(input.outcome ? { outcome: input.outcome } : {}),
    ...(input.endedAt ? { endedAt: input.endedAt } : {}),
    ...(report.amd ? { amd: report.amd.class } : {}),
    seconds: round(seconds),
    waveform: input.waveform,
    turns,
    markers,
    ...(latencies.length ? { worstLatencyMs: Math.max(...latencies) } : {}),
    notices: report.notices,
    ...(input.clockNote ? { clockNote: input.clockNote } : {}),
    ...(input.summary ? { analytics: analyticsOf(input.summary) } : {}),
  };
}

/**
 * Each turn's span on the recording. A caller's turn runs from its first recognized word to its
 * last (else it ends when it was decided, and starts a few words' time before, never before the
 * turn ahead of it); an agent's from its first audio out to the end of its reply.
 */
export function placeTurns(turns: ReportTurn[], on: (reportSeconds: number) => number): ReviewTurn[] {
  let previousEnd = 0;
  return turns.map((t, index) => {
    let start: number;
    let end: number;
    if (t.role === 'user') {
      end = on(t.speechEndedAt ?? t.at);
      const words = t.text.split(/\s+/).filter(Boolean).length;
      start = t.startedAt !== undefined ? on(t.startedAt) : Math.max(previousEnd, round(end - Math.max(1, words) * SECONDS_PER_WORD));
    } else {
      end = on(t.at);
      start = t.startedAt !== undefined ? on(t.startedAt) : Math.min(previousEnd, end);
    }
    start = Math.min(start, end);
    previousEnd = Math.max(previousEnd, end);
    const turn: ReviewTurn = { index, role: t.role, start, end, text: t.text, interrupted: !!t.interrupted };
    if (t.role === 'agent') Object.assign(turn, heardSplit(t.text, t.heardText ?? t.text, !!t.interrupted));
    if (t.agent) turn.agent = t.agent;
    if (t.task) turn.task = t.task;
    if (t.role === 'agent' && t.line) turn.line = t.line;
    const latency = t.metrics ? latencyOf(t.metrics) : undefined;
    if (latency) turn.latency = latency;
    return turn;
  });
}

/**
 * What the caller heard of what the agent meant: the heard text is whole written words from the
 * start of the reply, so the unheard part is the rest. Heard text that is not the reply's
 * beginning (a reply rewritten since) is shown as is, and all of the reply as unheard.
 */
export function heardSplit(text: string, heard: string, interrupted: boolean): { heard: string; unheard?: string } {
  if (!interrupted) return { heard: text };
  const said = words(text);
  const got = words(heard);
  const prefix = got.every((w, i) => said[i] === w);
  if (!prefix) return { heard: heard.trim(), unheard: text.trim() };
  const rest = said.slice(got.length).join(' ');
  return rest ? { heard: got.join(' '), unheard: rest } : { heard: got.join(' ') };
}

const words = (s: string) => s.split(/\s+/).filter(Boolean);

/** A reply's latency parts from its turn metrics; undefined when none was measured. */
export function latencyOf(m: TurnMetrics): ReviewLatency | undefined {
  const model = m.llmFirstTokenMs === undefined && m.llmFirstSentenceMs === undefined ? undefined : (m.llmFirstTokenMs ?? 0) + (m.llmFirstSentenceMs ?? 0);
  const values: Record<LatencyPart, number | undefined> = {
    recognition: m.endOfSpeechToFinalMs,
    decision: m.turnDecisionMs,
    model,
    synthesis: m.ttsFirstAudioMs,
    playout: m.playoutStartMs,
  };
  const parts = LATENCY_PARTS.flatMap((part) => (values[part] === undefined ? [] : [{ part, ms: round(values[part]!) }]));
  if (!parts.length && m.voiceToVoiceMs === undefined) return undefined;
  return { totalMs: round(m.voiceToVoiceMs ?? parts.reduce((n, p) => n + p.ms, 0)), parts };
}

function analyticsOf(s: CallSummary): ReviewAnalytics {
  return {
    summary: s.summaryAr,
    ...(s.minutes ? { minutes: s.minutes } : {}),
    keywords: s.keywords,
    sentiment: s.sentiment,
    diarization: s.diarization,
    turns: s.turns.map((t) => ({ role: t.role, start: t.start, end: t.end, text: t.text, ...(t.sentiment ? { sentiment: t.sentiment.label } : {}) })),
  };
}

const round = (n: number) => Math.round(n * 1000) / 1000;

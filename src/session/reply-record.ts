/**
 * What a session keeps of its agent's replies: while one runs, its events (speaking, spoken
 * chunks, tool outcomes, model and voice failures); once it is over, the agent turn in the
 * report (with the turn's latency parts when it answered the caller), the agent's hook and the
 * `agent_turn` and `metrics` events.
 */
import { thrownBy } from '../llm/tools.ts';
import type { ReplyOutcome, ReplyStageEvent } from '../pipeline/reply.ts';
import type { Agent } from './agent.ts';
import type { SessionEvent, SessionState, TurnMetrics } from './events.ts';
import { classifyFailure, type Failure, type FailureSource } from './failure.ts';
import { guarded } from './guarded.ts';
import { Handoff } from './handoff.ts';
import type { Logger } from './logger.ts';
import { lineMetrics, turnMetrics } from './metrics.ts';
import { scriptedKind, type LaneRequest } from './reply-lane.ts';
import { reportedToolResult, type ReportBuilder } from './report.ts';

/** What the reply handlers need of their session. */
export interface ReplyRecordHost {
  report: ReportBuilder;
  log: Logger;
  emit(e: SessionEvent): void;
  setState(state: SessionState): void;
  fail(source: FailureSource, f: Failure, fatal: boolean, cause?: unknown): void;
  threw(hook: string, err: unknown): void;
  /** The code of tool `tool` threw: an `error` event of kind `tool`, and the call goes on. */
  toolThrew(tool: string, err: unknown): void;
  /** A tool returned a handoff: the call goes over to its agent once this reply is spoken. */
  handoff(h: Handoff): void;
}

/** Handles one event of reply number `reply` (0: the stage's own, outside any numbered reply). */
export function onReplyEvent(host: ReplyRecordHost, e: ReplyStageEvent, reply = 0): void {
  const id = reply ? { reply } : {};
  if (e.type === 'speaking') host.setState('speaking');
  else if (e.type === 'agent_chunk' || e.type === 'tool_started' || e.type === 'tool_late') host.emit({ ...e, ...id });
  else if (e.type === 'tool') {
    const kept = e.outcome.error || e.outcome.result instanceof Handoff ? {} : reportedToolResult(e.outcome.result);
    host.report.tool({ name: e.outcome.call.name, ms: e.outcome.ms, error: e.outcome.error, ...(e.outcome.threw ? { threw: true as const } : {}), ...kept });
    host.emit({ ...e, ...id });
    if (e.outcome.threw) host.toolThrew(e.outcome.call.name, thrownBy(e.outcome) ?? e.outcome.error);
    // A tool that returns a handoff hands the call over once this reply is spoken.
    if (e.outcome.result instanceof Handoff) host.handoff(e.outcome.result);
  } else if (e.type === 'llm_error') host.fail('llm', classifyFailure(e.error, 'llm'), false, e.error);
  else host.fail('tts', classifyFailure(e.error, 'tts'), false, e.error);
}

/** Records reply number `reply`, which is over: the report's agent turn, the agent's `onAgentTurn` hook, the events. */
export function recordReply(host: ReplyRecordHost, agent: Agent, req: LaneRequest & { task?: string }, r: ReplyOutcome, reply: number, startedAt: number): void {
  const turn = req.turn;
  const metrics: TurnMetrics = {
    interrupted: r.interrupted,
    ...(turn ? turnMetrics({ speechEnd: req.speechEndAt, finalAt: turn.finalAt, decidedAt: turn.decidedAt, ...r.times }, turn.endOfTurn, req.keyed) : lineMetrics(startedAt, r.times)),
    ...(turn && req.turnNumber ? { turn: req.turnNumber } : {}),
  };
  const { report } = host;
  // Not the model's words: its apology after a failure, or fixed text (the greeting, a `say`, a task's line).
  const line = r.line ?? scriptedKind(req);
  report.agent({ text: r.text, heardText: r.heard, interrupted: r.interrupted, startedAt: report.since(r.times.firstSent), agent: agent.name, task: req.task, ...(turn ? { metrics } : {}), ...(line ? { line } : {}) });
  guarded('onAgentTurn', () => agent.hooks?.onAgentTurn?.(r.text, r.heard, r.interrupted), host.threw);
  host.emit({ type: 'agent_turn', text: r.text, heardText: r.heard, interrupted: r.interrupted, reply, ...(r.line ? { line: r.line } : {}) });
  if (turn) {
    host.emit({ type: 'metrics', metrics, reply });
    host.log.info({ agent: agent.name, metrics }, 'turn');
  } else host.emit({ type: 'line_metrics', metrics, reply });
}

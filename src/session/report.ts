import type { Clock } from '../transport/clock.ts';
import type { CallReport, ReportHandoff, ReportTask, ReportTool, ReportTurn } from './events.ts';

/** The longest tool result, as JSON characters, a call report keeps (a report is sent whole to webhooks and stores). */
export const REPORT_TOOL_RESULT_MAX = 2000;

/** A tool's return value as the report keeps it: a JSON copy, or nothing when it is not JSON or too long. */
export function reportedToolResult(value: unknown): { result?: unknown } {
  if (value === undefined) return {};
  try {
    const json = JSON.stringify(value);
    return json !== undefined && json.length <= REPORT_TOOL_RESULT_MAX ? { result: JSON.parse(json) as unknown } : {};
  } catch {
    return {}; // a cycle or a BigInt: the model got its own rendering; the report keeps none
  }
}

/**
 * The call report, built in one place: every turn (with the agent that spoke it and the task it
 * belongs to), every handoff and task, the notices; `build` gives the finished report.
 */
export class ReportBuilder {
  private readonly turns: ReportTurn[] = [];
  private readonly handoffs: ReportHandoff[] = [];
  private readonly tasks: ReportTask[] = [];
  private readonly tools: ReportTool[] = [];
  readonly notices: string[] = [];
  private startedAt = 0;

  constructor(private readonly clock: Clock) {}

  /** The call starts now: `at` times count from here. */
  start(): void {
    this.startedAt = this.clock.now();
  }

  /** Seconds since the call started. */
  elapsed(): number {
    return Math.round(this.clock.now() - this.startedAt) / 1000;
  }

  /** Seconds since the call started at a clock time; undefined for an unknown (0 or undefined) time. */
  since(clockTime: number | undefined): number | undefined {
    return clockTime ? Math.max(0, Math.round(clockTime - this.startedAt)) / 1000 : undefined;
  }

  user(text: string, extra: Pick<ReportTurn, 'agent' | 'task' | 'startedAt' | 'speechEndedAt'> = {}): void {
    this.turns.push({ role: 'user', text, at: this.elapsed(), ...defined(extra) });
  }

  agent(turn: Omit<ReportTurn, 'role' | 'at'>): void {
    this.turns.push({ role: 'agent', ...defined(turn), at: this.elapsed() });
  }

  handoff(h: Omit<ReportHandoff, 'at'>): void {
    this.handoffs.push({ ...h, at: this.elapsed() });
  }

  /** A tool returned now. */
  tool(t: Omit<ReportTool, 'at'>): void {
    this.tools.push({ ...defined(t), at: this.elapsed() });
  }

  task(t: Omit<ReportTask, 'endedAt'>): void {
    this.tasks.push({ ...t, endedAt: this.elapsed() });
  }

  build(head: { agent: string; llm: string; ended: string }): CallReport {
    return { ...head, handoffs: this.handoffs, tasks: this.tasks, tools: this.tools, turns: this.turns, durationSeconds: this.elapsed(), notices: this.notices, startClock: this.startedAt };
  }
}

/** The object without its undefined fields (a report stays as small as what happened). */
function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

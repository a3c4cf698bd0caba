import { controlWith, type SessionControl } from '../session/control.ts';
import type { Tool } from './types.ts';

/** A line said once while slow tools work, and after how long. */
export interface ToolFiller {
  /** What the caller hears while the tool works. */
  line?: string;
  /** Real milliseconds the tools of one model turn may take before the line is said. */
  afterMs?: number;
}

/** The defaults of the tool filler, in one place (an agent's `toolFiller` and a tool's `filler` override them). */
export const TOOL_FILLER_DEFAULTS = {
  line: 'لحظة من فضلك، أتحقق من ذلك.',
  afterMs: 1500,
} satisfies Required<ToolFiller>;

/**
 * The filler for one model turn's tool calls: the first called tool's own `filler`, else the
 * agent's, over the defaults; none when the agent's or every called tool's is `false`.
 */
export function fillerFor(calls: { name: string }[], tools: Tool[], agent: ToolFiller | false | undefined): Required<ToolFiller> | undefined {
  if (agent === false) return undefined;
  const own = calls.map((c) => tools.find((t) => t.name === c.name)?.filler);
  if (own.length && own.every((f) => f === false)) return undefined;
  const tool = own.find((f): f is ToolFiller => !!f);
  return { ...TOOL_FILLER_DEFAULTS, ...agent, ...tool };
}

/** Resolves `true` if `work` is still running after `ms`, `false` if it settled first. */
export function stillRunningAfter(work: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(true), ms);
    timer.unref?.();
    const settled = () => {
      clearTimeout(timer);
      resolve(false);
    };
    work.then(settled, settled);
  });
}

/** `session` as the tools of one model turn see it, calling `started` with each task one of them runs. */
export function noticingTasks(session: SessionControl, started: (task: Promise<unknown>) => void): SessionControl {
  return controlWith(session, {
    runTask: (task) => {
      const run = session.runTask(task);
      started(run);
      return run;
    },
  });
}

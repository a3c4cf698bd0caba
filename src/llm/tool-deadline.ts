import { stillRunningAfter } from './tool-filler.ts';
import type { Tool } from './types.ts';

/** The defaults of a tool call's deadline, in one place (a tool's own `timeoutMs` overrides them). */
export const TOOL_RUN_DEFAULTS = {
  /**
   * Real milliseconds the tools of one model turn may work, leaving out the time a task they run
   * talks with the caller, before the ones still running are given up as timed out: the model
   * (or the scripted intent's error line) then answers the failure, where a backend that never
   * answered held the caller in silence after the filler line.
   */
  timeoutMs: 30_000,
} as const;

/** Why the tools of a model turn were given up: they worked past their deadline. */
export class ToolTimeoutError extends Error {
  override readonly name = 'ToolTimeoutError';
  constructor(readonly ms: number) {
    super(`timed out: the tool did not answer within ${ms} ms (timeoutMs)`);
  }
}

/** The deadline of one model turn's calls: the longest of the called tools' `timeoutMs`; none when one of them has `false`. */
export function deadlineFor(calls: { name: string }[], tools: Tool[]): number | undefined {
  const own = calls.map((c) => tools.find((t) => t.name === c.name)?.timeoutMs ?? TOOL_RUN_DEFAULTS.timeoutMs);
  return own.includes(false) ? undefined : Math.max(...(own as number[]));
}

/**
 * Calls `expire` once `running` has worked `ms` outside the tasks it runs: the wait starts again
 * when a task started (`tasks()`, a count of them) is over, as the filler's does.
 */
export async function watchDeadline(running: Promise<unknown>, ms: number, tasks: () => { started: number; current?: Promise<unknown> }, expire: () => void): Promise<void> {
  let done = false;
  void running.then(
    () => (done = true),
    () => (done = true),
  );
  for (;;) {
    const current = tasks().current;
    if (current) await Promise.race([current, running]).catch(() => {});
    if (done) return;
    const seen = tasks().started;
    if (!(await stillRunningAfter(running, ms))) return;
    if (tasks().started === seen && !tasks().current) return expire();
  }
}

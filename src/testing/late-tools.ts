/**
 * A test call's tools given up (past their `timeoutMs`, or with their reply cut off) that were
 * still running when the call ended: their late answer comes on `AgentSession.afterEnd$`
 * (`tool_late` with `afterEnd: true`), after `events$` completed. A test call collects it in its
 * events, waiting for it a bounded time after the call so that a tool that never answers holds
 * no test up for longer.
 */
import { ABANDONED_TOOL_ERROR, thrownBy, type ToolOutcome } from '../llm/tools.ts';
import { ToolTimeoutError } from '../llm/tool-deadline.ts';
import type { AgentSession } from '../session/agent-session.ts';
import type { SessionEvent } from '../session/events.ts';

const givenUp = (o: ToolOutcome) => o.error === ABANDONED_TOOL_ERROR || thrownBy(o) instanceof ToolTimeoutError;

/**
 * Follows `session`'s tools: pushes each late answer told after the call onto `events` (and
 * `onEvent`). `settle(waitMs)` resolves once every tool given up has answered, or `waitMs`
 * (real milliseconds, as tools' deadlines) after it was called, and stops collecting.
 */
export function followLateTools(session: AgentSession, events: SessionEvent[], onEvent?: (e: SessionEvent) => void): { settle(waitMs: number): Promise<void> } {
  /** The model's ids of the tools given up and not answered yet. */
  const waiting = new Set<string>();
  let wake: (() => void) | undefined;
  session.events$.subscribe((e) => {
    if (e.type === 'tool' && givenUp(e.outcome)) waiting.add(e.outcome.call.id);
    if (e.type === 'tool_late' && e.callId) waiting.delete(e.callId);
  });
  const after = session.afterEnd$.subscribe((e) => {
    events.push(e);
    onEvent?.(e);
    if (e.callId) waiting.delete(e.callId);
    if (waiting.size === 0) wake?.();
  });
  return {
    // Once settled, nothing more is added: the result a test holds no longer changes under it.
    settle: async (waitMs) => {
      if (waiting.size > 0 && waitMs > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => resolve(), waitMs);
          wake = () => (clearTimeout(timer), resolve());
        });
      }
      after.unsubscribe();
    },
  };
}

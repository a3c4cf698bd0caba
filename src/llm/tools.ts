import { ToolTimeoutError } from './tool-deadline.ts';
import type { ChatMessage, Tool, ToolCall, ToolContext } from './types.ts';

/** A tool call and what it returned (or the error it threw). */
export interface ToolOutcome {
  call: ToolCall;
  result: unknown;
  error?: string;
  /** The tool's own code threw (not a refused call): the session reports it as the agent's error. */
  threw?: boolean;
  ms: number;
}

/**
 * The error of a tool call still running when its reply was cut off (a barge-in, the call's end):
 * the reply goes on without it, so a tool that never settles, or ignores `ctx.signal`, cannot hold
 * the call in silence. What it returns or throws later is dropped.
 */
export const ABANDONED_TOOL_ERROR = 'abandoned: the reply was cut off while the tool still ran (it did not stop on ctx.signal)';

/**
 * A given-up call's tool that answered after all (its result or error is dropped): told so a
 * backend that answers too late can be seen. `lateMs`: real milliseconds after it was given up;
 * `reason`: past its deadline (`timeout`) or with its reply cut off (`abandoned`); `failed`: it threw.
 */
export interface LateToolResult {
  call: ToolCall;
  lateMs: number;
  reason: 'timeout' | 'abandoned';
  failed: boolean;
}

/** What each tool that threw threw, for the session (not on the outcome: events carry outcomes as data). */
const thrown = new WeakMap<ToolOutcome, unknown>();

/** The error the tool of `outcome` threw (`threw: true`), as thrown. */
export function thrownBy(outcome: ToolOutcome): unknown {
  return thrown.get(outcome);
}

/**
 * Runs the calls of one model turn. They are independent by construction (the model asked for
 * them together), so they run in parallel. Bad arguments and thrown errors become results the
 * model can read; they never end the call.
 */
export async function runTools(calls: ToolCall[], tools: Tool[], ctx: ToolContext, onLate?: (late: LateToolResult) => void): Promise<ToolOutcome[]> {
  return Promise.all(
    calls.map(async (call): Promise<ToolOutcome> => {
      const started = Date.now();
      const tool = tools.find((t) => t.name === call.name);
      if (!tool) return { call, result: null, error: `unknown tool ${call.name}`, ms: 0 };
      let args: unknown;
      try {
        args = call.arguments ? JSON.parse(call.arguments) : {};
      } catch {
        return { call, result: null, error: 'arguments are not valid JSON', ms: 0 };
      }
      const parsed = tool.parameters.safeParse(args);
      if (!parsed.success) return { call, result: null, error: `invalid arguments: ${parsed.error.issues[0]?.message}`, ms: 0 };
      try {
        const work = Promise.resolve(tool.execute(parsed.data, ctx));
        const result = await unlessAborted(work, ctx.signal);
        if (result === abandoned) {
          const at = Date.now();
          const reason = ctx.signal.reason instanceof ToolTimeoutError ? 'timeout' : 'abandoned';
          const tell = (failed: boolean) => onLate?.({ call, lateMs: Date.now() - at, reason, failed });
          if (onLate) void work.then(() => tell(false), () => tell(true));
          return givenUp(call, ctx.signal.reason, at - started);
        }
        return { call, result, ms: Date.now() - started };
      } catch (err) {
        const outcome: ToolOutcome = { call, result: null, error: (err as Error)?.message ?? String(err), threw: true, ms: Date.now() - started };
        thrown.set(outcome, err);
        return outcome;
      }
    }),
  );
}

const abandoned = Symbol('abandoned');

/** The outcome of a call still running when its signal aborted: timed out (the tool's failure, reported as one that threw), or abandoned with its reply. */
function givenUp(call: ToolCall, reason: unknown, ms: number): ToolOutcome {
  if (!(reason instanceof ToolTimeoutError)) return { call, result: null, error: ABANDONED_TOOL_ERROR, ms };
  const outcome: ToolOutcome = { call, result: null, error: reason.message, threw: true, ms };
  thrown.set(outcome, reason);
  return outcome;
}

/** `work`'s value, or `abandoned` once `signal` aborts first (a later rejection of `work` is handled here). */
function unlessAborted<T>(work: T | PromiseLike<T>, signal: AbortSignal): Promise<T | typeof abandoned> {
  const settled = Promise.resolve(work);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(abandoned);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    void settled.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** The arguments of `call` as the model gave them, parsed: `undefined` when they are not JSON (none: `{}`). */
export function parsedArguments(call: ToolCall): unknown {
  try {
    return call.arguments ? JSON.parse(call.arguments) : {};
  } catch {
    return undefined;
  }
}

/** Tool outcomes as `tool` chat messages, to send back to the model. */
export function toolMessages(outcomes: ToolOutcome[]): ChatMessage[] {
  return outcomes.map((o) => ({
    role: 'tool' as const,
    tool_call_id: o.call.id,
    name: o.call.name,
    content: JSON.stringify(o.error ? { error: o.error } : o.result),
    ...(o.error ? { failed: true as const } : {}),
  }));
}

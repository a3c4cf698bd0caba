import { runTools, toolMessages, type LateToolResult, type ToolOutcome } from './tools.ts';
import type { CallControl } from '../transport/types.ts';
import { fillerFor, noticingTasks, stillRunningAfter, type ToolFiller } from './tool-filler.ts';
import { deadlineFor, ToolTimeoutError, watchDeadline } from './tool-deadline.ts';
import type { ChatMessage, Llm, Tool, ToolContext } from './types.ts';

/** What a reply streams: text, a tool starting or finishing, the end of the reply. */
export type ReplyEvent =
  | { type: 'text'; delta: string }
  | { type: 'tool_started'; name: string; arguments: string; id: string }
  | { type: 'tool_finished'; outcome: ToolOutcome }
  /** The tools of this turn are still working after the filler's time: say `line` while they do. */
  | { type: 'tool_slow'; line: string }
  | { type: 'messages'; added: ChatMessage[] };

/** The model still called tools after `maxRounds` rounds of them in one reply: it produced no answer. */
export class ToolRoundsExceeded extends Error {
  override readonly name = 'ToolRoundsExceeded';
  constructor(
    readonly maxRounds: number,
    readonly tools: string[],
  ) {
    super(`the model asked for tools (${tools.join(', ')}) after ${maxRounds} rounds of them in one reply; they were refused (maxToolRounds)`);
  }
}

/** Options of `streamReply`: the model, the tools and the limits of one reply. */
export interface StreamReplyOptions {
  /**
   * Model calls with tools, at most, in one reply.
   * @default 3
   */
  maxRounds?: number;
  /** Given to tools as `ctx.call`. */
  call?: CallControl;
  /** Given to tools as `ctx.session`. */
  session?: ToolContext['session'];
  /** The agent's tool filler (see TOOL_FILLER_DEFAULTS); `false`: none. */
  toolFiller?: ToolFiller | false;
  /** Told when a tool given up (timed out, abandoned) answers after all, once this reply may be over. */
  onLateResult?: (late: LateToolResult) => void;
}

/**
 * One assistant reply: streams text, and when the model calls tools, runs them and asks
 * again (at most `maxRounds` times). The messages the tool rounds add are reported so the
 * caller's history can keep them.
 */
export async function* streamReply(
  llm: Llm,
  messages: ChatMessage[],
  tools: Tool[],
  signal: AbortSignal,
  { maxRounds = 3, call, session, toolFiller, onLateResult }: StreamReplyOptions = {},
): AsyncGenerator<ReplyEvent> {
  const working = [...messages];
  for (let round = 0; round <= maxRounds; round++) {
    let calls: Parameters<typeof runTools>[0] | undefined;
    for await (const e of llm.stream({ messages: working, tools, signal })) {
      if (signal.aborted) return;
      if (e.type === 'text') yield e;
      else calls = e.calls;
    }
    if (!calls?.length) return;
    if (round === maxRounds) {
      // Over the reply's tool rounds: the calls are refused, not dropped unseen. They are reported
      // as failed (the report, the history's tool messages), and the model's failure to answer
      // says the recovery line (the caller heard an empty reply).
      const refused = calls.map((call) => ({ call, result: null, error: `refused: the model asked for tools more than ${maxRounds} times in one reply (maxToolRounds)`, ms: 0 }));
      for (const o of refused) yield { type: 'tool_finished', outcome: o };
      yield { type: 'messages', added: [{ role: 'assistant', content: '', tool_calls: calls }, ...toolMessages(refused)] };
      throw new ToolRoundsExceeded(maxRounds, calls.map((c) => c.name));
    }
    for (const c of calls) yield { type: 'tool_started', name: c.name, arguments: c.arguments, id: c.id };
    // A tool that runs a task talks with the caller meanwhile: no filler then ("one moment, I'm
    // checking" said right after the task's question, while the caller was to answer it). Once
    // the task is over, the tool's own work counts again: a lookup of the value just collected.
    let task: Promise<unknown> | undefined;
    let tasksStarted = 0;
    const toolSession =
      session &&
      noticingTasks(session, (run) => {
        tasksStarted++;
        task = run.then(() => (task = undefined), () => (task = undefined));
      });
    // The tools' own signal: the reply's, or their deadline (TOOL_RUN_DEFAULTS), which gives up
    // the ones still running as timed out, so a backend that never answers is a failure answered.
    const tooling = new AbortController();
    const cutOff = () => tooling.abort(signal.reason);
    if (signal.aborted) cutOff();
    else signal.addEventListener('abort', cutOff, { once: true });
    const running = runTools(calls, tools, { signal: tooling.signal, ...(call ? { call } : {}), ...(toolSession ? { session: toolSession } : {}) }, onLateResult);
    const deadline = deadlineFor(calls, tools);
    if (deadline !== undefined) void watchDeadline(running, deadline, () => ({ started: tasksStarted, current: task }), () => tooling.abort(new ToolTimeoutError(deadline)));
    // A slow tool: the caller hears the filler line once while it works, not silence.
    const filler = fillerFor(calls, tools, toolFiller);
    while (filler && (await stillRunningAfter(running, filler.afterMs)) && !signal.aborted) {
      if (!task) {
        yield { type: 'tool_slow', line: filler.line };
        break;
      }
      // The caller is answering a task: the wait starts again once it is over.
      await Promise.race([task, running]);
    }
    const outcomes = await running;
    signal.removeEventListener('abort', cutOff);
    for (const o of outcomes) yield { type: 'tool_finished', outcome: o };
    const added: ChatMessage[] = [{ role: 'assistant', content: '', tool_calls: calls }, ...toolMessages(outcomes)];
    working.push(...added);
    yield { type: 'messages', added };
  }
}

import type { z } from 'zod';
import type { CallControl } from '../transport/types.ts';
import type { SessionControl } from '../session/control.ts';
import type { ToolFiller } from './tool-filler.ts';

/** The LLM contract of hiwar: chat messages in, streamed text and tool calls out. */
export interface ToolCall {
  id: string;
  name: string;
  /** JSON text, as models produce it. */
  arguments: string;
}

/** One message of a chat: system, user, assistant (with its tool calls) or a tool's result. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; tool_calls?: ToolCall[]; interrupted?: boolean }
  /** `failed`: the tool gave no result (it threw, or its call was refused: an unknown tool, bad arguments); `content` is `{ error }`. */
  | { role: 'tool'; tool_call_id: string; name: string; content: string; failed?: true };

/** What a tool's `execute` gets besides its arguments: the abort signal and the call. */
export interface ToolContext {
  /** Aborts when the reply the tool runs for is cut off (barge-in, a newer turn, the end of the call). */
  signal: AbortSignal;
  /** The call the tool runs in (hang up, transfer, DTMF, call metadata); absent outside a call. */
  call?: CallControl;
  /** The conversation the tool runs in (say a line, ask the model, hand off, run a task); absent outside a call. */
  session?: SessionControl;
}

/** A function the model may call: a name, a description for the model, a zod schema and the code to run. */
export interface Tool<S extends z.ZodType = z.ZodType, R = unknown> {
  name: string;
  description: string;
  parameters: S;
  /** Runs the tool with arguments already checked against `parameters`; what it returns (`R`) goes to the model. */
  execute(args: z.infer<S>, ctx: ToolContext): Promise<R> | R;
  /**
   * The line said once while this tool works longer than `afterMs` (over the agent's
   * `toolFiller` and TOOL_FILLER_DEFAULTS); `false`: never for this tool.
   */
  filler?: ToolFiller | false;
  /**
   * Real milliseconds this tool may work (the time a task it runs talks with the caller left out)
   * before it is given up as timed out; `false`: no limit.
   * @default TOOL_RUN_DEFAULTS.timeoutMs
   */
  timeoutMs?: number | false;
}

/** What a model streams: a text delta, or the tool calls it wants made. */
export type LlmEvent = { type: 'text'; delta: string } | { type: 'tool_calls'; calls: ToolCall[] };

/** One request to a model: the chat so far, the tools it may call, and an abort signal. */
export interface LlmRequest {
  messages: ChatMessage[];
  tools: Tool[];
  signal: AbortSignal;
}

/** A chat model hiwar can talk to (`OpenAiLlm`, `ScriptedLlm`, or your own). */
export interface Llm {
  readonly name: string;
  /** Streams the model's answer to one request. */
  stream(req: LlmRequest): AsyncIterable<LlmEvent>;
  /**
   * Asks the model's server something that spends no tokens (`OpenAiLlm`: `GET {baseURL}/models`),
   * for the server's `/readyz`; rejects as `stream` does (a refused key, no connection, a timeout).
   * Optional: a model without it (`ScriptedLlm`) is not probed.
   */
  probe?(o: { timeoutMs: number }): Promise<unknown>;
  /**
   * What `probe` asks, for the server's `/readyz`: `name`, its address as it may be shown (no
   * credential), and `key`, the same for two models whose probes ask the same thing (the same
   * address, key and headers), probed once however many agents use them. Without it, each model
   * object is its own endpoint.
   */
  probeTarget?(): { name: string; key: string };
}

/** Where a `DefinedTool` keeps its types: on no value, for the compiler only. */
declare const toolTypes: unique symbol;

/**
 * A tool as `defineTool` gives it: a `Tool` (it goes into any agent's `tools`) that still knows
 * what its `execute` returns (`R`) and the arguments it takes (`A`), for `defineIntent`'s `reply`
 * and `args`.
 */
export type DefinedTool<R = unknown, A = unknown> = Tool & { readonly [toolTypes]?: { result: R; args: A } };

/** What a tool made by `defineTool` returns (its `execute`'s value, awaited). */
export type ToolResult<T extends DefinedTool> = NonNullable<T[typeof toolTypes]>['result'];

/** The arguments a tool made by `defineTool` takes (its `parameters`' input). */
export type ToolArgs<T extends DefinedTool> = NonNullable<T[typeof toolTypes]>['args'];

/**
 * A tool with its schema type kept, for agent definitions; its result's type is kept for an
 * intent that calls it (`defineIntent`).
 *
 * @example
 * const getBalance = defineTool({
 *   name: 'get_balance', description: 'The balance of an account',
 *   parameters: z.object({ account: z.string() }),
 *   execute: ({ account }) => ({ account, balance: 12500 }),
 * });
 */
export function defineTool<S extends z.ZodType, R = unknown>(tool: Tool<S, R>): DefinedTool<Awaited<R>, z.input<S>> {
  return tool as unknown as DefinedTool<Awaited<R>, z.input<S>>;
}

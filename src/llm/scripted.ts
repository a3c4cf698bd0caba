import { setTimeout as sleep } from 'node:timers/promises';
import { normalizeForMatch } from '../text/match.ts';
import { MODEL_ERROR_LINE } from './recovery-line.ts';
import type { ChatMessage, DefinedTool, Llm, LlmEvent, LlmRequest, ToolArgs, ToolResult } from './types.ts';

/**
 * What an agent does when it hears something like one of `examples`: say `reply`, or first
 * call `tool` and then say `reply(result)`.
 */
export interface Intent {
  name: string;
  /** Arabic phrases; matched after normalization (no diacritics, unified letters). */
  examples: string[];
  /**
   * What the agent says: a fixed line, or a line made from the tool's result and the caller's
   * words (`unknown` here: `defineIntent` types it as what the tool returns).
   */
  reply: string | ((result: unknown, userText: string) => string);
  tool?: {
    name: string;
    /** The tool's arguments, made from the caller's words. */
    args?: (userText: string) => Record<string, unknown>;
  };
  /**
   * Said instead of `reply` when the tool failed (threw, or its call was refused): `reply` is
   * never handed a failed tool's `{ error }`.
   * @default the scripted model's `toolErrorLine` (the agent's `modelErrorLine`)
   */
  toolErrorLine?: string;
}

/** What `defineIntent` takes besides the tool: the intent, with the tool's own types for `args` and `reply`. */
export interface IntentOf<R, A> {
  name: string;
  /** Arabic phrases; matched after normalization (no diacritics, unified letters). */
  examples: string[];
  /** The tool's arguments (its `parameters`' input), made from the caller's words. */
  args?: (userText: string) => A;
  /**
   * What the agent says: a fixed line, or a line made from what the tool returned (as JSON carries
   * it, which for plain data is what `execute` returned) and the caller's words.
   */
  reply: string | ((result: R, userText: string) => string);
  /** Said instead of `reply` when the tool failed. @default the agent's `modelErrorLine` */
  toolErrorLine?: string;
}

/**
 * An intent that calls `tool` (made by `defineTool`) and then says `reply(result)`, with `result`
 * typed as what the tool returns and `args` checked against its parameters; `Intent`'s own
 * `reply` gets `unknown`, to be cast.
 *
 * @example
 * const balance = defineIntent(getBalance, {
 *   name: 'balance', examples: ['كم رصيدي'],
 *   reply: (r) => `رصيدك ${r.balance} ريال.`,
 * });
 */
export function defineIntent<T extends DefinedTool>(tool: T, intent: NoInfer<IntentOf<ToolResult<T>, ToolArgs<T>>>): Intent {
  const { args, reply, ...rest } = intent;
  const called = { name: tool.name, ...(args ? { args: args as (userText: string) => Record<string, unknown> } : {}) };
  return { ...rest, tool: called, reply: reply as Intent['reply'] };
}

/** Options of `ScriptedLlm`: the intents and the line said when none matches. */
export interface ScriptedOptions {
  intents: Intent[];
  /** Said when nothing matches. */
  fallback: string;
  /** Time per word, to behave like a model that streams. */
  tokenDelayMs?: number;
  /** Time before the first word. */
  firstTokenDelayMs?: number;
  /**
   * Said instead of an intent's `reply` when its tool failed (threw, or its call was refused),
   * unless the intent has a `toolErrorLine` of its own: a `reply` reads the result's fields, which
   * a failed tool does not give, and a fixed one would say the tool did what it did not. The
   * session gives the agent's `modelErrorLine`.
   * @default REPLY_DEFAULTS.modelErrorLine
   */
  toolErrorLine?: string;
}

type ToolMessage = Extract<ChatMessage, { role: 'tool' }>;

const words = (s: string) => normalizeForMatch(s).split(' ').filter(Boolean);

/** Share of an example's words found in the text (prefix "ال"/"و" tolerated). */
function overlap(text: string[], example: string[]): number {
  const strip = (w: string) => w.replace(/^(و|ف)?(ال)?/, '');
  const have = new Set(text.flatMap((w) => [w, strip(w)]));
  return example.filter((w) => have.has(w) || have.has(strip(w))).length / Math.max(1, example.length);
}

/** The intent whose examples share the most words with the text, or undefined when none is close enough. */
export function matchIntent(intents: Intent[], text: string): Intent | undefined {
  const t = words(text);
  let best: { intent: Intent; score: number } | undefined;
  for (const intent of intents) {
    for (const ex of intent.examples) {
      const score = overlap(t, words(ex));
      if (score >= 0.6 && (!best || score > best.score)) best = { intent, score };
    }
  }
  return best?.intent;
}

/**
 * An offline stand-in for a model, driven by the agent's own intents. It follows the same
 * contract as a real model, tool calls included, so the whole pipeline runs without one.
 */
export class ScriptedLlm implements Llm {
  readonly name = 'scripted';
  private calls = 0;
  constructor(private readonly opts: ScriptedOptions) {}

  /** Answers the last caller turn from the matching intent (a tool call first when the intent has one). */
  async *stream(req: LlmRequest): AsyncIterable<LlmEvent> {
    const last = req.messages.at(-1);
    const lastUser = [...req.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
    let text: string;
    if (last?.role === 'tool') {
      const intent = this.opts.intents.find((i) => i.tool?.name === last.name);
      text = intent ? this.render(intent, last, lastUser) : this.opts.fallback;
    } else {
      const intent = matchIntent(this.opts.intents, lastUser);
      // The intent's tool already ran for this caller turn (a reply asked for again: `generateReply`
      // from that tool): the answer is said again from its result, not the tool run again (the tool
      // would ask again, for ever). Another tool's round (a handoff) leaves the turn to answer.
      const since = req.messages.slice(req.messages.findLastIndex((m) => m.role === 'user') + 1);
      const earlier = intent?.tool && since.findLast((m): m is ToolMessage => m.role === 'tool' && m.name === intent.tool!.name);
      if (intent && earlier) {
        text = this.render(intent, earlier, lastUser);
      } else if (intent?.tool) {
        await sleep(this.opts.firstTokenDelayMs ?? 150, undefined, { signal: req.signal });
        const args = intent.tool.args?.(lastUser) ?? {};
        yield { type: 'tool_calls', calls: [{ id: `call_${++this.calls}`, name: intent.tool.name, arguments: JSON.stringify(args) }] };
        return;
      } else {
        text = intent ? say(intent, undefined, lastUser) : this.opts.fallback;
      }
    }
    await sleep(this.opts.firstTokenDelayMs ?? 150, undefined, { signal: req.signal });
    const pieces = text.split(/(?<=\s)/);
    for (const piece of pieces) {
      yield { type: 'text', delta: piece };
      await sleep(this.opts.tokenDelayMs ?? 30, undefined, { signal: req.signal });
    }
  }

  /** The intent's reply to its tool's `message`; never made from a failed tool's `{ error }`. */
  private render(intent: Intent, message: ToolMessage, userText: string): string {
    if (message.failed && intent.tool) return intent.toolErrorLine ?? this.opts.toolErrorLine ?? MODEL_ERROR_LINE;
    return say(intent, JSON.parse(message.content) as unknown, userText);
  }
}

function say(intent: Intent, result: unknown, userText: string): string {
  return typeof intent.reply === 'string' ? intent.reply : intent.reply(result, userText);
}


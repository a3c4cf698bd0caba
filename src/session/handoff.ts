import type { ChatMessage, Llm } from '../llm/types.ts';
import { runTimeSignal } from '../service/run-time.ts';
import type { Agent } from './agent.ts';
import { agentProblem } from './check-agent.ts';

/** What the next agent is told of the conversation so far. */
export type HandoffCarry = 'summary' | 'full' | 'none';

/** Options of `handoff`. */
export interface HandoffOptions {
  /**
   * `full`: the turns as the caller heard them; `summary`: a short summary of them (by the model
   * when one is configured, else a plain digest); `none`: nothing.
   * @default 'summary'
   */
  carry?: HandoffCarry;
}

/** The defaults of handoffs, in one place. */
export const HANDOFF_DEFAULTS = {
  carry: 'summary' as HandoffCarry,
  /** Caller and agent turns, at most, in a plain digest (the latest kept). */
  digestTurns: 12,
  /**
   * How long the model may take to write a summary before the plain digest is used (ms of the
   * process's run time: a summary that arrived while the process was starved of CPU is kept).
   */
  summaryTimeoutMs: 4000,
  /** What the model is asked to do with the conversation. */
  summaryPrompt:
    'Summarize this phone call between a caller and an agent in two or three short sentences, in the language of the call: who the caller is, what they want, and what was done so far. Plain text only.',
  /**
   * Offline, a handoff to an agent no `Agent.handoffs` lists teaches the recognizer its phrases
   * while the call goes on, its `onEnter` after them: past this much call time the next agent says
   * a short line (its `fillerLine`, else `teachingLine`: "one moment, please").
   */
  teachingLineAfterMs: 1000,
  teachingLine: 'لحظة من فضلك.',
} as const;

/** Marks a handoff whichever copy of hiwar made it (a global `hiwar` CLI running an agent that imports its own). */
const BRAND = Symbol.for('hiwar.handoff');

/** The call goes to another agent at the next reply: a tool returns this, or calls `ctx.session.handoff`. */
export class Handoff {
  readonly [BRAND] = true;

  constructor(
    readonly agent: Agent,
    readonly carry: HandoffCarry,
  ) {}

  /**
   * `x instanceof Handoff` holds for a handoff of another copy of this module too: by class
   * alone, a tool's returned handoff was taken for a plain result and the call stayed put.
   */
  static [Symbol.hasInstance](value: unknown): value is Handoff {
    return typeof value === 'object' && value !== null && (value as { [BRAND]?: unknown })[BRAND] === true;
  }

  /** What the model reads as the tool's result. */
  toJSON(): { handoff: string } {
    return { handoff: this.agent.name };
  }
}

/**
 * Hands the call to `next` at the next reply: return it from a tool's `execute` (or call
 * `ctx.session.handoff(next, opts)`). The next agent's instructions, tools, voice and turn
 * settings take over; its `hooks.onEnter` runs, the previous agent's `hooks.onExit` before it.
 */
export function handoff(next: Agent, opts: HandoffOptions = {}): Handoff {
  // The next agent is inside a tool's code, out of sight of the checks --agent and runCall make.
  const problem = agentProblem(next);
  if (problem) throw new TypeError(`handoff: the first argument is not an Agent (${problem})`);
  const carry = opts.carry ?? HANDOFF_DEFAULTS.carry;
  if (!['summary', 'full', 'none'].includes(carry)) throw new TypeError(`handoff: carry must be 'summary', 'full' or 'none', got ${String(carry)}`);
  return new Handoff(next, carry);
}

/** The caller's and the agents' spoken turns (tool rounds left out: the next agent has other tools). */
function spokenTurns(history: ChatMessage[]): ChatMessage[] {
  return history.filter((m) => (m.role === 'user' || m.role === 'assistant') && m.content && !('tool_calls' in m && m.tool_calls?.length));
}

/** The turns as plain lines: "المتصل: …" / "الموظف: …", the latest `HANDOFF_DEFAULTS.digestTurns`. */
export function digest(history: ChatMessage[]): string {
  return spokenTurns(history)
    .slice(-HANDOFF_DEFAULTS.digestTurns)
    .map((m) => `${m.role === 'user' ? 'المتصل' : 'الموظف'}: ${m.content}`)
    .join('\n');
}

/**
 * A short summary of the call so far: by `llm` when given (within `timeoutMs` of run time), else,
 * or when it fails, the plain digest of the turns.
 */
export async function summarize(
  history: ChatMessage[],
  llm: Llm | undefined,
  timeoutMs: number = HANDOFF_DEFAULTS.summaryTimeoutMs,
): Promise<string> {
  const plain = digest(history);
  if (!llm || !plain) return plain;
  // Run time: a summary the model wrote while this process stalled is read, not traded for the digest.
  const timeout = runTimeSignal(timeoutMs);
  const signal = timeout.signal;
  try {
    let text = '';
    const messages: ChatMessage[] = [
      { role: 'system', content: HANDOFF_DEFAULTS.summaryPrompt },
      { role: 'user', content: plain },
    ];
    for await (const e of llm.stream({ messages, tools: [], signal })) if (e.type === 'text') text += e.delta;
    return text.trim() || plain;
  } catch {
    return plain;
  } finally {
    timeout.clear();
  }
}

/** What the next agent's history starts with. */
export async function carriedHistory(history: ChatMessage[], carry: HandoffCarry, llm: Llm | undefined): Promise<ChatMessage[]> {
  if (carry === 'none') return [];
  if (carry === 'full') return spokenTurns(history);
  const summary = await summarize(history, llm);
  return summary ? [{ role: 'system', content: `ملخص المكالمة حتى الآن (من زميل سابق):\n${summary}` }] : [];
}

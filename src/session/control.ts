import type { CollectTask, TaskResult } from '../tasks/types.ts';
import type { Agent } from './agent.ts';
import type { HandoffOptions } from './handoff.ts';

/** Options of `generateReply`. */
export interface GenerateReplyOptions {
  /** Extra instructions for this one reply (not kept in the history), e.g. "offer a callback". */
  instructions?: string;
}

/**
 * What an agent's code can do with its conversation (`ctx.session` in tools, the argument of
 * `onEnter`/`onExit`, and the `AgentSession` itself): speak, ask the model, hand the call to
 * another agent, run a task.
 */
export interface SessionControl {
  /** The agent speaking now (changes with a handoff). */
  readonly agent: Agent;
  /**
   * Speaks `text` without the model, after the reply in flight; it goes into the history as the
   * agent's and into the report. Resolves once spoken (or cut off by the caller); from a tool
   * (`ctx.session`), once queued after the tool's reply.
   */
  say(text: string): Promise<void>;
  /** A model reply now (after the reply in flight), with one-off extra instructions; from a tool, resolves once queued. */
  generateReply(opts?: GenerateReplyOptions): Promise<void>;
  /**
   * Hands the call to `next` at the next reply (from a tool: once the tool's reply is spoken).
   * Resolves when the next agent has taken over; from a tool, once the handoff is asked for.
   */
  handoff(next: Agent, opts?: HandoffOptions): Promise<void>;
  /**
   * Runs a task: the caller's final turns and gathered keys go to it instead of the model, its
   * lines are spoken, silence calls its `timeout`. Resolves with its result (a failure when the
   * call ends first).
   */
  runTask<T>(task: CollectTask<T>): Promise<TaskResult<T>>;
  /**
   * A short summary of the call so far, as the caller heard it (by the model when one is
   * configured, else a plain digest of the turns): for `call.transfer(target, { summary })`.
   */
  summarize(): Promise<string>;
}

/** Every member of `SessionControl`: the compiler rejects this object when one is missing. */
const CONTROL_MEMBERS: Record<keyof SessionControl, true> = {
  agent: true,
  say: true,
  generateReply: true,
  handoff: true,
  runTask: true,
  summarize: true,
};

/**
 * `base` with some members replaced: every other member of `SessionControl` is read from `base`
 * at each use (so `agent` follows a handoff), and nothing of `base` beyond the control shows.
 */
export function controlWith(base: SessionControl, replaced: Partial<Omit<SessionControl, 'agent'>>): SessionControl {
  const control = {} as SessionControl;
  for (const key of Object.keys(CONTROL_MEMBERS) as (keyof SessionControl)[]) {
    const own = replaced[key as keyof typeof replaced];
    const passed = () => {
      const value: unknown = base[key];
      return typeof value === 'function' ? value.bind(base) : value;
    };
    Object.defineProperty(control, key, { get: own ? () => own : passed, enumerable: true });
  }
  return control;
}

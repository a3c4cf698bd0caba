import type { ToolOutcome } from '../llm/tools.ts';
import type { ReportLineKind, SessionEvent } from '../session/events.ts';

/** The tag of an agent line that is not the model's words, so a reader tells it from a reply. */
export const LINE_TAGS: Record<ReportLineKind, string> = {
  greeting: '[greeting]',
  scripted: '[scripted]',
  out_of_service: '[out-of-service line]',
  closing: '[closing line]',
  model_error: '[model-error line]',
};

/**
 * What each reply under way is when it is not the model's words (from its `reply_started`), for
 * the tag its lines are printed with; `done` once the reply is over.
 */
export function replyLines(): { seen(e: SessionEvent): void; tag(e: { reply?: number; line?: ReportLineKind }): string; done(reply?: number): void } {
  const lines = new Map<number | undefined, ReportLineKind>();
  return {
    seen: (e) => {
      const line = e.type === 'reply_started' ? (e.line ?? e.scripted) : undefined;
      if (line && e.type === 'reply_started') lines.set(e.reply, line);
    },
    tag: (e) => {
      const line = e.line ?? lines.get(e.reply);
      return line ? `${LINE_TAGS[line]} ` : '';
    },
    done: (reply) => void lines.delete(reply),
  };
}

/**
 * What the model was handed for a tool: its result, or its error (a tool that threw, arguments
 * it refused), which printed as the `null` result it carries beside it.
 */
const toolResult = (o: ToolOutcome): string => (o.error ? `error: ${o.error}` : JSON.stringify(o.result));

/**
 * The transcript `hiwar demo` prints as the call goes. The agent's words are printed as it
 * starts saying them (each sentence when it goes to synthesis), not when it has finished: a
 * greeting plays for several seconds, and printing it at its end left the terminal silent
 * through the start of the call. A reply the caller cut off is followed by what they heard of
 * it; one the service could not voice, by a note saying so. A line that is not the model's words
 * (the greeting, text the agent's code gave, the out-of-service, closing or model-error line)
 * carries its tag (`LINE_TAGS`). A tool is printed as it starts, so a slow one shows while the
 * caller waits, and again with what it returned.
 */
export function demoTranscript(say: (line: string) => void): (e: SessionEvent) => void {
  /** Replies some of whose words were printed. */
  const printed = new Set<number | undefined>();
  const lines = replyLines();
  const agent = (text: string, e: { reply?: number; line?: ReportLineKind }) => say(`  الوكيل  ◂ ${lines.tag(e)}${text}`);
  return (e) => {
    lines.seen(e);
    if (e.type === 'user_turn') say(`  العميل  ▸ ${e.text}`);
    else if (e.type === 'agent_chunk') {
      printed.add(e.reply);
      agent(e.text, e);
    } else if (e.type === 'agent_turn') {
      if (e.interrupted) say(`  (cut off [قوطع]: the caller heard ${e.heardText ? `«${e.heardText}»` : 'none of it'})`);
      else if (!e.text && !e.heardText && printed.has(e.reply)) say('  (not heard: the service did not voice this reply)');
      else if (!printed.has(e.reply) && e.text) agent(e.text, e);
      printed.delete(e.reply);
      lines.done(e.reply);
    } else if (e.type === 'reply_dropped') {
      lines.done(e.reply);
      if (printed.delete(e.reply)) say('  (not heard: the call went out of service first)');
    } else if (e.type === 'interruption' && e.kind !== 'paused') say(`  (${e.kind === 'confirmed' ? 'barge-in: the agent stops, history keeps only what was heard' : e.kind === 'backchannel' ? `backchannel «${e.text}»: the agent goes on` : 'false alarm: the agent resumes'})`);
    else if (e.type === 'tool_started') say(`  (tool ${e.name} working…)`);
    else if (e.type === 'tool') say(`  (tool ${e.outcome.call.name} → ${toolResult(e.outcome)})`);
    else if (e.type === 'notice' || e.type === 'error') say(`  (${e.type === 'error' ? 'error: ' : ''}${e.message})`);
  };
}

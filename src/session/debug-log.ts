import { redactDigitRuns } from './digit-redaction.ts';
import type { SessionEvent } from './events.ts';

/**
 * The debug log line of a session event (`HIWAR_LOG_LEVEL=debug`), or none for the events that
 * are too frequent (transcripts, chunks) or already logged (metrics at info, errors and notices).
 * What a caller said is in it: the level is for a developer's machine. What a caller keyed (a
 * PIN, a card number), the long numbers a caller said (digit-redaction.ts) and what a task
 * collected are not, unless `keys` (`SessionOptions.logKeys`): a debug log is copied, shared and
 * kept where such numbers must not be.
 */
export function debugRecord(e: SessionEvent, keys = false): { fields: Record<string, unknown>; message: string } | undefined {
  switch (e.type) {
    case 'state':
      return { fields: { state: e.state }, message: 'session state' };
    case 'user_turn':
      if (e.source === 'dtmf' && !keys) return { fields: { turn: e.turn, source: e.source }, message: 'caller turn' };
      return { fields: { turn: e.turn, source: e.source ?? 'speech', text: keys ? e.text : redactDigitRuns(e.text) }, message: 'caller turn' };
    case 'reply_started':
      return { fields: { reply: e.reply, turn: e.turn }, message: 'reply started' };
    case 'agent_turn':
      // What the caller heard (a barge-in cuts it short): the question an operator asks of a call.
      return { fields: { reply: e.reply, interrupted: e.interrupted, said: e.text.length, heard: e.heardText.length, heardText: keys ? e.heardText : redactDigitRuns(e.heardText) }, message: 'agent turn' };
    case 'reply_dropped':
      return { fields: { reply: e.reply, reason: e.reason }, message: 'reply dropped: nothing of it was heard' };
    case 'interruption':
      return { fields: { kind: e.kind }, message: 'interruption' };
    case 'tool_started':
      // Not its arguments: what the caller said (an account number) is in them.
      return { fields: { tool: e.name, callId: e.callId, reply: e.reply }, message: 'tool started' };
    case 'tool_late':
      return { fields: { tool: e.name, callId: e.callId, lateMs: e.lateMs, reason: e.reason, failed: e.failed, reply: e.reply, ...(e.afterEnd ? { afterEnd: true } : {}) }, message: e.afterEnd ? 'tool answered after it was given up, once the call had ended' : 'tool answered after it was given up' };
    case 'tool':
      return { fields: { tool: e.outcome.call.name, ok: !e.outcome.error, ms: e.outcome.ms }, message: 'tool ran' };
    case 'agent_handoff':
      return { fields: { from: e.from, to: e.to, carry: e.carry }, message: 'handoff' };
    case 'handoff_unlisted':
      return { fields: { from: e.from, to: e.to, teaching: e.teaching }, message: 'handoff to an agent no handoffs list' };
    case 'task_started':
      return { fields: { task: e.name }, message: 'task started' };
    case 'task_ended':
      return { fields: { task: e.name, result: keys ? e.result : withoutValues(e.result) }, message: 'task ended' };
    case 'call_action':
      return { fields: { action: e.action, target: e.target, ok: e.ok }, message: 'call action' };
    case 'reconnect':
      return { fields: { service: e.service, phase: e.phase, attempt: e.attempt }, message: 'recognition reconnect' };
    case 'amd':
      return { fields: { decision: e.decision, action: e.action }, message: 'answering-machine detection' };
    case 'ended':
      return { fields: { reason: e.reason }, message: 'session ended' };
    case 'dtmf':
      return { fields: keys ? { digit: e.digit } : {}, message: 'key pressed' };
    default:
      return undefined;
  }
}

/** A task's result without what the caller gave: whether it succeeded, and why not. */
function withoutValues(r: Extract<SessionEvent, { type: 'task_ended' }>['result']): Record<string, unknown> {
  return r.ok ? { ok: true } : { ok: false, reason: r.reason };
}

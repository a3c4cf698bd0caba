// A given-up tool that answers once the call has ended: `events$` has completed, so its
// `tool_late` comes on `afterEnd$` (marked `afterEnd`), with its debug line; any other event
// told after the end goes nowhere, as before.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionEvent } from '../../src/session/events.ts';
import { createLogger } from '../../src/session/logger.ts';
import { ReportBuilder } from '../../src/session/report.ts';
import { SessionOutput } from '../../src/session/session-output.ts';
import { realClock } from '../../src/transport/clock.ts';

test("after the call ended, a tool_late comes on afterEnd$ with afterEnd: true and a debug line; events$ stays complete; other events go nowhere", () => {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('debug', { write: (l: string) => void lines.push(JSON.parse(l) as Record<string, unknown>) } as never);
  const out = new SessionOutput(logger, new ReportBuilder(realClock()), () => 'orders');
  const events: SessionEvent[] = [];
  let completed = false;
  out.events$.subscribe({ next: (e) => events.push(e), complete: () => (completed = true) });
  const after: SessionEvent[] = [];
  out.afterEnd$.subscribe((e) => after.push(e));
  const late = { type: 'tool_late', name: 'check_order', callId: 'call_1', lateMs: 900, reason: 'timeout', failed: false, reply: 2 } as const;
  out.emit(late);
  assert.deepEqual(events.at(-1), late, 'before the end: on events$, unmarked');
  out.ended('caller hung up');
  assert.ok(completed);
  const told = events.length;
  out.emit({ ...late, lateMs: 4200 });
  out.emit({ type: 'notice', message: 'too late' });
  assert.equal(events.length, told, 'nothing more on events$');
  assert.deepEqual(after, [{ ...late, lateMs: 4200, afterEnd: true }], 'only the late answer, marked');
  const logged = lines.filter((l) => typeof l.msg === 'string' && (l.msg as string).startsWith('tool answered after it was given up'));
  assert.deepEqual(logged.map((l) => [l.msg, l.afterEnd, l.lateMs]), [
    ['tool answered after it was given up', undefined, 900],
    ['tool answered after it was given up, once the call had ended', true, 4200],
  ]);
});

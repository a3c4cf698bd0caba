/**
 * `runTask` twice in the same tick (two hooks, or a hook that starts two tasks without awaiting):
 * only one task runs; the other is refused as "still running" (docs/agents.md), on a virtual
 * clock with the session's parts the flow does not exercise here left as stubs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import callCentre from '../../agents/call-centre/index.ts';
import { ChatHistory } from '../../src/session/history.ts';
import { Flow, type FlowHost } from '../../src/session/flow.ts';
import { createLogger } from '../../src/session/logger.ts';
import { ReportBuilder } from '../../src/session/report.ts';
import type { SessionEvent } from '../../src/session/events.ts';
import { confirmTask } from '../../src/tasks/index.ts';
import { VirtualClock } from '../../src/transport/clock.ts';

function flowOnClock() {
  const clock = new VirtualClock(0);
  const events: SessionEvent[] = [];
  const said: string[] = [];
  const warnings: string[] = [];
  const log = createLogger('warn', { write: (line: string) => void warnings.push(JSON.parse(line).msg) });
  const host = {
    lane: { busy: false, idle: () => clock.sleep(50), enqueue: () => {} },
    clock,
    history: new ChatHistory(''),
    report: new ReportBuilder(clock),
    log,
    stageContext: { clock, outputRate: 16_000, stages: { voice: () => ({}), turns: () => ({}), interruption: () => ({}) }, notice: () => {}, reply: {} },
    control: {},
    session: {},
    live: clock.sleep(100),
    isEnding: () => false,
    emit: (e: SessionEvent) => void events.push(e),
    threw: () => assert.fail('no hook throws here'),
    taskThrew: (name: string) => assert.fail(`task ${name} threw`),
    speakTaskLine: async (text: string) => void said.push(text),
    takeTurnInFlight: () => undefined,
  } as unknown as FlowHost;
  return { clock, events, said, warnings, flow: new Flow(callCentre, host) };
}

test('two runTask calls in the same tick: the first runs, the second is refused as still running (it used to start over the first)', async () => {
  const { clock, events, said, warnings, flow } = flowOnClock();
  const first = flow.runTask(false, confirmTask('هل تريد إيقاف البطاقة؟'));
  const second = flow.runTask(false, confirmTask('هل تريد بطاقة جديدة؟'));
  await assert.rejects(second, /runTask: task confirm is still running/);
  await clock.advance(200);
  assert.deepEqual(said, ['هل تريد إيقاف البطاقة؟']);
  assert.deepEqual(events.filter((e) => e.type === 'task_started').length, 1);
  assert.ok(warnings.some((w) => /still running/.test(w)), `the refusal is in the log: ${warnings.join(' | ')}`);
  flow.task!.input({ kind: 'speech', text: 'نعم' });
  assert.deepEqual(await first, { ok: true, value: true });
  // Once it is over, the next task runs.
  const third = flow.runTask(false, confirmTask('هل تريد شيئًا آخر؟'));
  await clock.advance(200);
  flow.task!.input({ kind: 'speech', text: 'لا' });
  assert.deepEqual(await third, { ok: true, value: false });
  assert.deepEqual(said.at(-1), 'هل تريد شيئًا آخر؟');
});

/**
 * The server's log of a call, at info (what `hiwar serve` runs at): its `call ended` line says
 * why and after how long, beside the outcome, so one line answers "why did this call end".
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Subject } from '../../src/rx.ts';
import { CallManager } from '../../src/server/calls.ts';
import { ServerMetrics } from '../../src/server/metrics.ts';
import type { CallReport, SessionEvent } from '../../src/session/events.ts';
import { createLogger } from '../../src/session/logger.ts';
import type { Transport } from '../../src/transport/types.ts';

test("a call's `call ended` line gives its end reason, length, caller turns and failures beside the outcome", async () => {
  const lines: Record<string, unknown>[] = [];
  const events = new Subject<SessionEvent>();
  const report: CallReport = {
    agent: 'bank',
    handoffs: [],
    tasks: [],
    llm: 'scripted',
    turns: [
      { role: 'agent', text: 'أهلًا', at: 0 },
      { role: 'user', text: 'كم رصيدي', at: 1000 },
      { role: 'agent', text: 'رصيدك…', at: 2000 },
    ] as CallReport['turns'],
    ended: 'out of service: speech recognition lost its connection (close 1006, reconnects gave up)',
    durationSeconds: 21.3,
    notices: [],
  };
  const calls = new CallManager({
    sessions: async () => ({
      events$: events,
      run: async () => {
        events.next({ type: 'error', source: 'agent', kind: 'tool', tool: 'block_card', message: "the agent's code threw an error (tool block_card)", fatal: false });
        events.next({ type: 'error', source: 'stt', kind: 'network', message: 'speech recognition lost its connection', fatal: true });
        return report;
      },
      end: async () => {},
    }),
    metrics: new ServerMetrics(),
    logger: createLogger('info', { write: (l: string) => void lines.push(JSON.parse(l)) }),
    publicUrl: () => 'http://127.0.0.1',
  });
  const transport = { call: { callId: 'CA1', provider: 'twilio', parameters: {} }, output: { close: async () => {} } } as unknown as Transport;
  assert.equal(await calls.runCall(transport), 'failed');
  const ended = lines.find((l) => l.msg === 'call ended')!;
  assert.deepEqual(
    { outcome: ended.outcome, reason: ended.reason, seconds: ended.seconds, callerTurns: ended.callerTurns, failures: ended.failures, call: ended.call },
    { outcome: 'failed', reason: report.ended, seconds: 21.3, callerTurns: 1, failures: 2, call: 'CA1' },
  );
});

test("the `call ended` line hides a transfer target's number, as any long digit run in a log line", async () => {
  const lines: Record<string, unknown>[] = [];
  const report = { agent: 'bank', handoffs: [], tasks: [], llm: 'scripted', turns: [], ended: 'transferred to +966501234567', durationSeconds: 9, notices: [] } as unknown as CallReport;
  const calls = new CallManager({
    sessions: async () => ({ events$: new Subject<SessionEvent>(), run: async () => report, end: async () => {} }),
    metrics: new ServerMetrics(),
    logger: createLogger('info', { write: (l: string) => void lines.push(JSON.parse(l)) }),
    publicUrl: () => 'http://127.0.0.1',
  });
  const transport = { call: { callId: 'CA2', provider: 'twilio', parameters: {} }, output: { close: async () => {} } } as unknown as Transport;
  await calls.runCall(transport);
  const ended = lines.find((l) => l.msg === 'call ended')!;
  assert.equal(ended.reason, 'transferred to +[12 digits]');
  assert.doesNotMatch(JSON.stringify(lines), /501234567/);
});

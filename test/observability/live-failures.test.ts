import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LiveCalls } from '../../src/observability/live-calls.ts';

test("the live view counts a call's failures and keeps the last one (source, kind, fatal, the tool), from the session's error events", () => {
  const live = new LiveCalls();
  const call = live.add({ callId: 'CA1', provider: 'twilio', parameters: {} }, 'bank');
  live.update(call, { type: 'user_turn', text: 'أوقف بطاقتي', source: 'speech', turn: 1 });
  assert.equal(live.list()[0]!.failures, undefined, 'a call without failures says none');
  const before = live.changes;
  live.update(call, { type: 'error', source: 'agent', kind: 'tool', tool: 'block_card', message: "the agent's code threw an error (tool block_card)", fatal: false });
  assert.ok(live.changes > before, 'the page and the cluster see the change');
  live.update(call, { type: 'error', source: 'llm', kind: 'network', message: 'the language model could not be reached', fatal: false });
  const [listed] = live.list();
  assert.equal(listed!.failures, 2);
  assert.deepEqual(listed!.lastFailure, { source: 'llm', kind: 'network', message: 'the language model could not be reached', fatal: false });
  assert.equal(JSON.parse(JSON.stringify(listed)).lastFailure.kind, 'network', 'in the JSON of /calls/live');
});

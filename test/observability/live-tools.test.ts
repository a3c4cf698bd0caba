import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LiveCalls } from '../../src/observability/live-calls.ts';

const outcome = (id: string, name: string) => ({ call: { id, name, arguments: '{}' }, result: { ok: true }, ms: 40 });

test('the live view lists the tools running now (name, since when, the model call id, the reply), each gone with its tool event', () => {
  const live = new LiveCalls();
  const call = live.add({ callId: 'CA1', provider: 'twilio', parameters: {} }, 'bank');
  const t0 = Date.now();
  live.update(call, { type: 'tool_started', name: 'get_balance', callId: 'c1', args: {}, reply: 3 });
  live.update(call, { type: 'tool_started', name: 'get_card', callId: 'c2', args: {}, reply: 3 });
  const [listed] = live.list();
  assert.deepEqual(listed!.tools?.map((t) => [t.name, t.callId, t.reply]), [['get_balance', 'c1', 3], ['get_card', 'c2', 3]]);
  const since = Date.parse(listed!.tools![0]!.since);
  assert.ok(since >= t0 - 1000 && since <= Date.now() + 1000, 'since: the ISO time it started');
  const before = live.changes;
  live.update(call, { type: 'tool', outcome: outcome('c2', 'get_card'), reply: 3 });
  assert.ok(live.changes > before, 'a change the page and the cluster see');
  assert.deepEqual(live.list()[0]!.tools?.map((t) => t.name), ['get_balance'], 'the finished one leaves, by its call id');
  live.update(call, { type: 'tool', outcome: outcome('c1', 'get_balance'), reply: 3 });
  assert.equal(live.list()[0]!.tools, undefined, 'none running: no field');
  assert.ok(!('tools' in JSON.parse(JSON.stringify(live.list()[0]))));
});

test("a tool still running when its reply ends (cut off, abandoned) leaves with the reply; another reply's tool stays", () => {
  const live = new LiveCalls();
  const call = live.add({ callId: 'CA2', provider: 'twilio', parameters: {} }, 'bank');
  live.update(call, { type: 'tool_started', name: 'slow_lookup', args: {}, reply: 1 });
  live.update(call, { type: 'tool_started', name: 'ask_pin', args: {}, reply: 2 });
  live.update(call, { type: 'agent_turn', text: 'لحظة', heardText: 'لحظة', interrupted: true, reply: 1 });
  assert.deepEqual(live.list()[0]!.tools?.map((t) => t.name), ['ask_pin']);
  live.update(call, { type: 'reply_dropped', reply: 2, reason: 'out of service: the wallet is empty' });
  assert.equal(live.list()[0]!.tools, undefined);
  // The list hands out copies: changing one does not change the view.
  live.update(call, { type: 'tool_started', name: 'x', args: {}, reply: 4 });
  live.list()[0]!.tools![0]!.name = 'changed';
  assert.equal(live.list()[0]!.tools![0]!.name, 'x');
});

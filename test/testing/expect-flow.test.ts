// The flow assertions of hiwar/testing (handoffs, tasks, error events) on a call's data: each
// returns what it found, or throws an AssertionError that lists what the call did instead.
import assert from 'node:assert/strict';
import { AssertionError } from 'node:assert';
import { test } from 'node:test';
import { expectError, expectHandoff, expectTask, type TestCall } from '../../src/testing/index.ts';

const call = {
  report: {
    handoffs: [{ from: 'greeter', to: 'cards', carry: 'full', at: 4.2 }],
    tasks: [
      { name: 'digits:phone', agent: 'greeter', at: 2, endedAt: 9, result: { ok: true, value: '+966501234567' } },
      { name: 'confirm', agent: 'cards', at: 12, endedAt: 14, result: { ok: false, reason: 'no_input' } },
    ],
  },
  events: [
    { type: 'user_turn', text: 'كم رصيدي' },
    { type: 'error', source: 'agent', kind: 'tool', tool: 'card_statement', message: "the agent's code threw an error (tool card_statement)", fatal: false },
  ],
} as unknown as TestCall;

test('expectHandoff, expectTask and expectError return what they found', () => {
  assert.equal(expectHandoff(call, 'cards').carry, 'full');
  assert.equal(expectHandoff(call, 'cards', 'greeter').at, 4.2);
  assert.equal(expectTask(call, 'digits:phone', { ok: true, value: '+966501234567' }).agent, 'greeter');
  assert.equal(expectTask(call, 'confirm', { reason: 'no_input' }).endedAt, 14);
  assert.equal(expectError(call, { source: 'agent', kind: 'tool', tool: 'card_statement' }).fatal, false);
  assert.equal(expectError(call).tool, 'card_statement');
});

test('each throws an AssertionError naming what the call did instead', () => {
  assert.throws(() => expectHandoff(call, 'billing'), (e: unknown) => e instanceof AssertionError && /to billing; handoffs:\n  - greeter → cards \(full\)/.test(e.message));
  assert.throws(() => expectHandoff(call, 'cards', 'billing'), AssertionError);
  assert.throws(() => expectTask(call, 'digits:phone', { ok: false }), (e: unknown) => e instanceof AssertionError && /tasks run:\n  - digits:phone → \{"ok":true,"value":"\+966501234567"\}\n  - confirm/.test(e.message));
  assert.throws(() => expectError(call, { kind: 'timeout' }), (e: unknown) => e instanceof AssertionError && /agent\/tool \(tool card_statement\): the agent's code threw/.test(e.message));
});

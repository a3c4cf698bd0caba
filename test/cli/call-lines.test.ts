// `hiwar call`'s last lines: the outcome, then what the answered call's session learnt.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sessionLines } from '../../src/cli/call.ts';
import type { OutboundCall } from '../../transports/telephony/outbound/index.ts';

const call: OutboundCall = { id: 'out-1', platform: 'twilio', to: '+966500000001', from: '+966110000000', variables: {}, status: 'completed', outcome: 'completed', createdAt: '2026-11-27T11:00:00Z' };

test('an answered call: who answered, how the session ended and what was said, under the outcome', () => {
  const lines = sessionLines({ ...call, answeredAt: '2026-11-27T11:00:05Z', session: { amd: { class: 'human', action: 'greeted', decisionMs: 1840 }, ended: 'transferred to +966920000000', transcript: 'agent: مرحبًا خالد\ncaller: نعم' } });
  assert.deepEqual(lines, ['  who answered: human (greeted, decided after 1.8 s)', '  ended: transferred to +966920000000', '  agent: مرحبًا خالد', '  caller: نعم']);
});

test('a call nobody answered, or whose session said nothing: no lines', () => {
  assert.deepEqual(sessionLines({ ...call, outcome: 'busy' }), []);
  assert.deepEqual(sessionLines({ ...call, session: {} }), []);
});

/** `hiwar campaign status`: what a person reads of a campaign under way. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describe } from '../../src/cli/campaign.ts';
import { statusOf } from '../../src/campaign/store.ts';
import type { ContactState } from '../../src/campaign/types.ts';

const meta = { id: 'c', state: 'running' as const, total: 4, createdAt: '', concurrency: 2, retries: 1, retryAfterMs: 90_000, retryOn: ['busy' as const, 'no-answer' as const] };
const contact = (n: number) => ({ number: `+96650000000${n}`, variables: {} });
const at = Date.parse('2026-11-27T09:06:14Z');

test('a contact waiting for its retry is counted by its last outcome, with when the first retry may come (it was only "pending")', () => {
  const states: ContactState[] = [
    { index: 0, contact: contact(1), status: 'done', notBefore: 0, attempts: [{ attempt: 1, startedAt: 0, outcome: 'completed', callId: 'out-1' }] },
    { index: 1, contact: contact(2), status: 'pending', notBefore: at + 60_000, attempts: [{ attempt: 1, startedAt: 0, outcome: 'busy', callId: 'out-2' }] },
    { index: 2, contact: contact(3), status: 'pending', notBefore: at, attempts: [{ attempt: 1, startedAt: 0, outcome: 'no-answer', callId: 'out-3' }] },
    { index: 3, contact: contact(4), status: 'pending', notBefore: 0, attempts: [] },
  ];
  const s = statusOf(meta, states);
  assert.deepEqual(s.retrying, { busy: 1, 'no-answer': 1 });
  assert.equal(s.nextRetryAt, at);
  assert.deepEqual(s.outcomes, { completed: 1 }, 'the final outcomes only');
  assert.equal(
    describe(s),
    ['campaign c: running, 4 contacts, 3 calls placed', '  contacts: done 1, pending 3', '  outcomes: completed 1', '  retrying: busy 1, no-answer 1 (the first not before 2026-11-27 09:06:14 UTC)'].join('\n'),
  );
  const none = statusOf(meta, [states[0]!, states[3]!]);
  assert.equal(none.retrying, undefined, 'said only when some contact waits for a retry');
  assert.doesNotMatch(describe(none), /retrying/);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closeReason, MAX_CLOSE_REASON_BYTES } from '../../src/sandbox/ws/close-reason.ts';

test('a close reason fits a close frame, cut on a character boundary', () => {
  assert.equal(closeReason('stream closed'), 'stream closed');
  const english = `internal error: ENOENT: no such file or directory, open '${'/very/long/path'.repeat(10)}'`;
  const arabic = 'تعذر تحميل نموذج اكتشاف الكلام '.repeat(6);
  for (const long of [english, arabic, `${'a'.repeat(119)}ببب`]) {
    const cut = closeReason(long);
    assert.ok(Buffer.byteLength(cut) <= MAX_CLOSE_REASON_BYTES, `${Buffer.byteLength(cut)} bytes`);
    assert.ok(cut.endsWith('...'));
    assert.ok(long.startsWith(cut.slice(0, -3)), 'a prefix of the reason');
    assert.ok(!cut.includes('\uFFFD'), 'no broken character');
  }
});

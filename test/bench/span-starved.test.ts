import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spanStarved, type SpanConditions } from '../../bench/conditions.ts';

const span = (share: number | null, rigStarved?: boolean): SpanConditions => ({
  loadBefore: 4.6,
  loadAfter: 4.3,
  runQueueWaitMs: share === null ? null : 100,
  runQueueWaitShare: share,
  loopWaitMs: null,
  loopWaitShare: null,
  affinity: { pinned: false, server: '0-1', rig: '0-1' },
  rig: rigStarved === undefined ? null : { runQueueWaitMs: 10, runQueueWaitShare: rigStarved ? 0.4 : 0.01, starved: rigStarved },
});

test('a span is starved when hiwar waited for a core over 10 % of its runnable time, when its rig did, or when the wait is unknown: webrtc-density then prints no calls per core', () => {
  assert.equal(spanStarved(span(0.05, false)), false);
  assert.equal(spanStarved(span(0.05)), false, 'no rig to starve');
  assert.equal(spanStarved(span(0.45, false)), true);
  assert.equal(spanStarved(span(0.05, true)), true, "the callers' own wait");
  assert.equal(spanStarved(span(null)), true, 'unknown (not Linux): no per-core figure without the evidence');
});

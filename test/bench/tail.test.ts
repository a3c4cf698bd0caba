/**
 * The latency bench's look at its slowest turns (bench/tail.ts): a turn's own spans checked
 * against what held the loop. Pure: spans and busy stretches are given, no clock.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { explainTurn, GcLog, slowest, type Busy, type Span } from '../../bench/tail.ts';

const spans: Span[] = [
  { name: 'stt: fake answers → final', from: 100, to: 112 },
  { name: 'llm: decision → fake holds', from: 112, to: 113 },
  // a span whose end is unknown (no hold matched) is left out, not counted as negative or infinite
  { name: 'tts: text → fake holds', from: 400, to: NaN },
];

test('a collection inside a span of the turn is counted for the part that overlaps, per kind', () => {
  const gcs: Busy[] = [
    { start: 95, ms: 10, what: 'mark-compact' }, // 100..105 of it is inside the turn
    { start: 111, ms: 1.5, what: 'scavenge' }, // inside both spans: 112.5 − 111
    { start: 200, ms: 30, what: 'mark-compact' }, // during a hold: not the turn's
  ];
  const t = explainTurn(3, 90, 7, 14, spans, gcs, []);
  assert.deepEqual(t.gc, { 'mark-compact': 5, scavenge: 1.5 });
  assert.equal(t.frameTickMs, 0);
  assert.deepEqual(t.worst, { name: 'stt: fake answers → final', ms: 12 });
  assert.deepEqual(t.busy.map((b) => [b.what, b.at, b.ms]), [
    ['mark-compact', 'stt: fake answers → final', 10],
    ['scavenge', 'stt: fake answers → final', 1.5],
  ]);
});

test('frame ticks are counted apart from collections', () => {
  const t = explainTurn(0, 90, 1, 14, spans, [], [{ start: 104, ms: 3, what: 'frame tick' }]);
  assert.equal(t.frameTickMs, 3);
  assert.deepEqual(t.gc, {});
});

test('nothing overlapping: no busy stretch is named', () => {
  const t = explainTurn(0, 90, 1, 2, spans, [{ start: 0, ms: 50, what: 'scavenge' }], [{ start: 300, ms: 2, what: 'frame tick' }]);
  assert.deepEqual(t.busy, []);
  assert.deepEqual(t.gc, {});
});

test('slowest: the given share of the turns, at least one, slowest first', () => {
  const turns = Array.from({ length: 40 }, (_, i) => ({ addedMs: (i * 7) % 40 }));
  assert.deepEqual(slowest(turns, 0.05).map((t) => t.addedMs), [39, 38]);
  assert.equal(slowest(turns.slice(0, 3), 0.05).length, 1);
});

test('GcLog records the collections this process runs, with their kind', async () => {
  const log = new GcLog();
  log.start();
  (globalThis as { gc?: () => void }).gc?.();
  // allocate enough for a scavenge even without --expose-gc
  let keep: number[][] = [];
  for (let i = 0; i < 200_000; i++) keep.push([i]);
  keep = [];
  // the observer is told on a later tick
  await new Promise((r) => setTimeout(r, 50));
  log.stop();
  assert.ok(log.entries.length >= 1, 'at least one collection seen');
  assert.ok(log.entries.every((e) => e.ms >= 0 && e.start > 0 && typeof e.what === 'string'));
  assert.ok(log.entries.some((e) => e.what === 'scavenge' || e.what === 'mark-compact'));
  assert.equal(log.total().n, log.entries.length);
  assert.equal(keep.length, 0);
});

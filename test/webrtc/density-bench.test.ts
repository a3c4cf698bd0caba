import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spanStarved } from '../../bench/conditions.ts';
import { largestClean } from '../../bench/harness.ts';
import { webrtcDensity, type WebRtcDensityRow } from '../../bench/webrtc-density.ts';
import { ArrivalJitter } from '../helpers/werift-peer.ts';

test('arrival jitter (RFC 3550): zero on a steady stream, and a late packet shows in both figures', () => {
  const steady = new ArrivalJitter();
  // 20 ms apart in arrival and in RTP time (960 units at 48 kHz), across the 32-bit wrap.
  for (let i = 0; i < 100; i++) steady.add(1000 + 20 * i, (0xffff_0000 + 960 * i) >>> 0);
  assert.ok(steady.jitterMs < 1e-9 && steady.maxDeviationMs < 1e-9, `steady: ${steady.jitterMs} / ${steady.maxDeviationMs}`);
  const bumpy = new ArrivalJitter();
  for (let i = 0; i < 50; i++) bumpy.add(1000 + 20 * i + (i === 25 ? 30 : 0), 960 * i);
  assert.ok(Math.abs(bumpy.maxDeviationMs - 30) < 1e-9, `worst deviation ${bumpy.maxDeviationMs}`);
  assert.ok(bumpy.jitterMs > 0 && bumpy.jitterMs < 30 / 16 + 30 / 16, `jitter ${bumpy.jitterMs}`);
});

test('the answer is the largest N with zero late packets at every level up to it', () => {
  const rows = (late: Record<number, number>) => Object.entries(late).map(([calls, latePackets]) => ({ calls: Number(calls), latePackets }));
  const largest = (r: { calls: number; latePackets: number }[]) => largestClean(r, (x) => x.latePackets);
  assert.equal(largest(rows({ 20: 278, 40: 13, 60: 0 })).best, undefined, 'a clean 60 after a late 20 is no answer');
  assert.equal(largest(rows({ 20: 278, 40: 13, 60: 0 })).firstLate?.calls, 20);
  assert.equal(largest(rows({ 60: 0, 20: 0, 40: 3 })).best?.calls, 20, 'levels in any order');
  assert.equal(largest(rows({ 20: 0, 40: 0, 60: 0 })).best?.calls, 60);
  assert.equal(largest(rows({ 20: 0, 40: 0, 60: 0 })).firstLate, undefined);
});

test('the WebRTC density bench runs end to end and reports every figure of a level', async () => {
  // Two calls for two seconds: this checks the bench works (werift callers, mediasoup, the
  // agent's Opus both ways), not how fast the machine is; no figure here is a timing bound.
  const res = (await webrtcDensity({ quick: true, rest: ['2', '--seconds=2'] })) as { levels: WebRtcDensityRow[]; maxCallsNoLatePackets: number; callsPerCoreAtMax: number | null; bench: string };
  assert.equal(res.bench, 'webrtc-density');
  assert.equal(res.levels.length, 1);
  const row = res.levels[0]!;
  assert.equal(row.calls, 2);
  // 2 calls × 50 packets a second × ~2 s, whatever the load: the clock catches up missed ticks.
  assert.ok(row.agentPackets >= 150, `agent packets ${row.agentPackets}`);
  assert.ok(row.receivedRatio > 0.8, `the callers received ${row.receivedRatio} of the agent's packets`);
  assert.ok(row.callerPacketsIn >= 100, `the agent decoded ${row.callerPacketsIn} caller packets`);
  assert.ok(row.nodeCpuPct > 0 && row.workerCpuPct > 0 && row.callersCpuPct > 0);
  assert.ok(Number.isFinite(row.jitterMeanMs) && Number.isFinite(row.arrivalDeviationMaxMs));
  assert.equal(res.maxCallsNoLatePackets, row.latePackets === 0 ? 2 : 0);
  // The packet clock's trace covers the window (about 100 ticks in 2 s), and every late tick has a cause.
  assert.ok(row.trace.ticks >= 75, `traced ticks ${row.trace.ticks}`);
  assert.ok(row.trace.tickCpuMeanMs !== null && row.trace.tickCpuMeanMs >= 0);
  assert.equal(Object.values(row.trace.causes).reduce((a, b) => a + b, 0), row.trace.lateTicks);
  assert.equal((res as { warmup?: unknown }).warmup, undefined, 'no warm-up level with --quick');
  // Each level's window has its conditions, the callers' wait among them; a starved one gives no calls per core.
  const c = row.conditions!;
  assert.equal(typeof c.loadBefore, 'number');
  assert.ok(c.rig, "the callers' processes are the rig");
  const perCore = res.callsPerCoreAtMax;
  if (spanStarved(c) || row.latePackets) assert.equal(perCore, null);
  else assert.equal(perCore, row.callsPerCore);
});

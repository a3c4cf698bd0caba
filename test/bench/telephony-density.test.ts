/**
 * The density bench's telephony row: hiwar serve's server in the bench process, Twilio Media
 * Streams from a caller process. Two calls for one short level; shapes only, never timings.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatCpuList } from '../../bench/pin.ts';
import { execOk } from '../helpers/processes.ts';
import { benchRunArgs } from '../helpers/bench.ts';

test('npm run bench -- density transport=twilio: calls over the real protocol, answered, counted', async () => {
  const { stdout } = await execOk(process.execPath, benchRunArgs('density', '--quick', '2', 'transport=twilio'), { timeoutMs: 90_000 });
  const last = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, any>;
  assert.equal(last.bench, 'density');
  assert.equal(last.transport, 'twilio');
  const [level] = last.levels;
  assert.equal(level.calls, 2);
  // 8 s of 20 ms frames from two callers reached the sessions (a few may still be in flight).
  assert.ok(level.callerFrames > 600, `caller frames ${level.callerFrames}`);
  assert.ok(level.agentFrames > 0, 'the agent spoke over the media stream');
  assert.ok(level.answeredTurns >= 2, `answered turns ${level.answeredTurns}`);
  assert.match(stdout, /hiwar serve's server in the bench process, Twilio Media Streams/);
  // How long the callers' process took to write each tick's frames: measured, ordered.
  assert.ok(level.callersBurstP50Ms >= 0 && level.callersBurstP99Ms >= level.callersBurstP50Ms, `burst ${level.callersBurstP50Ms}/${level.callersBurstP99Ms}`);
  assert.match(stdout, /callers burst p50\/p99 ms/);
  // The collector of the measured process (the bench's own, started here without --single-threaded-gc).
  assert.equal(last.conditions[0].gc, 'parallel');
  // Every level has its conditions; calls per core only from a level that was not starved.
  const [c] = last.conditions;
  assert.equal(typeof c.loadBefore, 'number');
  assert.equal(c.warm, false, 'the first level of a server is cold');
  assert.equal(c.starved, c.runQueueWaitShare === null || c.runQueueWaitShare > last.starvedAbove);
  // The rig's own wait (the callers' process and the fake): a starved rig's window gives no calls per core either.
  assert.equal(typeof c.rig.starved, 'boolean');
  assert.equal(last.callsPerCoreByCpu === null, c.starved || c.rig.starved);
  // pin=auto, the default: the CPUs each side had, read from /proc at the window's end, are the plan's
  // (pinned apart on two CPUs or more with taskset; both on every CPU otherwise).
  assert.equal(c.affinity.pinned, last.pin.pinned);
  assert.equal(c.affinity.server, formatCpuList(last.pin.server));
  assert.equal(c.affinity.rig, formatCpuList(last.pin.rig));
  assert.match(stdout, /^pin: (hiwar on CPU [\d,-]+, the rig|unpinned, )/m);
  assert.match(stdout, /conditions:\n {2}2 calls, twilio, .*(cold) process, load [\d.]+ → [\d.]+, run-queue wait .*; (unpinned: )?hiwar on CPU [\d,-]+, rig on CPU [\d,-]+/);
});

test('npm run bench -- telephony-density workers=2: the Twilio row against a real hiwar serve --workers 2, then the local row', async () => {
  const { stdout } = await execOk(process.execPath, benchRunArgs('telephony-density', '--quick', '2', 'seconds=4', 'workers=2'), { timeoutMs: 300_000 });
  const last = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, any>;
  assert.equal(last.bench, 'telephony-density');
  assert.equal(last.twilio.workers, 2);
  assert.equal(last.local.transport, 'local');
  const [tw] = last.twilio.levels;
  // The workers counted the caller frames that reached their sessions (files the bench adds up).
  assert.ok(tw.callerFrames > 0, `caller frames ${tw.callerFrames}`);
  assert.ok(tw.agentFrames > 0, 'the agent spoke through hiwar serve --workers 2');
  assert.ok(tw.cpuPct > 0, 'the server processes\' CPU was read');
  assert.match(stdout, /hiwar serve --workers 2 \(processes of its own\)/);
  const rows = stdout.split('\n').filter((l) => /^(twilio|local) \| /.test(l));
  assert.deepEqual(rows.map((l) => l.split(' | ')[0]), ['twilio', 'local'], 'the Twilio route first, the local one second');
  for (const [i, row] of rows.entries()) {
    const c = (i === 0 ? last.twilio : last.local).conditions[0];
    assert.equal(row.includes('starved: not reported'), c.starved || c.rig.starved, row);
  }
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SteadyScaledClock } from '../../src/testing/steady-clock.ts';

/** Keeps the process busy for `ms` of wall time: a stall, as far as the clock can tell. */
const block = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};

test('a stall does not count as call time; time between stalls does, scaled', async (t) => {
  const clock = new SteadyScaledClock(3);
  t.after(() => clock.stop());
  const t0 = clock.now();
  block(300);
  // 900 ms of call time on a plain scaled clock; here at most a tick and its grace, scaled.
  const afterStall = clock.now() - t0;
  assert.ok(afterStall < 100, `${afterStall} ms of call time for a 300 ms stall`);
  assert.ok(clock.stalledMs >= 250, `${clock.stalledMs} ms counted as stalled`);
  const t1 = clock.now();
  await clock.sleep(300);
  assert.ok(clock.now() - t1 >= 300 - clock.speed, 'a sleep lasts its call time');
});

test('a sleep that a stall interrupts still ends at its call time, not earlier', async (t) => {
  const clock = new SteadyScaledClock(3);
  t.after(() => clock.stop());
  const t0 = clock.now();
  const slept = clock.sleep(600); // 200 ms of wall time without stalls
  await new Promise((r) => setTimeout(r, 50));
  block(250);
  await slept;
  assert.ok(clock.now() - t0 >= 600 - clock.speed, `woke at ${clock.now() - t0} ms of call time`);
});

test('a sleep aborted with a reason rejects with that reason', async (t) => {
  const clock = new SteadyScaledClock(3);
  t.after(() => clock.stop());
  const ctrl = new AbortController();
  const reason = new Error('hung up');
  const slept = clock.sleep(60_000, ctrl.signal);
  ctrl.abort(reason);
  await assert.rejects(slept, (err) => err === reason);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { machineTime, type MachineTimeLimit as Limit } from '../../scripts/machine-time.mjs';

function clock(load: number) {
  const c = { t: 0, load };
  return { c, opts: { now: () => c.t, load: () => c.load, cores: 2 } };
}

test('on a quiet machine the limit is wall time', () => {
  const { c, opts } = clock(0.5);
  const limit: Limit = machineTime(900_000, opts);
  c.t = 899_000;
  assert.equal(limit.expired(), false);
  c.t = 900_001;
  assert.equal(limit.expired(), true);
});

test('at load 40 on two cores a file gets twenty times the wall time; a hang still ends', () => {
  const { c, opts } = clock(40);
  const limit: Limit = machineTime(900_000, opts);
  c.t = 900_001;
  assert.equal(limit.expired(), false, 'fifteen minutes of wall time at load 40 are 45 s of the machine');
  c.t = 17_999_000;
  assert.equal(limit.expired(), false);
  c.t = 18_000_100;
  assert.equal(limit.expired(), true);
});

test('the load is read at every check: time spent quiet counts in full, time spent loaded less', () => {
  const { c, opts } = clock(1);
  const limit: Limit = machineTime(60_000, opts);
  c.t = 30_000;
  assert.equal(limit.expired(), false); // 30 s counted
  c.load = 20;
  c.t = 330_000;
  assert.equal(limit.expired(), false); // 300 s at a tenth: 30 s more, 60 s in all
  c.t = 340_000;
  assert.equal(limit.expired(), true);
});

test('a starved run stretches the limit by its smallest slowdown even when the load is low', () => {
  const { c, opts } = clock(0.1);
  const limit: Limit = machineTime(1_000, { ...opts, minSlowdown: 10 });
  c.t = 9_000;
  assert.equal(limit.expired(), false);
  c.t = 10_100;
  assert.equal(limit.expired(), true);
});

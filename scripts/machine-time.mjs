// A time limit counted in the time the machine could give a process, for the test runner's limit
// per file: the rule of the tests' own waits (test/helpers/deadline.ts).
import { availableParallelism, loadavg } from 'node:os';

/** The smallest slowdown HIWAR_TEST_MIN_SLOWDOWN sets (scripts/starve.mjs), at least 1. */
export function envMinSlowdown() {
  return Math.max(1, Number(process.env.HIWAR_TEST_MIN_SLOWDOWN) || 1);
}

/**
 * A limit of `ms` of the machine's time: wall time divided by the load average per core, at
 * least `minSlowdown` (HIWAR_TEST_MIN_SLOWDOWN, else 1: scripts/starve.mjs starves a run
 * without raising the load). At load 40 on two cores a minute of wall time counts three
 * seconds: a starved file is slow, not stuck. `expired()` adds the time since its last call.
 */
export function machineTime(ms, { now = Date.now, load = () => loadavg()[0], cores = availableParallelism(), minSlowdown = envMinSlowdown() } = {}) {
  let spent = 0;
  let last = now();
  return {
    expired() {
      const t = now();
      spent += (t - last) / Math.max(minSlowdown, load() / cores);
      last = t;
      return spent > ms;
    },
  };
}

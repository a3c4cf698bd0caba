import { availableParallelism, loadavg } from 'node:os';
import { envMinSlowdown, machineTime, type MachineTimeLimit } from '../../scripts/machine-time.mjs';

/**
 * How many times slower than on a quiet machine this process runs now: the cores'
 * oversubscription (load average per core, at least 1, or `HIWAR_TEST_MIN_SLOWDOWN`).
 */
export function slowdown(): number {
  return Math.max(envMinSlowdown(), loadavg()[0]! / availableParallelism());
}

/**
 * A test's wait limit that counts time the machine could give it: wall time divided by how
 * oversubscribed the cores are (load average per core, at least 1). On a quiet machine it is
 * the wall time; at load 28 on two cores a minute stretches to fourteen, since a starved
 * process is slow, not stuck. A hang still ends the wait. `HIWAR_TEST_MIN_SLOWDOWN` sets a
 * smallest divisor: `scripts/starve.mjs` starves a run without raising the load average.
 * The rule is the test runner's own limit per file (scripts/machine-time.mjs).
 */
export class Deadline {
  private readonly limit: MachineTimeLimit;

  constructor(ms: number) {
    this.limit = machineTime(ms);
  }

  get expired(): boolean {
    return this.limit.expired();
  }
}

/**
 * `p`, or a rejection once `ms` of the machine's time (a `Deadline`) have passed, naming `what`
 * was waited for (or with the message `what()` gives then): a limit on a wait that a loaded
 * machine stretches. Waits with their own wall-time timeout (a browser page's) get `timeout: 0`.
 */
export function within<T>(p: Promise<T>, ms: number, what: string | (() => string)): Promise<T> {
  const deadline = new Deadline(ms);
  let timer: ReturnType<typeof setInterval> | undefined;
  const expired = new Promise<never>((_, reject) => {
    const message = () => (typeof what === 'function' ? what() : `${what}: not within ${ms} ms of the machine's time`);
    timer = setInterval(() => deadline.expired && reject(new Error(message())), Math.min(250, ms));
    // A wait nobody awaits any more (lost a race) must not hold the test's process open.
    timer.unref();
  });
  // A wait given up on may still reject later (its page closed by the test's cleanup).
  p.catch(() => {});
  return Promise.race([p, expired]).finally(() => clearInterval(timer));
}

/**
 * Polls `cond` until it holds; fails naming `what` once `ms` of the machine's time (a `Deadline`)
 * have passed. For a state reached through sockets, timers or another process: a loaded machine
 * takes longer to get there, and the limit only catches a hang.
 */
export async function until(cond: () => boolean | Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = new Deadline(ms);
  while (!(await cond())) {
    if (deadline.expired) throw new Error(`timed out (${ms} ms of the machine's time) waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** A limit counted in the time the machine could give a process (scripts/machine-time.mjs). */
export interface MachineTimeLimit {
  /** Adds the time since the last call, scaled by the load, and says whether the limit is spent. */
  expired(): boolean;
}

/** The smallest slowdown HIWAR_TEST_MIN_SLOWDOWN sets (scripts/starve.mjs), at least 1. */
export function envMinSlowdown(): number;

/** A limit of `ms` of the machine's time: wall time divided by the load per core, at least `minSlowdown`. */
export function machineTime(
  ms: number,
  opts?: { now?: () => number; load?: () => number; cores?: number; minSlowdown?: number },
): MachineTimeLimit;

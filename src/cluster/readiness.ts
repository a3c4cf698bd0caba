/** Whether this instance should be sent new calls, from its own load. Pure. */
export interface InstanceLoad {
  calls: number;
  maxCalls: number;
  /** Callers waiting here for a slot of the key. */
  waiting: number;
  /** Event-loop delay, p99 over the last heartbeat, in ms. */
  loopDelayMs: number;
  draining: boolean;
  /** The cluster's Redis cannot be reached: no call can be admitted, no token checked. */
  redisDown?: boolean;
}

export type Readiness = { ready: true } | { ready: false; reason: 'draining' | 'Redis unreachable' | 'full' | 'event loop delayed' };

export function readiness(load: InstanceLoad, maxLoopDelayMs: number): Readiness {
  if (load.draining) return { ready: false, reason: 'draining' };
  if (load.redisDown) return { ready: false, reason: 'Redis unreachable' };
  if (load.calls + load.waiting >= load.maxCalls) return { ready: false, reason: 'full' };
  if (load.loopDelayMs > maxLoopDelayMs) return { ready: false, reason: 'event loop delayed' };
  return { ready: true };
}

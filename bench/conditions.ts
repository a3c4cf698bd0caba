/**
 * The conditions a figure is printed with: the machine's load average and how long this process
 * waited on the kernel's run queue (runnable while another process had the core), from Linux's
 * /proc/self/schedstat. A figure taken while the process waited is the machine's, not hiwar's.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';

/** The 1-minute load average, two decimals. */
export const loadAvg = (): number => Math.round(os.loadavg()[0]! * 100) / 100;

/** "load 1.23": the load average as a figure's condition. */
export const loadNote = (): string => `load ${loadAvg().toFixed(2)}`;

/** Run-queue wait of this process so far, ms (undefined where /proc/self/schedstat is missing). */
export function runQueueMs(): number | undefined {
  try {
    // "<on-cpu ns> <run-queue wait ns> <timeslices>"
    return Number(readFileSync('/proc/self/schedstat', 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return undefined;
  }
}

/** Load and run-queue wait over a span: `start()` before, `end()` after. */
export function conditions(): { end(): { loadBefore: number; loadAfter: number; runQueueWaitMs: number | null } } {
  const loadBefore = loadAvg();
  const q0 = runQueueMs();
  return {
    end() {
      const q1 = runQueueMs();
      return { loadBefore, loadAfter: loadAvg(), runQueueWaitMs: q0 === undefined || q1 === undefined ? null : Math.round(q1 - q0) };
    },
  };
}

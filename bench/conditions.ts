/**
 * The conditions a bench figure was measured under, printed beside it: the machine's load
 * average before and after the window, how long the measured processes waited in the run queue
 * (Linux `/proc/<pid>/task/<tid>/schedstat`: a runnable thread the scheduler did not run), and
 * whether the process was warm. A figure taken while the process was starved says more about the
 * machine than about hiwar: "calls per core" is then not printed (see `STARVED_WAIT_SHARE`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

/**
 * A process is starved when it spent more than this share of its runnable time waiting for a core
 * instead of running: wait / (run + wait) over the window, all its threads together. On a quiet
 * machine the share stays at a few per cent; with other work on every core it climbs past a half.
 */
export const STARVED_WAIT_SHARE = 0.1;

/** Run and run-queue wait time so far of the given processes (all their threads), ns; undefined off Linux. */
export function schedstat(pids: number[] = [process.pid]): { runNs: number; waitNs: number } | undefined {
  let runNs = 0;
  let waitNs = 0;
  try {
    for (const pid of pids) {
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').trim().split(/\s+/).map(Number);
        runNs += run ?? 0;
        waitNs += wait ?? 0;
      }
    }
  } catch {
    return undefined;
  }
  return { runNs, waitNs };
}

/** What is measured at the start of a window, to be closed by `conditionsOf`. */
export interface ConditionsStart {
  load1: number;
  sched: { runNs: number; waitNs: number } | undefined;
  pids: number[];
}

/** The conditions of one measured window. */
export interface Conditions {
  /** 1-minute load average at the start and at the end of the window. */
  loadBefore: number;
  loadAfter: number;
  /** Run-queue wait of the measured processes during the window, ms (null off Linux). */
  runQueueWaitMs: number | null;
  /** That wait as a share of the time they were runnable: wait / (run + wait). */
  runQueueWaitShare: number | null;
  /** Over `STARVED_WAIT_SHARE`: "calls per core" is not reported for this window. */
  starved: boolean;
  /** Warm: the process had already run calls before this window (JIT-compiled); cold: its first. */
  warm: boolean;
  calls: number;
  transport: string;
}

/** Starts a window for the given processes (this one by default). */
export function conditionsStart(pids: number[] = [process.pid]): ConditionsStart {
  return { load1: loadavg()[0]!, sched: schedstat(pids), pids };
}

/** Closes a window: load after, run-queue wait during it, starved or not. */
export function conditionsOf(start: ConditionsStart, o: { warm: boolean; calls: number; transport: string }): Conditions {
  const end = schedstat(start.pids);
  const s = start.sched;
  const waitNs = end && s ? end.waitNs - s.waitNs : undefined;
  const runNs = end && s ? end.runNs - s.runNs : undefined;
  const share = waitNs !== undefined && runNs !== undefined && runNs + waitNs > 0 ? waitNs / (runNs + waitNs) : undefined;
  return {
    loadBefore: round2(start.load1),
    loadAfter: round2(loadavg()[0]!),
    runQueueWaitMs: waitNs === undefined ? null : Math.round(waitNs / 1e6),
    runQueueWaitShare: share === undefined ? null : round2(share),
    // Unknown (not Linux) counts as starved: no figure is extrapolated without the evidence.
    starved: share === undefined || share > STARVED_WAIT_SHARE,
    warm: o.warm,
    calls: o.calls,
    transport: o.transport,
  };
}

/** One line of conditions, printed under every table of figures. */
export function conditionsLine(c: Conditions): string {
  const wait = c.runQueueWaitShare === null ? 'run-queue wait unknown' : `run-queue wait ${c.runQueueWaitMs} ms (${Math.round(c.runQueueWaitShare * 100)} % of runnable time${c.starved ? ', STARVED' : ''})`;
  return `${c.calls} calls, ${c.transport}, ${c.warm ? 'warm' : 'cold'} process, load ${c.loadBefore} → ${c.loadAfter}, ${wait}`;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** CPU time so far (user + system) of the given processes, µs, from `/proc/<pid>/stat`; undefined off Linux. */
export function cpuUsOf(pids: number[]): number | undefined {
  try {
    let ticks = 0;
    for (const pid of pids) {
      // The command name (field 2) may hold spaces: the fields after it start past its ')'.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]);
    }
    // Linux reports these in clock ticks of 1/100 s (USER_HZ) on every architecture Node runs on.
    return ticks * 10_000;
  } catch {
    return undefined;
  }
}

/** Resident memory of the given processes together, bytes (`/proc/<pid>/status` VmRSS); undefined off Linux. */
export function rssOf(pids: number[]): number | undefined {
  try {
    let kb = 0;
    for (const pid of pids) kb += Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
    return Number.isFinite(kb) ? kb * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** The 1-minute load average, two decimals. */
export const loadAvg = (): number => Math.round(loadavg()[0]! * 100) / 100;

/** "load 1.23": the load average as a figure's condition. */
export const loadNote = (): string => `load ${loadAvg().toFixed(2)}`;

/** Load and this process's run-queue wait over a span (all its threads): `end()` after. */
export function conditions(): { end(): { loadBefore: number; loadAfter: number; runQueueWaitMs: number | null } } {
  const loadBefore = loadAvg();
  const q0 = schedstat();
  return {
    end() {
      const q1 = schedstat();
      return { loadBefore, loadAfter: loadAvg(), runQueueWaitMs: q0 === undefined || q1 === undefined ? null : Math.round((q1.waitNs - q0.waitNs) / 1e6) };
    },
  };
}


/**
 * The conditions a bench figure was measured under, printed beside it: the machine's load
 * average before and after the window, how long the measured processes waited in the run queue
 * (Linux `/proc/<pid>/task/<tid>/schedstat`: a runnable thread the scheduler did not run), and
 * whether the process was warm. A figure taken while the process was starved says more about the
 * machine than about hiwar: "calls per core" is then not printed (see `STARVED_WAIT_SHARE`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { activePin, affinityOf, formatCpuList } from './pin.ts';
import { hasSingleThreadedGc } from '../src/cli/serve-gc.ts';

/**
 * A process is starved when it spent more than this share of its runnable time waiting for a core
 * instead of running: wait / (run + wait) over the window, all its threads together. On a quiet
 * machine the share stays at a few per cent; with other work on every core it climbs past a half.
 */
export const STARVED_WAIT_SHARE = 0.1;

/** Run and run-queue wait so far, ns: all threads, and apart the event loop's (each process's first thread). */
export interface Sched {
  runNs: number;
  waitNs: number;
  /** The main threads' own share: the thread that runs the event loop, whose wait is the calls' delay. */
  loopRunNs: number;
  loopWaitNs: number;
}

/**
 * Run and run-queue wait time so far of the given processes (all their threads), ns, and of their
 * main threads apart: a process's other threads (V8's compiler and collector, libuv's pool)
 * waiting for a core count in its total but do not hold up its loop, and on a pinned core they
 * take turns with it. Undefined off Linux.
 */
export function schedstat(pids: number[] = [process.pid]): Sched | undefined {
  const s: Sched = { runNs: 0, waitNs: 0, loopRunNs: 0, loopWaitNs: 0 };
  try {
    for (const pid of pids) {
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        const [run = 0, wait = 0] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').trim().split(/\s+/).map(Number);
        s.runNs += run;
        s.waitNs += wait;
        if (tid === String(pid)) {
          s.loopRunNs += run;
          s.loopWaitNs += wait;
        }
      }
    }
  } catch {
    return undefined;
  }
  return s;
}

/** What is measured at the start of a window, to be closed by `conditionsOf`. */
export interface ConditionsStart {
  load1: number;
  sched: Sched | undefined;
  pids: number[];
  /** The rig's processes (callers, fake service) and their schedstat at the start. */
  rigPids: number[];
  rigSched: Sched | undefined;
}

/**
 * Which CPUs the processes had at the end of a window (bench/pin.ts): read from
 * `/proc/<pid>/task/<tid>/status` of every thread, not taken from the plan.
 */
export interface Affinity {
  /** Whether the bench pinned (pin=auto or explicit lists) or ran unpinned. */
  pinned: boolean;
  /** CPU list of the measured process(es), and of the rig's (null when not read). */
  server: string | null;
  rig: string | null;
}

/** The rig's own run-queue wait over a window: a starved rig sends late and reads late, through no fault of hiwar. */
export interface RigWait {
  runQueueWaitMs: number | null;
  runQueueWaitShare: number | null;
  /** Over `STARVED_WAIT_SHARE` (unknown counts as not starved: the rig is not the process measured). */
  starved: boolean;
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
  /** The same wait for the event loop's threads alone (see `schedstat`). */
  loopWaitMs: number | null;
  loopWaitShare: number | null;
  /** Warm: the process had already run calls before this window (JIT-compiled); cold: its first. */
  warm: boolean;
  calls: number;
  transport: string;
  /**
   * The measured processes' garbage collector, from their command lines: `single-threaded` when
   * every one was started with `--single-threaded-gc` (`hiwar serve --gc`), `parallel` when none
   * was, `mixed` otherwise; null where a command line cannot be read.
   */
  gc: 'single-threaded' | 'parallel' | 'mixed' | null;
  /** The CPUs the server and the rig had. */
  affinity: Affinity;
  /** The rig's run-queue wait (null when the bench named no rig process). */
  rig: RigWait | null;
}

/** Starts a window for the given processes (this one by default) and, apart, the rig's. */
export function conditionsStart(pids: number[] = [process.pid], rigPids: number[] = []): ConditionsStart {
  return { load1: loadavg()[0]!, sched: schedstat(pids), pids, rigPids, rigSched: rigPids.length ? schedstat(rigPids) : undefined };
}

/** wait / (run + wait) between two schedstat readings, all threads and the loops' alone. */
function waitOf(a: Sched | undefined, b: Sched | undefined): { waitNs: number; share: number | undefined; loopWaitNs: number; loopShare: number | undefined } | undefined {
  if (!a || !b) return undefined;
  const share = (run: number, wait: number) => (run + wait > 0 ? wait / (run + wait) : undefined);
  const waitNs = b.waitNs - a.waitNs;
  const loopWaitNs = b.loopWaitNs - a.loopWaitNs;
  return { waitNs, share: share(b.runNs - a.runNs, waitNs), loopWaitNs, loopShare: share(b.loopRunNs - a.loopRunNs, loopWaitNs) };
}

/** The loop threads' wait of a window as the figures print it. */
function loopWait(w: ReturnType<typeof waitOf>): { loopWaitMs: number | null; loopWaitShare: number | null } {
  return { loopWaitMs: w ? Math.round(w.loopWaitNs / 1e6) : null, loopWaitShare: w?.loopShare === undefined ? null : round2(w.loopShare) };
}

/** The CPUs the server's and the rig's processes have now (every thread), and whether the bench pinned them. */
export function affinityNow(pids: number[], rigPids: number[]): Affinity {
  const list = (ps: number[]) => {
    const a = ps.length ? affinityOf(ps) : undefined;
    return a ? formatCpuList(a) : null;
  };
  return { pinned: activePin()?.pinned ?? false, server: list(pids), rig: list(rigPids) };
}

/** The rig's wait over a window started with `conditionsStart(…, rigPids)`; null without rig processes. */
function rigWaitOf(start: ConditionsStart): RigWait | null {
  if (!start.rigPids.length) return null;
  const w = waitOf(start.rigSched, schedstat(start.rigPids));
  return {
    runQueueWaitMs: w ? Math.round(w.waitNs / 1e6) : null,
    runQueueWaitShare: w?.share === undefined ? null : round2(w.share),
    starved: w?.share !== undefined && w.share > STARVED_WAIT_SHARE,
  };
}

/** Closes a window: load after, run-queue wait during it, starved or not. */
export function conditionsOf(start: ConditionsStart, o: { warm: boolean; calls: number; transport: string }): Conditions {
  const w = waitOf(start.sched, schedstat(start.pids));
  const waitNs = w?.waitNs;
  const share = w?.share;
  return {
    loadBefore: round2(start.load1),
    loadAfter: round2(loadavg()[0]!),
    runQueueWaitMs: waitNs === undefined ? null : Math.round(waitNs / 1e6),
    runQueueWaitShare: share === undefined ? null : round2(share),
    // Unknown (not Linux) counts as starved: no figure is extrapolated without the evidence.
    starved: share === undefined || share > STARVED_WAIT_SHARE,
    ...loopWait(w),
    warm: o.warm,
    calls: o.calls,
    transport: o.transport,
    gc: gcOf(start.pids),
    affinity: affinityNow(start.pids, start.rigPids),
    rig: rigWaitOf(start),
  };
}

/** One line of conditions, printed under every table of figures. */
export function conditionsLine(c: Conditions): string {
  const wait = c.runQueueWaitShare === null ? 'run-queue wait unknown' : `run-queue wait ${c.runQueueWaitMs} ms (${Math.round(c.runQueueWaitShare * 100)} % of runnable time${c.starved ? ', STARVED' : ''}${loopPart(c)})`;
  const gc = c.gc ? `${c.gc} GC; ` : '';
  return `${c.calls} calls, ${c.transport}, ${c.warm ? 'warm' : 'cold'} process, load ${c.loadBefore} → ${c.loadAfter}, ${wait}; ${gc}${affinityLine(c.affinity)}${c.rig ? `; ${rigLine(c.rig)}` : ''}`;
}

/** The collector of the processes `pids` (see `Conditions.gc`), from /proc/<pid>/cmdline. */
export function gcOf(pids: number[]): Conditions['gc'] {
  const lines = pids.map((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      return undefined;
    }
  });
  if (!lines.length || lines.some((l) => l === undefined)) return null;
  const single = lines.filter((l) => hasSingleThreadedGc(l!)).length;
  return single === lines.length ? 'single-threaded' : single === 0 ? 'parallel' : 'mixed';
}

/** "hiwar on CPU 1, rig on CPU 0 (pinned)" or "unpinned: hiwar on CPU 0-1, rig on CPU 0-1". */
export function affinityLine(a: Affinity): string {
  const where = `hiwar on CPU ${a.server ?? '?'}${a.rig !== null ? `, rig on CPU ${a.rig}` : ''}`;
  return a.pinned ? `${where} (pinned)` : `unpinned: ${where}`;
}

/** "rig run-queue wait 120 ms (3 %)", with a warning when the rig was starved. */
export function rigLine(r: RigWait): string {
  if (r.runQueueWaitShare === null) return 'rig run-queue wait unknown';
  const pct = `${r.runQueueWaitMs} ms (${Math.round(r.runQueueWaitShare * 100)} %)`;
  return r.starved ? `rig run-queue wait ${pct}: RIG STARVED, the far end (callers, fake service) ran late through no fault of hiwar` : `rig run-queue wait ${pct}`;
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** "; the event loop's thread 40 ms (2 %)": the part of the wait that held up the calls. */
function loopPart(c: { loopWaitMs: number | null; loopWaitShare: number | null }): string {
  return c.loopWaitShare === null ? '' : `; the event loop's thread ${c.loopWaitMs} ms (${Math.round(c.loopWaitShare * 100)} %)`;
}

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

/** A span's conditions, as the simpler benches print them. */
export interface SpanConditions {
  loadBefore: number;
  loadAfter: number;
  runQueueWaitMs: number | null;
  /** That wait as a share of the process's runnable time (null off Linux). */
  runQueueWaitShare: number | null;
  /** The event loop's thread alone (see `schedstat`). */
  loopWaitMs: number | null;
  loopWaitShare: number | null;
  affinity: Affinity;
  rig: RigWait | null;
}

/**
 * Load, this process's run-queue wait over a span (all its threads), the CPUs it and the rig's
 * processes (`rigPids`, the callers and the fake) had, and the rig's own wait: `end()` after.
 */
export function conditions(rigPids: number[] = []): { end(): SpanConditions } {
  const loadBefore = loadAvg();
  const start = conditionsStart([process.pid], rigPids);
  return {
    end() {
      const w = waitOf(start.sched, schedstat());
      const share = w?.share === undefined ? null : round2(w.share);
      return { loadBefore, loadAfter: loadAvg(), runQueueWaitMs: w ? Math.round(w.waitNs / 1e6) : null, runQueueWaitShare: share, ...loopWait(w), affinity: affinityNow([process.pid], rigPids), rig: rigWaitOf(start) };
    },
  };
}

/**
 * Whether a span's figures are the machine's rather than hiwar's: the process waited for a core
 * more than `STARVED_WAIT_SHARE` of its runnable time (unknown counts as starved), or its rig did.
 * A per-core figure is not printed from such a span.
 */
export function spanStarved(c: SpanConditions): boolean {
  return c.runQueueWaitShare === null || c.runQueueWaitShare > STARVED_WAIT_SHARE || !!c.rig?.starved;
}

/** The conditions of a span in a few words: load, hiwar's run-queue wait, the CPUs, the rig's wait. */
export function spanLine(c: SpanConditions): string {
  const share = c.runQueueWaitShare === null ? '' : ` (${Math.round(c.runQueueWaitShare * 100)} %${c.runQueueWaitShare > STARVED_WAIT_SHARE ? ', STARVED' : ''}${loopPart(c)})`;
  return `load ${c.loadBefore} → ${c.loadAfter}, run-queue wait ${c.runQueueWaitMs ?? '–'} ms${share}; ${affinityLine(c.affinity)}${c.rig ? `; ${rigLine(c.rig)}` : ''}`;
}


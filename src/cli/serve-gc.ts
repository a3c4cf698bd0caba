/**
 * `hiwar serve --gc single|parallel|auto`: whether V8's garbage collector works on helper threads
 * of its own or on the server's one thread. V8 scavenges in parallel and marks concurrently on
 * helper threads; where every core already runs a server process (`--workers` filling the
 * machine, or one process pinned to one core), those threads take their core from a loop that
 * has calls to serve, and the loop waits for it. At 300 Twilio calls on one core, the loop waited
 * for its core about a fifth of its time with helper threads and about a twentieth without, and
 * half the agent frames were late (docs/performance.md). The choice is a V8 flag
 * (`--single-threaded-gc`), which must be on the command line of a process when it starts, so
 * the processes that take it are the workers the primary forks (a lone worker when one process
 * asks for it).
 *
 * The pure parts (the choice, the workers' command line) are apart from the forking.
 */
import { UsageError } from './args.ts';

/** V8's flag: every collection on the thread that allocates, no helper threads. */
export const SINGLE_THREADED_GC = '--single-threaded-gc';

/** What `--gc` asks for. */
export type GcMode = 'single' | 'parallel' | 'auto';

/** `hiwar serve`'s `--gc` flag. */
export const GC_FLAG = { gc: { type: 'string' } } as const;

/** The flag's lines in `hiwar serve --help`. */
export const GC_HELP = `  --gc single|parallel|auto
                         the garbage collector's threads: single (on the server's own thread),
                         parallel (V8's helper threads), auto (the default: single when --workers
                         puts a process on every core, parallel otherwise); docs/scaling.md`;

/** Reads `--gc` (auto when absent). */
export function gcMode(raw: string | undefined, usage: string): GcMode {
  if (raw === undefined) return 'auto';
  if (raw === 'single' || raw === 'parallel' || raw === 'auto') return raw;
  throw new UsageError(`--gc must be "single", "parallel" or "auto", got "${raw}"`, usage);
}

/**
 * The collector the server processes get: `auto` is single-threaded when there are two or more
 * workers and at least as many as the CPUs this process may run on (each then has a core and no
 * more), parallel otherwise. One process keeps V8's default under `auto`: it would have to be
 * forked to change it.
 */
export function gcThreads(mode: GcMode, workers: number, cpus: number): 'single' | 'parallel' {
  if (mode !== 'auto') return mode;
  return workers >= 2 && workers >= cpus ? 'single' : 'parallel';
}

/** V8's flag and its negation, as Node takes them (V8 reads `-` and `_` alike). */
const GC_FLAG_PATTERN = /^--(no-)?single[-_]threaded[-_]gc$/;

/** Whether `execArgv` (a process's own Node flags) already has the single-threaded collector (the last of the flag and its negation wins). */
export function hasSingleThreadedGc(execArgv: readonly string[]): boolean {
  let on = false;
  for (const a of execArgv) {
    const m = GC_FLAG_PATTERN.exec(a);
    if (m) on = !m[1];
  }
  return on;
}

/** The Node flags of a forked worker: the primary's own, with the collector's flag set as chosen. */
export function workerExecArgv(execArgv: readonly string[], threads: 'single' | 'parallel'): string[] {
  const rest = execArgv.filter((a) => !GC_FLAG_PATTERN.test(a));
  return threads === 'single' ? [...rest, SINGLE_THREADED_GC] : rest;
}

/**
 * Whether one process (no `--workers`, or `--workers 1`) must run its server in a forked worker to
 * have the collector asked for: only `--gc single` given explicitly, in a process started without
 * the flag.
 */
export function loneWorkerNeeded(mode: GcMode, execArgv: readonly string[]): boolean {
  return mode === 'single' && !hasSingleThreadedGc(execArgv);
}

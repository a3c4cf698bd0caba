/**
 * CPU isolation of the bench rig (`pin=auto|off|<server cpus>/<rig cpus>`): on one machine the
 * benches run hiwar (the process under measurement), the simulated callers and the fake service
 * together; unpinned, they take turns on the same cores and the server's tail is its run-queue
 * wait, which in production (callers and service on other machines) it does not have. Pinned,
 * the server gets its own core(s) and the rig (callers, fake service) the rest, with `taskset`
 * (util-linux): a child is started under `taskset -c LIST`, a running process is moved with all
 * its threads (`taskset -a -p -c LIST PID`: libuv's pool, the GC's and the compiler's threads).
 * The server still does all of its own work (every byte it reads and writes on its sockets, its
 * collections); only the rig's CPU leaves its core.
 *
 * The pure parts (parsing, the split, the argv) are apart from the one that runs `taskset`.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';

/** What `pin=` asked for: the automatic split, none, or explicit CPU lists. */
export type PinOption = { mode: 'auto' } | { mode: 'off' } | { mode: 'cpus'; server: number[]; rig: number[] };

/** The usage of `pin=`, in every error about it. */
export const PIN_USAGE = 'pin= is auto (the server on its own core(s), the callers and the fake on the rest when they keep two or more; the default), off (every process on every core), or <server cpus>/<rig cpus> such as 1/0 or 2-3/0-1';

/** A Linux CPU list ("0-2,5") as numbers, ascending; throws on anything else. */
export function parseCpuList(s: string): number[] {
  const out = new Set<number>();
  for (const part of s.split(',')) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!m) throw new Error(`"${s}" is not a CPU list (such as 0, 1-3 or 0,2)`);
    const a = Number(m[1]);
    const b = m[2] === undefined ? a : Number(m[2]);
    if (b < a) throw new Error(`"${part}" in "${s}" runs backwards`);
    for (let c = a; c <= b; c++) out.add(c);
  }
  return [...out].sort((x, y) => x - y);
}

/** Numbers as a Linux CPU list, runs collapsed: [0, 1, 2, 5] → "0-2,5". */
export function formatCpuList(cpus: readonly number[]): string {
  const s = [...new Set(cpus)].sort((a, b) => a - b);
  const runs: string[] = [];
  for (let i = 0; i < s.length; ) {
    let j = i;
    while (j + 1 < s.length && s[j + 1] === s[j]! + 1) j++;
    runs.push(i === j ? String(s[i]) : `${s[i]}-${s[j]}`);
    i = j + 1;
  }
  return runs.join(',');
}

/** Parses `pin=`: undefined is `auto`. */
export function parsePin(value: string | undefined): PinOption {
  if (value === undefined || value === 'auto') return { mode: 'auto' };
  if (value === 'off') return { mode: 'off' };
  const halves = value.split('/');
  if (halves.length !== 2 || !halves[0] || !halves[1]) throw new Error(`${PIN_USAGE}; not ${value}`);
  let server: number[];
  let rig: number[];
  try {
    server = parseCpuList(halves[0]);
    rig = parseCpuList(halves[1]);
  } catch (err) {
    throw new Error(`${PIN_USAGE}; ${(err as Error).message}`);
  }
  const both = server.filter((c) => rig.includes(c));
  if (both.length) throw new Error(`pin=${value}: CPU ${formatCpuList(both)} is both the server's and the rig's; the point is that they share none`);
  return { mode: 'cpus', server, rig };
}

/**
 * The automatic split of `cpus`: the server on the last `serverCores` of them (one per process
 * under measurement), the rig on the others, the rig keeping at least one. Undefined when
 * there is no such split (one CPU; as many server processes as CPUs).
 */
export function chooseSplit(cpus: readonly number[], serverCores = 1): { server: number[]; rig: number[] } | undefined {
  const s = [...new Set(cpus)].sort((a, b) => a - b);
  if (!Number.isInteger(serverCores) || serverCores < 1) throw new Error(`serverCores must be a whole number ≥ 1, not ${serverCores}`);
  if (s.length < 2 || serverCores >= s.length) return undefined;
  return { server: s.slice(s.length - serverCores), rig: s.slice(0, s.length - serverCores) };
}

/** `taskset -c LIST command args…`: a child started on `cpus` (its threads and children inherit them). */
export function tasksetSpawnArgv(cpus: readonly number[], command: string, args: readonly string[]): [string, string[]] {
  return ['taskset', ['-c', formatCpuList(cpus), command, ...args]];
}

/** `taskset -a -p -c LIST PID`: a running process moved onto `cpus`, every thread of it. */
export function tasksetPidArgv(cpus: readonly number[], pid: number): string[] {
  return ['-a', '-p', '-c', formatCpuList(cpus), String(pid)];
}

/** What the machine offers: the CPUs this process may run on, and whether `taskset` runs. */
export interface Machine {
  cpus: number[];
  taskset: boolean;
}

/** The resolved split a bench runs with, and the one line that says so. */
export interface PinPlan {
  pinned: boolean;
  /** CPUs of the process(es) under measurement, and of the callers and the fake (all CPUs when unpinned). */
  server: number[];
  rig: number[];
  /** One line for the bench's output: the split, or why there is none. */
  note: string;
}

/** `pin=auto` splits only when the callers and the fake keep at least this many CPUs. */
export const AUTO_MIN_RIG_CPUS = 2;

/** Resolves `pin=` against the machine: `auto` pins when it can and says why not otherwise; explicit lists need `taskset`. */
export function planPin(opt: PinOption, machine: Machine, serverCores = 1): PinPlan {
  const all = machine.cpus;
  const unpinned = (why: string): PinPlan => ({ pinned: false, server: all, rig: all, note: `pin: unpinned, ${why}: hiwar, the callers and the fake share CPU ${formatCpuList(all)}` });
  if (opt.mode === 'off') return unpinned('as asked (pin=off)');
  if (opt.mode === 'cpus') {
    if (!machine.taskset) throw new Error('pin= with CPU lists needs taskset (util-linux), which did not run here');
    return { pinned: true, server: opt.server, rig: opt.rig, note: pinnedNote(opt.server, opt.rig, `pin=${formatCpuList(opt.server)}/${formatCpuList(opt.rig)}`) };
  }
  if (!machine.taskset) return unpinned('no taskset (util-linux) here');
  const split = chooseSplit(all, serverCores);
  if (!split) return unpinned(all.length < 2 ? `one CPU only (${formatCpuList(all)})` : `${serverCores} server processes leave no CPU of ${formatCpuList(all)} for the rig`);
  // On two CPUs a rig of one starved (100 Twilio calls: its processes waited a third of the
  // window) and hiwar's own helper threads shared its one CPU: p99 worse pinned than not
  // (docs/performance.md). An explicit split still does it.
  if (split.rig.length < AUTO_MIN_RIG_CPUS) return unpinned(`pin=auto leaves the rig ${split.rig.length} CPU of ${formatCpuList(all)}, which measured worse than sharing (pin=${formatCpuList(split.server)}/${formatCpuList(split.rig)} splits them anyway)`);
  return { pinned: true, ...split, note: pinnedNote(split.server, split.rig, 'pin=auto; pin=off to share every CPU') };
}

function pinnedNote(server: number[], rig: number[], how: string): string {
  return `pin: hiwar on CPU ${formatCpuList(server)}, the rig (callers, fake service) on CPU ${formatCpuList(rig)} (${how})`;
}

/**
 * A warning for the pin line when the machine is busy with other work (1-minute load at or above
 * its CPUs): pinning keeps the rig off hiwar's CPU, not the rest of the machine, and a pinned
 * process can no longer move to another CPU when its own is taken.
 */
export function busyNote(load1: number, cpus: number, pinned: boolean): string {
  if (load1 < cpus) return '';
  const what = pinned ? 'other work shares hiwar\'s CPU, which it cannot leave' : 'other work shares every CPU';
  return `; load ${load1.toFixed(2)} on ${cpus} CPUs: ${what}, so these figures are the machine's before they are hiwar's`;
}

/**
 * For a bench with nothing to pin (one process, no rig apart from hiwar): `pin=` given is an
 * error that says why, not an option silently ignored.
 */
export function refusePin(value: string | undefined, bench: string, why: string): void {
  if (value !== undefined) throw new Error(`${bench} takes no pin=: ${why}`);
}

/** The value of `pin=` that gives a child process this same plan (it re-pins itself and its own rig). */
export function pinArg(plan: PinPlan): string {
  return plan.pinned ? `pin=${formatCpuList(plan.server)}/${formatCpuList(plan.rig)}` : 'pin=off';
}

// ——— the parts that touch the machine ———

/** The CPUs a process may run on (`Cpus_allowed_list`, all its threads together); undefined off Linux or once it is gone. */
export function affinityOf(pids: readonly number[]): number[] | undefined {
  const cpus = new Set<number>();
  try {
    for (const pid of pids) {
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        const list = /^Cpus_allowed_list:\s*(\S+)/m.exec(readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8'))?.[1];
        if (list === undefined) return undefined;
        for (const c of parseCpuList(list)) cpus.add(c);
      }
    }
  } catch {
    return undefined;
  }
  return cpus.size ? [...cpus].sort((a, b) => a - b) : undefined;
}

let machineCache: Machine | undefined;

/**
 * This machine, read once (before any pinning, so a bench that pinned itself and resolves
 * `pin=auto` again splits the same CPUs): this process's allowed CPUs (a bench started under
 * `taskset` splits what it was given), and whether `taskset` runs.
 */
export function machine(): Machine {
  if (!machineCache) {
    const cpus = affinityOf([process.pid]) ?? Array.from({ length: availableParallelism() }, (_, i) => i);
    const t = spawnSync('taskset', ['-V'], { stdio: 'ignore' });
    machineCache = { cpus, taskset: t.status === 0 };
  }
  return machineCache;
}

/** Moves a running process, every thread, onto `cpus`; throws with taskset's own words on failure. */
export function pinProcess(pid: number, cpus: readonly number[]): void {
  const r = spawnSync('taskset', tasksetPidArgv(cpus, pid), { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`taskset ${tasksetPidArgv(cpus, pid).join(' ')} failed: ${(r.stderr || r.error?.message || '').trim()}`);
}

let active: PinPlan | undefined;

/**
 * Resolves `pin=` for this bench, prints its one line, and puts this process where it belongs:
 * `self: 'server'` when hiwar runs in the bench process, `'rig'` when the bench only drives a
 * server of its own processes, `'none'` when it only starts other benches. Children started
 * after it through `rigCommand`/`serverCommand` land on their side.
 */
export function pinBench(value: string | undefined, o: { self: 'server' | 'rig' | 'none'; serverCores?: number }): PinPlan {
  const plan = planPin(parsePin(value), machine(), o.serverCores ?? 1);
  if (plan.pinned && o.self !== 'none') pinProcess(process.pid, o.self === 'server' ? plan.server : plan.rig);
  // Once per bench: the latency rows and the headline's two routes resolve it again.
  if (plan.note !== active?.note) console.log(`${plan.note}${busyNote(loadavg()[0]!, machine().cpus.length, plan.pinned)}`);
  active = plan;
  return plan;
}

/** The plan in force in this process (unpinned when no bench set one). */
export function activePin(): PinPlan | undefined {
  return active;
}

/** `[command, args]` for a rig child (callers, fake service): under `taskset -c <rig cpus>` when pinned. */
export function rigCommand(command: string, args: readonly string[]): [string, string[]] {
  return active?.pinned ? tasksetSpawnArgv(active.rig, command, args) : [command, [...args]];
}

/** `[command, args]` for a server child (`hiwar serve` and its workers): under `taskset -c <server cpus>` when pinned. */
export function serverCommand(command: string, args: readonly string[]): [string, string[]] {
  return active?.pinned ? tasksetSpawnArgv(active.server, command, args) : [command, [...args]];
}

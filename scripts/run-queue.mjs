// How many processes want the CPU at normal priority: the runner's check that the machine is not
// already oversubscribed before it starts more heavy files than its minimum (docs/testing.md).
import { readdirSync, readFileSync } from 'node:fs';

/**
 * One line of /proc/<pid>/stat as the gate needs it: the process's state and niceness, or
 * undefined for a line it cannot read. The name (field 2) may hold spaces and parentheses: the
 * fields after it start after its last ')'.
 */
export function parseStat(line) {
  const end = line.lastIndexOf(')');
  if (end < 0) return undefined;
  const f = line.slice(end + 2).split(' ');
  // After the name: state is field 3 of the line, niceness field 19 (proc(5)).
  const nice = Number(f[16]);
  if (!f[0] || !Number.isFinite(nice)) return undefined;
  return { state: f[0], nice };
}

/** Processes running or ready to run (state R) at niceness 0 or less, this one aside. */
export function runnableNow({ proc = '/proc', self = process.pid } = {}) {
  let n = 0;
  for (const pid of readdirSync(proc)) {
    if (pid.charCodeAt(0) > 57 || Number(pid) === self) continue;
    let line;
    try {
      line = readFileSync(`${proc}/${pid}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    const s = parseStat(line);
    if (s && s.state === 'R' && s.nice <= 0) n++;
  }
  return n;
}

/**
 * The mean of the last `window` readings of `read` (one per call). Niced processes are left out
 * because they yield (the runner's light lane and type checks run at niceness 10); a process is
 * read by its main thread only, so a busy worker thread is not seen: a floor, not a count.
 */
export function runQueueMeter({ window = 5, read = runnableNow } = {}) {
  const seen = [];
  return () => {
    seen.push(read());
    if (seen.length > window) seen.shift();
    return seen.reduce((a, b) => a + b, 0) / seen.length;
  };
}

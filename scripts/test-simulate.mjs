#!/usr/bin/env node
// `node scripts/test-simulate.mjs [TIMES]`: predicts the wall time of `npm test` on a machine of
// two cores for several scheduling policies, from each file's wall and CPU time in one run (the
// runner's node_modules/.cache/hiwar/test-times.json, the schedule scripts/test-times.json, or
// the `# file` lines of a saved `npm test` log). docs/testing.md ("Choosing the schedule") says
// how the runner's policy was chosen with it.
//
// The model: a file alone runs for its wall time `s` and uses its CPU `cpu` evenly over it, so it
// asks for `cpu / s` cores (its rate). While the heavy lane's files ask for more cores than the
// machine has, the cores are shared as the kernel shares them between equal processes (max-min:
// a file asking for less than an equal share gets what it asks, the rest split the remainder),
// and a file given a fraction of its rate advances at that fraction of its pace (a whole call
// given half the CPU it needs takes twice as long). The light lane and the type checks are niced:
// they weigh a tenth of a heavy file when the cores are short. Start-up bursts, memory and I/O are not modelled,
// and the times in a log were measured with other files beside them (so a file's `s` already
// holds some waiting): compare policies with it, and check the chosen one with a real run.
import { existsSync, readFileSync } from 'node:fs';

/** Seconds per step of the simulation. */
const DT = 0.05;
/** The kernel's weight of a process at niceness 10 relative to one at 0 (110 / 1024). */
const NICED_WEIGHT = 0.107;

/**
 * Cores given to each demand (cores asked for) out of `capacity`, as the kernel shares them
 * (weighted max-min: a demand below its weighted share of what is left is met, the rest share
 * the remainder by weight). `weights` default to 1 each; a process at niceness 10 weighs about
 * a tenth of one at 0 (the kernel's weights 110 and 1024).
 */
export function shareCores(demands, capacity, weights = demands.map(() => 1)) {
  const given = demands.map(() => 0);
  let left = capacity;
  let open = demands.map((d, i) => i);
  // Meet every demand below its share of what is left, until none is: the rest split it by weight.
  for (;;) {
    const weight = open.reduce((n, i) => n + weights[i], 0);
    const met = open.filter((i) => demands[i] <= (left * weights[i]) / weight);
    if (!met.length) {
      for (const i of open) given[i] = (left * weights[i]) / weight;
      return given;
    }
    for (const i of met) {
      given[i] = demands[i];
      left -= demands[i];
    }
    open = open.filter((i) => !met.includes(i));
    if (!open.length) return given;
  }
}

/**
 * A policy says how many heavy files may run: `min` always; beyond it up to `max`, the next file
 * starts while the expected rates of the running heavy files and its own add up to at most
 * `budget` cores (Infinity: no budget, `max` at once). With `idle` ({ margin, rampS, windowS }),
 * as the runner before 26 November 2026 evening: beyond `min`, a check once a second starts the
 * next file only when the cores idle over the last `windowS` (the niced lanes' counting as idle)
 * cover its rate plus `margin`, and not within `rampS` of the last start. With `others`
 * ({ windowS }), as the runner since: the budget shrinks by the cores other processes were seen
 * to use over the last `windowS` (busy cores, niced time apart, less the heavy files' expected rates).
 */
export const policy = (name, { min = 2, max = min, budget = Infinity, order = 'wall', idle, others } = {}) => ({ name, min, max, budget, order, idle, others });

/** Orders of the heavy lane: longest wall first; most CPU first; the wall-bound (lowest rate) of the long ones first. */
const ORDERS = {
  wall: (a, b) => b.s - a.s,
  cpu: (a, b) => b.cpu - a.cpu,
  // Long files first, and among files of similar length the ones that wait most.
  waitFirst: (a, b) => b.s - b.cpu - (a.s - a.cpu),
};

/**
 * Simulates one run of `files` ({ file, s, cpu, lane: 'heavy' | 'light' }) on `cores` cores under
 * `p` (see policy). The light lane runs one file at a time beside the heavy lane; `background` is
 * more niced CPU beside it (s of CPU at one core: the type checks); `hogs` other processes that
 * each want a whole core all the time at normal priority (another suite: a loaded machine).
 * Returns the predicted wall time (s), the CPU the run used, the most heavy files at once, the
 * share of its rate a heavy file got on average over its time (1: never starved), and each
 * file's start and end.
 */
export function simulate(files, p, { cores = 2, background = 0, hogs = 0 } = {}) {
  const rate = (f) => (f.s > 0 ? Math.max(f.cpu, 0.01) / f.s : 1);
  const heavyQueue = files.filter((f) => f.lane !== 'light').sort((a, b) => ORDERS[p.order](a, b) || a.file.localeCompare(b.file));
  const lightQueue = files.filter((f) => f.lane === 'light').sort((a, b) => b.s - a.s || a.file.localeCompare(b.file));
  const background_ = background > 0 ? [{ file: '(type checks)', s: background, cpu: background, lane: 'light' }] : [];
  const running = [];
  const events = [];
  let t = 0;
  let widest = 0;
  let cpuUsed = 0;
  let shareSum = 0;
  let shareTime = 0;
  const start = (f, lane) => running.push({ f, lane, done: 0, rate: rate(f), startedAt: t });
  const heavyRate = () => running.filter((r) => r.lane === 'heavy').reduce((n, r) => n + r.rate, 0);
  /** Idle cores seen each step (the heavy lane's use only), for an `idle` policy's meter. */
  const idleSeen = [];
  /** Cores the other processes were seen to use each step (busy cores less the heavy files' expected rates). */
  const othersSeen = [];
  let lastStart = -Infinity;
  let nextCheck = 0;
  while (heavyQueue.length || lightQueue.length || background_.length || running.length) {
    // Starts: the heavy lane to its minimum, then within the budget up to its maximum; the light lane one at a time.
    let heavy = running.filter((r) => r.lane === 'heavy').length;
    // The idle meter, read once a second: each file started on it takes its rate off what is left.
    let idle;
    if (p.idle && t >= nextCheck) {
      nextCheck = t + 1;
      const window = idleSeen.slice(-Math.round(p.idle.windowS / DT));
      idle = window.length ? window.reduce((n, x) => n + x, 0) / window.length : 0;
      // Files started within the window have not shown their CPU in it yet: count them as expected.
      if (p.idle.recent) idle -= running.filter((r) => r.lane === 'heavy' && t - r.startedAt < p.idle.windowS).reduce((n, r) => n + r.rate, 0);
    }
    let budget = p.budget;
    if (p.others) {
      // Nothing beyond `min` before the meter's first reading (a second): the load is not known yet.
      const window = othersSeen.slice(-Math.round(p.others.windowS / DT));
      budget = othersSeen.length < 1 / DT ? -Infinity : budget - window.reduce((n, x) => n + x, 0) / window.length;
    }
    const more = () => {
      if (heavy >= p.max || heavyRate() + rate(heavyQueue[0]) > budget) return false;
      if (!p.idle) return true;
      if (idle === undefined || t - lastStart < p.idle.rampS || idle < rate(heavyQueue[0]) + p.idle.margin) return false;
      idle -= rate(heavyQueue[0]);
      // The runner before started at most one file a check.
      if (p.idle.rampS) idle = -Infinity;
      return true;
    };
    while (heavyQueue.length && (heavy < p.min || more())) {
      start(heavyQueue.shift(), 'heavy');
      lastStart = t;
      heavy++;
    }
    widest = Math.max(widest, heavy);
    if (!running.some((r) => r.lane === 'light') && lightQueue.length) start(lightQueue.shift(), 'light');
    if (!running.some((r) => r.lane === 'background') && background_.length) start(background_.shift(), 'background');
    // CPU: the heavy lane first, the niced rest from what it leaves.
    const hs = running.filter((r) => r.lane === 'heavy');
    const ls = running.filter((r) => r.lane !== 'heavy');
    const demands = [...hs.map((r) => r.rate), ...ls.map((r) => r.rate), ...Array(hogs).fill(1)];
    const weights = [...hs.map(() => 1), ...ls.map(() => NICED_WEIGHT), ...Array(hogs).fill(1)];
    const shared = shareCores(demands, cores, weights);
    const hGiven = shared.slice(0, hs.length);
    const lGiven = shared.slice(hs.length, hs.length + ls.length);
    // The runner's meter counts niced time as idle: what the heavy lane and the other processes leave.
    idleSeen.push(cores - hGiven.reduce((n, g) => n + g, 0) - shared.slice(hs.length + ls.length).reduce((n, g) => n + g, 0));
    othersSeen.push(Math.max(0, cores - idleSeen[idleSeen.length - 1] - hs.reduce((n, r) => n + r.rate, 0)));
    if (othersSeen.length > 1000) othersSeen.splice(0, 500);
    for (let i = 0; i < hs.length; i++) {
      shareSum += (hGiven[i] / hs[i].rate) * DT;
      shareTime += DT;
    }
    if (idleSeen.length > 1000) idleSeen.splice(0, 500);
    [...hs, ...ls].forEach((r, i) => {
      const given = i < hs.length ? hGiven[i] : lGiven[i - hs.length];
      cpuUsed += given * DT;
      r.done += (DT * (given / r.rate)) / r.f.s;
    });
    t += DT;
    for (let i = running.length - 1; i >= 0; i--) {
      if (running[i].done >= 1 - 1e-9) {
        events.push({ file: running[i].f.file, lane: running[i].lane, start: running[i].startedAt, end: t });
        running.splice(i, 1);
      }
    }
  }
  return { wall: t, cpu: cpuUsed, widest, share: shareTime ? shareSum / shareTime : 1, events };
}

/**
 * Each file's wall and CPU time from one of: the runner's last times ({ files: [{ file, s, cpuS,
 * lane }] }), the schedule ({ file: { s, cpu, lane } }), or the text of an `npm test` log
 * (`# file F (heavy lane): 12.3 s (CPU 4.5 s), ...`; a grouped file's line has no CPU of its own,
 * its group's line has it, and the group counts as one file).
 */
export function readTimes(text) {
  try {
    const json = JSON.parse(text);
    if (Array.isArray(json.files)) return json.files.map((f) => ({ file: f.file, s: f.s, cpu: f.cpuS ?? 0, lane: f.lane }));
    return Object.entries(json).map(([file, f]) => ({ file, s: f.s, cpu: f.cpu ?? 0, lane: f.lane }));
  } catch {
    const files = [];
    for (const m of text.matchAll(/^# (file \S+|group \d+) \((\w+) lane\)[^:]*: (?:\d+ files in one process, )?([\d.]+) s \(CPU ([\d.]+) s\)/gm)) files.push({ file: m[1].replace(/^file /, ''), s: Number(m[3]), cpu: Number(m[4]), lane: m[2] });
    return files;
  }
}

/** The policies compared by default: the runner's before and after, and the ones around them. */
export const POLICIES = [
  policy('2, more on idle cores (margin 0.4, 4 s apart), at most 4: the runner before', { min: 2, max: 4, idle: { margin: 0.4, rampS: 4, windowS: 3 } }),
  policy('2, more within the cores others leave, at most 8: the runner now', { min: 2, max: 8, budget: 2, others: { windowS: 3 } }),
  policy('2 at once', { min: 2 }),
  policy('3 at once', { min: 3 }),
  policy('4 at once', { min: 4 }),
  policy('6 at once', { min: 6 }),
  policy('8 at once', { min: 8 }),
  policy('2, more within 2 cores, at most 8 (others not counted)', { min: 2, max: 8, budget: 2 }),
  policy('2, more within 1.6 cores, at most 8', { min: 2, max: 8, budget: 1.6, others: { windowS: 3 } }),
  policy('2, more within 2.4 cores, at most 8', { min: 2, max: 8, budget: 2.4, others: { windowS: 3 } }),
  policy('2, more within 2 cores, at most 12', { min: 2, max: 12, budget: 2, others: { windowS: 3 } }),
  policy('the runner now, most CPU first', { min: 2, max: 8, budget: 2, order: 'cpu', others: { windowS: 3 } }),
  policy('the runner now, most waiting first', { min: 2, max: 8, budget: 2, order: 'waitFirst', others: { windowS: 3 } }),
];

if (import.meta.url === `file://${process.argv[1]}`) {
  const path = process.argv[2] ?? new URL('../node_modules/.cache/hiwar/test-times.json', import.meta.url).pathname;
  if (!existsSync(path)) {
    // No full run yet on this checkout: say what to give instead of a stack trace.
    console.error(`test-simulate: no times at ${path}; run \`npm test\` once, or name a file: node scripts/test-simulate.mjs scripts/test-times.json`);
    process.exit(2);
  }
  const files = readTimes(readFileSync(path, 'utf8'));
  const cpu = files.reduce((n, f) => n + f.cpu, 0);
  const longest = files.reduce((m, f) => (f.s > m.s ? f : m), { s: 0 });
  console.log(`${files.length} files, ${cpu.toFixed(0)} s of CPU (at least ${(cpu / 2).toFixed(0)} s on 2 cores), the longest ${longest.file} ${longest.s} s`);
  const hogs = Number(process.env.HOGS ?? 4);
  console.log(`quiet: predicted wall, CPU used, most heavy files at once, a heavy file's share of its rate; then the same beside ${hogs} processes that want a core each`);
  for (const p of POLICIES) {
    const r = simulate(files, p, { background: 30 });
    const l = simulate(files, p, { background: 30, hogs });
    const row = (x) => `${x.wall.toFixed(0).padStart(5)} s ${((x.cpu / (2 * x.wall)) * 100).toFixed(0).padStart(3)} % ${String(x.widest).padStart(2)} ${x.share.toFixed(2)}`;
    console.log(`${row(r)} | ${row(l)}  ${p.name}`);
  }
}

#!/usr/bin/env node
// `npm test`: the two type checks and the test files at the same time, each test file in its own
// Node process (as `node --test` runs them), scheduled in two lanes (docs/testing.md):
//
// - the heavy lane, slowest first: whole calls on scaled clocks, Chromium, mediasoup, child
//   processes; these spend their time waiting on clocks and sockets, but each needs its share of
//   the CPU to keep up with its clock, so two at once, and more while their expected CPU fits the
//   cores that other processes leave (MAX_CONCURRENCY below);
// - the light lane, one file at a time beside it: files that took a few seconds at most
//   (the lane in scripts/test-times.json): no call, clock, browser or server process, a few
//   seconds at most, mostly loading the sources; at a lower CPU priority (as are the
//   type checks). In the heavy lane each would hold one of its two places for the seconds its
//   start-up takes.
//
// Hand-written rather than `node --test` because node's runner has one queue for all files
// (no lanes) and reports no per-file times; nothing on npm schedules node:test files in lanes.
// Each file's TAP report is printed whole when the file ends, then one summary for the run in
// node's format (`# tests`, `# pass`, `# fail`, `# duration_ms`), the slowest files, and which
// files failed. Per-file times of the last full run: node_modules/.cache/hiwar/test-times.json
// (`npm run test:times` prints them; `npm run test:times -- --save` makes them the schedule).
//
// The files run compiled: scripts/test-build.mjs transforms the repository's TypeScript once into
// a tree of JavaScript beside it (.tmp/test-tree-*, removed at the end), and each file runs from
// there on plain Node, as do the `hiwar` processes the tests start. HIWAR_TEST_SOURCES=1 runs the
// sources through tsx instead, as `node --import tsx --test FILE` does.
//
// Short files share processes: each lane runs its light files, and heavy files of a few seconds,
// in groups, several files in one Node process, each file's tests in a suite of its own and its
// report printed as its own (scripts/test-groups.mjs says which files may share one);
// HIWAR_TEST_GROUP=0 gives every file its own process, HIWAR_TEST_GROUP=1 groups named files too.
//
// Knobs: HIWAR_TEST_CONCURRENCY (heavy files at once, 2), HIWAR_TEST_MAX_CONCURRENCY (at most,
// within the CPU budget, 16), HIWAR_TEST_CPU_BUDGET (cores the heavy files' expected rates may
// add up to, the machine's cores × 1.25), HIWAR_TEST_LIGHT=0 (no light lane: all
// files in the heavy lane, slowest first), HIWAR_TEST_FILE_TIMEOUT_S (a file still running after
// this many seconds of the machine's time is killed and counted as failed, 900), HIWAR_TEST_TYPECHECK=0 (no type checks),
// HIWAR_TEST_SOURCES=1 (above), HIWAR_TEST_HEAVY_GROUP_S (heavy files this short share processes, 4).
// Arguments, if any, replace the list of test files
// (npm test -- test/session/scenarios.test.ts) and run in the order given.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, setPriority, tmpdir } from 'node:os';
import { machineTime } from './machine-time.mjs';
import { runQueueMeter } from './run-queue.mjs';
import { dirname, join, resolve, sep } from 'node:path';
import { buildTestTree } from './test-build.mjs';
import { COUNTS, groupEntry, groupFiles, ownProcessReason, splitGroupReport } from './test-groups.mjs';

/**
 * Heavy files at once. Two: three finished sooner only while the machine had CPU to spare; on a
 * loaded one the whole-call tests then fell behind their scaled clocks (docs/testing.md).
 */
const CONCURRENCY = Number(process.env.HIWAR_TEST_CONCURRENCY ?? '2');
/**
 * Heavy files at once at most. Most heavy files spend two thirds of their time waiting on scaled
 * clocks and sockets (a whole call uses about a third of a core), so two at once leave most of
 * two cores idle; but two is all a loaded machine can take (see CONCURRENCY). Beyond two, the
 * next file starts while the expected CPU rates (cores: `cpu` ÷ `s` in the schedule) of the
 * running heavy files and its own add up to no more than the cores the machine's other processes
 * leave (CPU_BUDGET); scripts/test-simulate.mjs chose this (docs/testing.md, "Choosing the
 * schedule"). Sixteen at most: with eight, a quiet run's cores sat 17–18 % idle (eight whole-call
 * files waiting on their clocks use about a core between them); sixteen with the budget below
 * left 4–5 % idle and ran the suite in 268 and 275 s against 333 and 323 s (docs/testing.md,
 * session 33's figures).
 */
const MAX_CONCURRENCY = Math.max(CONCURRENCY, Number(process.env.HIWAR_TEST_MAX_CONCURRENCY ?? '16'));
/**
 * Cores the heavy lane's expected rates may add up to on an otherwise idle machine: a quarter
 * more than it has. A file's expected rate is its CPU over its whole time, start-up bursts and
 * waits averaged in: files kept to the cores on paper left them a fifth idle in the last minutes
 * of a run, when only short files were left.
 */
const CPU_BUDGET = Number(process.env.HIWAR_TEST_CPU_BUDGET ?? String(cpus().length * 1.25));
/**
 * Seconds over which the cores other processes use are averaged (their busy time, niced time
 * apart, less the heavy files' expected rates): what the budget gives up on a loaded machine.
 */
const OTHERS_WINDOW_S = 3;
/**
 * Beyond CONCURRENCY, no heavy file starts while this many processes or more wanted the CPU at
 * normal priority over the last seconds (scripts/run-queue.mjs): the CPU meter above cannot see
 * past a full machine, and with another suite (or any job) beside it both runners read the
 * other's work as spare and piled on (two copies reached a load of 20–43, docs/testing.md). One
 * above the budget: a quiet run's own files, which fill the cores in bursts, are not held back.
 */
const RUNNABLE_LIMIT = CPU_BUDGET + 1;
/** A file's CPU rate (cores) when the schedule has no CPU time for it. */
const DEFAULT_RATE = 0.5;
const LIGHT_LANE = process.env.HIWAR_TEST_LIGHT !== '0';
/** Run the TypeScript sources through tsx, each module transformed in each process (no compiled tree). */
const FROM_SOURCES = process.env.HIWAR_TEST_SOURCES === '1';
/** Short files in shared processes: in full runs unless 0, among named files only if 1. */
const GROUPING = process.env.HIWAR_TEST_GROUP ?? 'full';
/**
 * A heavy file that took at most this (s, in the schedule) shares a process too: its start-up
 * (about half a second of CPU) is a good part of its cost, and grouped it still runs at normal
 * priority beside the other heavy files.
 */
const HEAVY_GROUP_S = Number(process.env.HIWAR_TEST_HEAVY_GROUP_S ?? '4');
const FILE_TIMEOUT_MS = Number(process.env.HIWAR_TEST_FILE_TIMEOUT_S ?? '900') * 1000;
/**
 * Niceness of the light lane and the type checks: neither times anything against a clock, so
 * they take only the CPU the whole-call tests leave (those fall behind their scaled clocks when
 * starved). Only the CPU's order changes: on an idle core they run at full speed.
 */
const BACKGROUND = 10;
/**
 * A file whose process outlives its last test by more than this (s) is named in the summary:
 * its `after` hooks take a moment, but minutes mean a socket or timer left open.
 */
const LINGER_S = 20;

const ROOT = new URL('..', import.meta.url).pathname;
const CACHE = join(ROOT, 'node_modules/.cache/hiwar');
const SCHEDULE = join(ROOT, 'scripts/test-times.json');
const LAST_TIMES = join(CACHE, 'test-times.json');
/**
 * TypeScript 7's compiler (native code, the `typescript-7` alias of typescript@7): the same
 * diagnostics on this project as 5.9's in about a quarter of the CPU (docs/testing.md). 5.9 stays
 * the `typescript` the build and the tests that use the compiler's API load.
 */
const tsc = join(dirname(createRequire(import.meta.url).resolve('typescript-7/package.json')), 'bin/tsc');
/**
 * The sandbox's voiced lines, shared by every test file of this run (src/sandbox/engines/
 * render-cache.ts): the lines each file's calls say are voiced and resampled once per run, not
 * once per file. A new directory per run, removed at the end, so a run never reads another's.
 */
const RENDERS = mkdtempSync(join(tmpdir(), 'hiwar-test-renders-'));
process.env.HIWAR_SANDBOX_RENDER_CACHE ??= RENDERS;
// The package test's tarball and blank projects (test/package/blank-project.ts): made once in this
// run, shared by its files, removed with the run, so every run packs and installs afresh.
const PACKAGE_CACHE = mkdtempSync(join(tmpdir(), 'hiwar-test-package-'));
process.env.HIWAR_TEST_PACKAGE_CACHE ??= PACKAGE_CACHE;
process.on('exit', () => {
  rmSync(RENDERS, { recursive: true, force: true });
  rmSync(PACKAGE_CACHE, { recursive: true, force: true });
});

/**
 * CPU (user + system, s) of this process's children that have ended, their own children
 * included: Linux's cutime and cstime. Read when a file's process ends, the difference is that
 * file's CPU (or two files' together, in the rare case two end at the same moment).
 * Undefined where there is no /proc.
 */
function childrenCpuS() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').replace(/^.*\) /s, '').split(' ');
    // After the command name: cutime and cstime are fields 16 and 17 of stat(5), in ticks of 1/100 s.
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return undefined;
  }
}
let cpuSeen = childrenCpuS();

/**
 * The tests run the sources: `hiwar/...` imported by the package's own name (examples, configs,
 * a blank project linked to the clone) resolves to src/ through the `hiwar-source` export
 * condition, inherited by every process a test starts; the package's users get dist/.
 */
const TEST_ENV = { ...process.env, NODE_OPTIONS: [process.env.NODE_OPTIONS, '--conditions=hiwar-source'].filter(Boolean).join(' ') };
// Tells the files that this run type-checks the project (the package test then builds dist/
// without checking the same sources again).
if (process.env.HIWAR_TEST_TYPECHECK !== '0') TEST_ENV.HIWAR_TEST_TYPES_CHECKED = '1';

/** Processes running now: a run stopped by a signal stops them and what they started. */
const live = new Set();
const stopAll = () => {
  for (const child of live) {
    try { process.kill(-child.pid, 'SIGKILL'); } catch { child.kill('SIGKILL'); }
  }
};
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => (stopAll(), process.exit(130)));

function run(args, { detached = false, timeoutMs = 0, niceness = 0, cwd = ROOT } = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd, env: TEST_ENV, stdio: ['ignore', 'pipe', 'pipe'], detached });
    live.add(child);
    child.on('exit', () => live.delete(child));
    // Set before the child has started anything of its own, so what it starts inherits it.
    if (niceness && child.pid) {
      try {
        setPriority(child.pid, niceness);
      } catch {
        // not permitted here: the file runs at normal priority
      }
    }
    let out = '';
    let timedOut = false;
    let reported = 0; // when the last top-level result came
    child.stdout.on('data', (c) => {
      out += c;
      // A top-level test's result: when the last one came, the file's tests were over.
      if (/^(not )?ok \d+ - /m.test(String(c))) reported = performance.now();
    });
    child.stderr.on('data', (c) => (out += c));
    // A file's process group: the servers and browsers a hung test started go with it. The limit
    // counts the machine's time, as the tests' own waits do (test/helpers/deadline.ts): at load
    // 40 on two cores a file is twenty times slower, not stuck.
    const limit = timeoutMs > 0 ? machineTime(timeoutMs) : undefined;
    const timer = limit ? setInterval(() => {
      if (!limit.expired()) return;
      clearInterval(timer);
      timedOut = true;
      try { process.kill(-child.pid, 'SIGKILL'); } catch { child.kill('SIGKILL'); }
    }, Math.min(5000, timeoutMs)) : undefined;
    let cpuS;
    child.on('exit', () => {
      const now = childrenCpuS();
      if (now !== undefined && cpuSeen !== undefined) cpuS = Math.round((now - cpuSeen) * 10) / 10;
      cpuSeen = now;
    });
    child.on('close', (code, signal) => {
      clearInterval(timer);
      resolve({ code: code ?? (signal ? 1 : 0), out, timedOut, cpuS, lingerS: reported ? (performance.now() - reported) / 1000 : 0 });
    });
  });
}

const typecheck = async () => {
  const check = (project, info) => run([tsc, '--noEmit', '-p', project, '--incremental', '--tsBuildInfoFile', join(CACHE, info)], { niceness: BACKGROUND });
  // One after the other: a single checker beside the tests is as much CPU as they can spare.
  const results = [];
  for (const [project, info] of [
    ['tsconfig.json', 'tsc-core'],
    ['transports/webrtc/page', 'tsc-page'],
    ['src/review/page', 'tsc-review-page'],
    ['src/observability/live-page', 'tsc-live-page'],
  ]) results.push(await check(project, `${info}.tsbuildinfo`));
  return { code: results.find((r) => r.code)?.code ?? 0, out: results.map((r) => r.out).join('') };
};

const readJson = (path, fallback) => {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return fallback;
  }
};

/** Every *.test.ts under `dir` (a path from the root), at any depth (test/telephony/outbound/ is two down). */
const testsUnder = (dir) =>
  readdirSync(join(ROOT, dir), { recursive: true })
    .map((f) => String(f).split(sep).join('/'))
    .filter((f) => f.endsWith('.test.ts') && (dir !== 'test' || f.includes('/')))
    .map((f) => `${dir}/${f}`)
    .sort();

const named = process.argv.length > 2;
// A named folder stands for the test files under it (`npm test -- test/service`).
const isDir = (f) => existsSync(resolve(ROOT, f)) && statSync(resolve(ROOT, f)).isDirectory();
const files = named ? process.argv.slice(2).flatMap((f) => (isDir(f) ? testsUnder(f.replace(/\/+$/, '')) : [f])) : testsUnder('test');

// A named file that is not there is said now, by the name given: after the build it would fail as
// the compiled tree's MODULE_NOT_FOUND, a path the user never typed.
const missing = named ? files.filter((f) => !existsSync(resolve(ROOT, f))) : [];
if (missing.length) {
  process.stderr.write(`npm test: no such test file: ${missing.join(', ')} (paths from the repository's root, such as test/session/scenarios.test.ts)\n`);
  process.exit(2);
}

// A file not in the schedule yet (new) is heavy and counts as slow: it starts early, not last.
const schedule = readJson(SCHEDULE, {});
const expected = (f) => schedule[f]?.s ?? Infinity;
const light = (f) => schedule[f]?.lane === 'light';
const expectedRate = (f) => (schedule[f]?.cpu && schedule[f]?.s ? schedule[f].cpu / schedule[f].s : DEFAULT_RATE);
const slowestFirst = (a, b) => expected(b) - expected(a) || a.localeCompare(b);
/**
 * A lane's queue: files, and groups of files that share one process (`{ files }`), in the order
 * given. Grouped: the light files, and the heavy ones that took at most HEAVY_GROUP_S, that touch
 * no process-wide state (scripts/test-groups.mjs); a group is started where its first file was.
 */
let groupCount = 0;
const shortOrLight = (f) => light(f) || expected(f) <= HEAVY_GROUP_S;
const grouped = (queue) => {
  const shareable = queue.filter((f) => shortOrLight(f) && !ownProcessReason(ROOT, f));
  const groups = groupFiles(shareable, expected).filter((g) => g.length > 1);
  const first = new Map(groups.map((g) => [g[0], { files: g, n: ++groupCount }]));
  const inGroup = new Set(groups.flat());
  return queue.flatMap((f) => (first.has(f) ? [first.get(f)] : inGroup.has(f) ? [] : [f]));
};
const group = (queue, on) => (on && !FROM_SOURCES ? grouped(queue) : queue);
const lanes = named
  ? [{ name: 'heavy', width: CONCURRENCY, files: group(files, GROUPING === '1') }]
  : LIGHT_LANE
    ? [
        { name: 'heavy', width: CONCURRENCY, maxWidth: MAX_CONCURRENCY, files: group(files.filter((f) => !light(f)).sort(slowestFirst), GROUPING !== '0') },
        { name: 'light', width: 1, files: group(files.filter(light).sort(slowestFirst), GROUPING !== '0') },
      ]
    : [{ name: 'heavy', width: CONCURRENCY, maxWidth: MAX_CONCURRENCY, files: [...files].sort(slowestFirst) }];
/** A queue entry's expected CPU rate (cores): a group's is its files' CPU over their time. */
const unitRate = (u) => {
  if (typeof u === 'string') return expectedRate(u);
  const s = u.files.reduce((n, f) => n + (schedule[f]?.s ?? 0), 0);
  const cpu = u.files.reduce((n, f) => n + (schedule[f]?.cpu ?? 0), 0);
  return s && cpu ? cpu / s : DEFAULT_RATE;
};

const totals = Object.fromEntries(COUNTS.map((k) => [k, 0]));
const results = [];
/** Groups that failed outside their files' suites. */
const failedGroups = [];
const lingered = [];
const started = performance.now();

async function runFile(file, lane) {
  const t0 = performance.now();
  // As `node --test` runs each file: its own process, its report in TAP; from the compiled tree
  // (stack traces still name the sources' lines), or the sources through tsx.
  const args = tree ? ['--enable-source-maps', '--test-reporter=tap', join(tree, file.replace(/\.ts$/, '.js'))] : ['--import', 'tsx', '--test-reporter=tap', file];
  const r = await run(args, { detached: true, timeoutMs: FILE_TIMEOUT_MS, niceness: lane === 'light' ? BACKGROUND : 0, cwd: tree ?? ROOT });
  const s = (performance.now() - t0) / 1000;
  const counts = Object.fromEntries(COUNTS.map((k) => [k, Number(new RegExp(`^# ${k} (\\d+)$`, 'm').exec(r.out)?.[1] ?? 0)]));
  // The file's own summary lines go into its header line: the run's summary stays the only one.
  const report = r.out.replace(new RegExp(`^# (${COUNTS.join('|')}|duration_ms) [\\d.]+\n`, 'gm'), '');
  // A file that died before its summary, or exited non-zero with every test passed (an error
  // outside any test), is one failure more.
  const failed = r.code !== 0 || r.timedOut;
  if (failed && counts.fail === 0) counts.fail = 1;
  for (const k of COUNTS) totals[k] += counts[k];
  results.push({ file, s: Math.round(s * 10) / 10, cpuS: r.cpuS, lane, tests: counts.tests, failed, startS: Math.round((t0 - started) / 100) / 10 });
  // node's runner prints each file's report whole too, so that files running at once never interleave.
  const status = r.timedOut ? `KILLED after ${FILE_TIMEOUT_MS / 1000} s of the machine's time` : failed ? `FAILED (exit ${r.code})` : 'ok';
  // Something the file left open (a socket, a timer) kept its process up after its tests ended.
  if (r.lingerS > LINGER_S) lingered.push(`${file} ${r.lingerS.toFixed(0)} s`);
  const summary = `${counts.tests} tests, ${counts.pass} pass, ${counts.fail} fail`;
  const cpu = r.cpuS === undefined ? '' : ` (CPU ${r.cpuS.toFixed(1)} s)`;
  process.stdout.write(`# file ${file} (${lane} lane): ${s.toFixed(1)} s${cpu}, ${summary}, ${status}\n${report.replace(/\n?$/, '\n')}`);
}

/**
 * A group of short files in one process (scripts/test-groups.mjs): its entry module imports each
 * file in a suite named after it; its report is split back into one report per file, each
 * printed under its own `# file` line as if it had run alone, the file's time being its suite's
 * (the group's start-up and CPU are on the group's own line).
 */
async function runGroup({ files: members, n }, lane) {
  const t0 = performance.now();
  const entry = join(tree, '.groups', `group-${n}.mjs`);
  mkdirSync(join(tree, '.groups'), { recursive: true });
  writeFileSync(entry, groupEntry(members, (f) => join(tree, f.replace(/\.ts$/, '.js'))));
  const r = await run(['--enable-source-maps', '--test-reporter=tap', entry], { detached: true, timeoutMs: FILE_TIMEOUT_MS, niceness: lane === 'light' ? BACKGROUND : 0, cwd: tree });
  const s = (performance.now() - t0) / 1000;
  const { reports, rest } = splitGroupReport(r.out, members);
  const fileS = reports.reduce((t, f) => t + f.s, 0);
  let out = '';
  for (const f of reports) {
    for (const k of COUNTS) totals[k] += f.counts[k];
    // The group's CPU shared out by the files' times (for the schedule: what each file costs in a group).
    const cpuS = r.cpuS === undefined ? undefined : Math.round((r.cpuS * (fileS ? f.s / fileS : 1 / reports.length)) * 10) / 10;
    results.push({ file: f.file, s: Math.round(f.s * 10) / 10, cpuS, lane, tests: f.counts.tests, failed: f.failed, group: n, startS: Math.round((t0 - started) / 100) / 10 });
    const status = f.done ? (f.failed ? 'FAILED' : 'ok') : r.timedOut ? `KILLED with its group after ${FILE_TIMEOUT_MS / 1000} s of the machine's time` : `did not finish: its group's process ended (exit ${r.code})`;
    out += `# file ${f.file} (${lane} lane, group ${n}): ${f.s.toFixed(1)} s, ${f.counts.tests} tests, ${f.counts.pass} pass, ${f.counts.fail} fail, ${status}\n${f.report}`;
  }
  // An error outside every file's suite (the process exited non-zero, all of them passed): one failure, the group's.
  const groupFailed = (r.code !== 0 || r.timedOut) && !reports.some((f) => f.failed);
  if (groupFailed) {
    totals.fail++;
    failedGroups.push(`group ${n} (${members.join(' ')})`);
  }
  const cpu = r.cpuS === undefined ? '' : ` (CPU ${r.cpuS.toFixed(1)} s)`;
  out += `# group ${n} (${lane} lane): ${members.length} files in one process, ${s.toFixed(1)} s${cpu}, ${groupFailed ? `FAILED (exit ${r.code})` : 'ok'}\n${rest ? rest.replace(/\n?$/, '\n') : ''}`;
  if (r.lingerS > LINGER_S) lingered.push(`group ${n} ${r.lingerS.toFixed(0)} s`);
  process.stdout.write(out);
}

/**
 * Cores the machine's other processes used over the last few calls (one a second:
 * OTHERS_WINDOW_S): the cores busy at normal priority (niced time counts as idle: it yields)
 * less what the heavy lane was expected to use (`ours`, cores, at each call), never below 0.
 */
const othersMeter = () => {
  const sample = () => cpus().reduce((t, c) => ({ idle: t.idle + c.times.idle + c.times.nice, total: t.total + c.times.user + c.times.nice + c.times.sys + c.times.idle + c.times.irq }), { idle: 0, total: 0 });
  let then = sample();
  const seen = [];
  return (ours) => {
    const now = sample();
    const dTotal = now.total - then.total;
    if (dTotal > 0) seen.push(Math.max(0, (1 - (now.idle - then.idle) / dTotal) * cpus().length - ours));
    then = now;
    if (seen.length > OTHERS_WINDOW_S) seen.shift();
    return seen.length ? seen.reduce((n, x) => n + x, 0) / seen.length : 0;
  };
};

/** The most files each lane ran at once. */
const widest = {};
/** Seconds each lane's budget had room for another file but the run queue held it back. */
const heldS = {};

async function runLane({ name, width, maxWidth = width, files: queue }) {
  let next = 0;
  const running = new Set();
  const ours = () => [...running].reduce((n, u) => n + unitRate(u), 0);
  const othersCores = othersMeter();
  let runQueue = runQueueMeter();
  let readAt = 0;
  // Nothing beyond `width` before the meters' first reading: the machine's load is not known yet.
  let others = Infinity;
  let runnable = Infinity;
  await new Promise((resolve) => {
    const start = () => {
      const unit = queue[next++];
      running.add(unit);
      widest[name] = Math.max(widest[name] ?? 0, running.size);
      void (typeof unit === 'string' ? runFile(unit, name) : runGroup(unit, name)).then(() => {
        running.delete(unit);
        fill();
      });
    };
    // Up to `width` at once always; beyond it, up to `maxWidth` within the cores others leave, while the run queue is short.
    const room = () => running.size < maxWidth && ours() + unitRate(queue[next]) <= CPU_BUDGET - others;
    const fill = () => {
      while (next < queue.length && (running.size < width || (room() && runnable < RUNNABLE_LIMIT))) start();
      if (next >= queue.length && running.size === 0) resolve();
    };
    const meter = setInterval(() => {
      others = othersCores(ours());
      if (next >= queue.length) return clearInterval(meter);
      // Read only while it can decide something: a scan of /proc costs a few milliseconds.
      if (running.size >= width && room()) {
        // Readings from before a pause in reading are stale: start the mean again.
        if (performance.now() - readAt > 3000) runQueue = runQueueMeter();
        readAt = performance.now();
        runnable = runQueue();
        if (runnable >= RUNNABLE_LIMIT) heldS[name] = (heldS[name] ?? 0) + 1;
      }
      fill();
    }, 1000);
    fill();
  });
}

// The type checks start first: they need no compiled tree.
const types = process.env.HIWAR_TEST_TYPECHECK === '0' ? Promise.resolve({ code: 0, out: '' }) : typecheck();
/** The compiled tree the files run from (undefined: the sources, through tsx). */
let tree;
if (!FROM_SOURCES) {
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  tree = mkdtempSync(join(ROOT, '.tmp/test-tree-'));
  const removeTree = () => rmSync(tree, { recursive: true, force: true });
  process.on('exit', removeTree);
  const t0 = performance.now();
  const modules = await buildTestTree(ROOT, tree);
  const cpuS = (process.cpuUsage().user + process.cpuUsage().system) / 1e6;
  process.stdout.write(`# compiled ${modules} modules into ${tree.slice(ROOT.length)} in ${((performance.now() - t0) / 1000).toFixed(1)} s (this process's CPU so far ${cpuS.toFixed(1)} s)\n`);
}

// The tests' wall time, not the type checks' (which usually end first, beside them).
let wall = 0;
const tests = Promise.all(lanes.map(runLane)).then(() => (wall = performance.now() - started));
await tests;
const typeResult = await types;

for (const k of COUNTS) process.stdout.write(`# ${k} ${totals[k]}\n`);
process.stdout.write(`# duration_ms ${wall.toFixed(0)}\n`);
process.stdout.write(`# files at once, at most: ${Object.entries(widest).map(([lane, n]) => `${lane} ${n}`).join(', ')}${Object.keys(heldS).length ? `; held back by a busy machine: ${Object.entries(heldS).map(([lane, n]) => `${lane} ${n} s`).join(', ')}` : ''}\n`);
const bySlowest = [...results].sort((a, b) => b.s - a.s);
process.stdout.write(`# slowest files (s): ${bySlowest.slice(0, 8).map((r) => `${r.file} ${r.s}`).join(', ')}\n`);
const failedFiles = [...results.filter((r) => r.failed).map((r) => r.file), ...failedGroups];
if (failedFiles.length) process.stdout.write(`# failed files: ${failedFiles.join(' ')}\n`);
if (lingered.length) process.stdout.write(`# files whose process stayed up after their tests ended (a handle left open): ${lingered.join(', ')}\n`);
if (!named) {
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(LAST_TIMES, JSON.stringify({ wallS: Math.round(wall / 100) / 10, files: bySlowest }, null, 2) + '\n');
}
if (typeResult.code) process.stderr.write(`\ntype check failed:\n${typeResult.out}`);
process.exitCode = typeResult.code || (failedFiles.length ? 1 : 0);

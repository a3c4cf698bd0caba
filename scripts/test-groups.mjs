// Several light test files in one Node process (docs/testing.md, "Light files in groups"): each
// file pays about half a second of CPU to start Node and import the sources, more than many of
// them spend on their tests. scripts/test.mjs runs a group as one entry module that imports each
// file inside a `describe` named after it, so node:test runs every file's tests, hooks included,
// in that file's own suite; this module says which files may share a process, packs them into
// groups, writes the entry and splits the group's TAP report back into one report per file.
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * What a test file (or a test helper it imports) does that reaches beyond its own tests: with
 * one of these it keeps a process of its own, since the next file in a shared process would
 * inherit the change (an environment variable, the working directory, a process listener, a
 * replaced global, fake timers) or lose its process (`process.exit`, a signal to itself).
 * A file can also ask for its own process with the comment `hiwar-test: own-process`.
 */
export const PROCESS_WIDE = [
  [/hiwar-test:\s*own-process/, 'marked hiwar-test: own-process'],
  [/process\.env(?:\.\w+|\[[^\]]+\])?\s*(?:=(?!=)|\?\?=|\|\|=|&&=)|delete\s+process\.env|Object\.assign\(\s*process\.env/, 'sets the environment'],
  [/process\.chdir\(|process\.umask\(/, 'changes the working directory or umask'],
  [/process\.(?:on|once|off|addListener|prependListener|prependOnceListener|removeListener|removeAllListeners|setMaxListeners|setUncaughtExceptionCaptureCallback)\(/, 'listens on the process'],
  // Signalling another process (a child, `process.kill(pid, 0)` to see whether one lives) is not
  // process-wide: only this process's own `process` and its own pid count.
  [/(?<![\w.$])process\.(?:exit|abort|emit|emitWarning)\(|(?<![\w.$])process\.exitCode\s*=|(?<![\w.$])process\.kill\(\s*process\.p?pid\b/, 'exits, signals or emits on the process'],
  [/\bprocess(?:\.\w+)+\s*=(?!=)/, 'replaces part of the process object'],
  [/\b(?:globalThis|global)(?:\.\w+|\[[^\]]+\])\s*=(?!=)|delete\s+(?:globalThis|global)\.|\bglobalThis\s+as\b|\.fetch\s*=(?!=)/, 'sets a global'],
  [/\b(?:console|Date|Math|performance|JSON|Promise|crypto)\.\w+\s*=(?!=)/, 'replaces a global function'],
  [/\bcluster\.(?:setupPrimary|setupMaster|fork)\(/, 'starts node:cluster workers'],
  [/setGlobalDispatcher|mock\.timers|useFakeTimers|mock\.method\(\s*(?:process|console|globalThis|global|Date|Math|performance|crypto)\b/, 'mocks a global or the timers'],
];

/** Relative imports of a module (static and dynamic), as written. */
const IMPORTS = /(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g;

/**
 * Why `file` must run in its own process (the first process-wide thing it or a test helper it
 * imports does), or undefined when it may share one. `root` is the repository; `file` is
 * relative to it (`test/x/y.test.ts`). Only modules under test/ are read: the sources under test
 * behave alike in either process.
 */
export function ownProcessReason(root, file, read = (path) => readFileSync(path, 'utf8')) {
  const seen = new Set();
  const visit = (rel) => {
    if (seen.has(rel) || !rel.startsWith('test/')) return undefined;
    seen.add(rel);
    let source;
    let found = rel;
    for (const path of [rel, rel.replace(/\.js$/, '.ts')]) {
      try {
        source = read(join(root, path));
        found = path;
        break;
      } catch {
        // not there: a `.js` specifier names the `.ts` module beside it; else nothing of ours to scan
      }
    }
    if (source === undefined) return undefined;
    for (const [pattern, why] of PROCESS_WIDE) if (pattern.test(source)) return found === file ? why : `${why} (${found})`;
    for (const [, spec] of source.matchAll(IMPORTS)) {
      const why = visit(relative(root, join(root, dirname(rel), spec)).split('\\').join('/'));
      if (why) return why;
    }
    return undefined;
  };
  return visit(file);
}

/** Limits of one group: expected wall time in all (s) and files. */
export const GROUP_LIMITS = { maxS: 15, maxFiles: 16 };

/**
 * Packs `files` (in the order they should start) into groups of at most `maxFiles` whose
 * expected times (`expected(file)`, s) add up to at most `maxS`; a file expected to take longer
 * than that is a group of its own. Each group keeps the files' order; the groups come in the
 * order of their first file. Several groups rather than one: a file that hangs or crashes takes
 * its group's other files with it, and the lane's places can run groups side by side.
 */
export function groupFiles(files, expected, { maxS, maxFiles } = GROUP_LIMITS) {
  const groups = [];
  let open = [];
  let openS = 0;
  for (const file of files) {
    const s = Number.isFinite(expected(file)) ? expected(file) : maxS;
    if (open.length && (openS + s > maxS || open.length >= maxFiles)) {
      groups.push(open);
      open = [];
      openS = 0;
    }
    open.push(file);
    openS += s;
  }
  if (open.length) groups.push(open);
  return groups;
}

/**
 * The entry module of a group: each file (repository-relative, `test/x.test.ts`) imported in
 * a `describe` named after it, from its compiled module (`compiled(file)`, a path). node:test
 * attaches what the module registers while it loads (its tests, `before`/`after` hooks, suites)
 * to that suite, so its hooks run around its own tests only. The files run one after the other,
 * each loaded only when the one before has ended (a top-level suite's `describe` resolves when
 * it has run): what a file starts at its top level runs right before its tests, as alone.
 */
export function groupEntry(files, compiled) {
  const lines = [
    "import { describe } from 'node:test';",
    // Alone, a file's top-level `after` hooks run when its event loop has emptied; in a group its
    // hooks end its suite, and one that waits on an unref'd handle (a worker's close) would leave
    // an empty loop with files still to run, which node:test ends by cancelling them: the group
    // keeps its loop up until its last file has run.
    'const alive = setInterval(() => {}, 1 << 30);',
    'try {',
  ];
  for (const file of files) lines.push(`  await describe(${JSON.stringify(file)}, async () => { await import(${JSON.stringify(pathToFileURL(compiled(file)).href)}); });`);
  lines.push('} finally {', '  clearInterval(alive);', '}');
  return lines.join('\n') + '\n';
}

const RESULT = /^(\s*)(not ok|ok) \d+ - (.*?)(?: # (SKIP|TODO)\b.*)?$/;
/** The counts node:test prints at the end of a run, in its order. */
export const COUNTS = ['tests', 'suites', 'pass', 'fail', 'cancelled', 'skipped', 'todo'];

/**
 * Counts of a TAP report's results as node:test counts them (`# tests`, `# pass`...): a result
 * whose YAML block says `type: 'suite'` is a suite; a cancelled test (`cancelledByParent`) is
 * neither passed nor failed.
 */
export function countResults(lines) {
  const counts = Object.fromEntries(COUNTS.map((k) => [k, 0]));
  for (let i = 0; i < lines.length; i++) {
    const m = RESULT.exec(lines[i]);
    if (!m) continue;
    let yaml = '';
    if (lines[i + 1]?.trim() === '---') {
      for (let j = i + 2; j < lines.length && lines[j].trim() !== '...'; j++) yaml += lines[j] + '\n';
    }
    if (/^\s*type: 'suite'$/m.test(yaml)) counts.suites++;
    else {
      counts.tests++;
      if (m[4] === 'SKIP') counts.skipped++;
      else if (m[4] === 'TODO') counts.todo++;
      else if (m[2] === 'ok') counts.pass++;
      else if (/failureType: 'cancelledByParent'/.test(yaml)) counts.cancelled++;
      else counts.fail++;
    }
  }
  return counts;
}

/**
 * Splits a group process's TAP output into one report per file: for each file, its suite's
 * lines un-indented as its own process would have printed them, its counts, its wall time
 * (the suite's `duration_ms`, s) and whether it failed; `rest` is what belongs to no file (the
 * TAP header, the run's counts, anything printed outside the files' suites). A file whose
 * suite never ended (the process died or was killed) has `done: false`. A suite that failed
 * with no failed test in it (its module threw while loading, a hook failed) counts one failure,
 * as the runner counts a file that exits non-zero with every test passed.
 */
export function splitGroupReport(out, files) {
  const lines = out.split('\n');
  const byFile = new Map(files.map((f) => [f, { lines: [], done: false, failed: false, s: 0 }]));
  const rest = [];
  let current;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const opens = /^# Subtest: (.*)$/.exec(line);
    if (!current && opens && byFile.has(opens[1])) {
      current = byFile.get(opens[1]);
      current.name = opens[1];
      continue;
    }
    const closes = RESULT.exec(line);
    if (current && closes && closes[1] === '' && closes[3] === current.name) {
      const yaml = [];
      if (lines[i + 1] === '  ---') {
        for (i += 2; i < lines.length && lines[i] !== '  ...'; i++) yaml.push(lines[i]);
      }
      current.done = true;
      current.failed = closes[2] === 'not ok';
      current.s = Number(/^ {2}duration_ms: ([\d.]+)$/m.exec(yaml.join('\n'))?.[1] ?? 0) / 1000;
      // Why the suite itself failed, when it was not only its tests: shown as the file's own error.
      if (current.failed && !yaml.some((l) => l === "  failureType: 'subtestsFailed'")) current.error = yaml.filter((l) => !/^ {2}(duration_ms|type): /.test(l)).map((l) => l.slice(2));
      current = undefined;
      continue;
    }
    if (current) current.lines.push(line.startsWith('    ') ? line.slice(4) : line);
    else if (!/^(TAP version \d+|1\.\.\d+|# (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) [\d.]+)$/.test(line) && line !== '') rest.push(line);
  }
  const reports = files.map((file) => {
    const f = byFile.get(file);
    const counts = countResults(f.lines);
    if (f.error) f.lines.push('# the file itself failed (its module or a hook):', ...f.error.map((l) => `#   ${l}`));
    const failed = !f.done || f.failed;
    if (failed && counts.fail === 0) counts.fail = 1;
    return { file, report: f.lines.join('\n').replace(/\n*$/, '\n'), counts, s: f.s, done: f.done, failed };
  });
  return { reports, rest: rest.join('\n') };
}

// The tables of `node scripts/cpu-profile.mjs report` (that file says how a run is profiled):
// self time of V8 CPU profiles added up by kind of process, by package, by our own module and by
// function. Pure functions of the profiles, so test/scripts/cpu-profile.test.ts checks them on
// profiles made by hand.

/**
 * Samples of these frames are not CPU time of the process's JavaScript thread. `(program)` is
 * time outside JavaScript that V8 cannot name, and a profile taken through the inspector (as
 * the hook takes it) has no `(idle)`: a thread waiting on its event loop is `(program)`.
 */
const IDLE = new Set(['(idle)', '(root)', '(program)']);
/** Frames whose samples are a wait on another process (`execSync`, `spawnSync`): its CPU is its own. */
const WAITING = (frame) => frame.functionName === 'spawnSync' && frame.url.startsWith('node:');

/**
 * Where a frame's code lives: `{ group, place }`, the group one of `ours`, `package`, `node`,
 * `v8` or `other`, the place a module directory (`src/session`), a package name
 * (`@scope/name`), a part of Node (`node:internal/modules`) or V8's own (`(garbage collector)`).
 * `undefined` for a frame without a file (a builtin), which counts for its caller.
 */
export function placeOf(callFrame) {
  const { url, functionName } = callFrame;
  if (!url) return functionName === '(program)' || functionName === '(garbage collector)' ? { group: 'v8', place: functionName } : undefined;
  if (url.startsWith('node:')) {
    const parts = url.slice(5).split('/');
    return { group: 'node', place: `node:${parts[0] === 'internal' ? parts.slice(0, parts.length > 2 ? 2 : 1).join('/') : parts[0]}` };
  }
  const path = url.startsWith('file://') ? decodeURIComponent(url.slice(7)) : url;
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const [first, second] = path.slice(nm + 14).split('/');
    return { group: 'package', place: first.startsWith('@') ? `${first}/${second}` : first };
  }
  // The compiled test tree mirrors the repository: a path inside it reads as the repository's.
  const inRepo = /\/(?:\.tmp\/test-tree-[^/]+\/)?((?:src|transports|agents|test|examples|bench|scripts|bin)\/.*)$/.exec(path);
  if (inRepo) {
    const parts = inRepo[1].split('/');
    return { group: 'ours', place: parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0] };
  }
  if (url.startsWith('wasm://')) return { group: 'other', place: 'wasm' };
  return { group: 'other', place: url.replace(/^file:\/\//, '').slice(0, 80) };
}

/** What a process was, from its argv: a test file, a `hiwar` subcommand, npm, the runner, … */
export function processKind(argv = []) {
  const script = argv[1] ?? '';
  const test = /(test\/.*)\.test\.[jt]s$/.exec(script);
  if (test) return `test file ${test[1].replace(/^test\//, '')}`;
  if (/bin\/hiwar(\.js)?$/.test(script)) return `hiwar ${argv[2] ?? ''}`.trim();
  if (/npm-cli\.js$/.test(script)) return `npm ${argv[2] ?? ''}`.trim();
  if (/scripts\/test\.mjs$/.test(script)) return 'the runner (scripts/test.mjs)';
  if (/typescript(-7)?\/bin\/tsc|tsc\.js$/.test(script)) return 'tsc';
  const ours = /\/((?:examples|scripts|bench|agents|test)\/.*)$/.exec(script);
  if (ours) return ours[1].replace(/\.tmp\/test-tree-[^/]+\//, '');
  return script ? script.split('/').slice(-2).join('/') : `node ${argv.slice(2, 4).join(' ')}`.trim();
}

/**
 * Seconds each node of one profile spent itself, by node id: its samples times the sampling
 * interval. Not the samples' time deltas: on a loaded machine a delta also holds the time the
 * process waited for a core (at load 25 the deltas added up to three times the CPU the process
 * used; the samples times the interval to within a tenth of it).
 */
function selfTimes(profile, defaultIntervalUs) {
  const self = new Map();
  const { samples = [], timeDeltas = [] } = profile;
  const interval = (profile.intervalUs ?? defaultIntervalUs) / 1e6;
  for (const id of samples) self.set(id, (self.get(id) ?? 0) + interval);
  return self;
}


/** True for the frames of Node's module loader: under them, modules load and run their top level. */
const LOADING = (frame) => frame.url.startsWith('node:internal/modules/') && !frame.url.startsWith('node:internal/modules/helpers');

/**
 * `node --cpu-prof`'s sampling interval (µs), for a profile that does not say its own (the hook's
 * profiles do): `report --interval-us N` for one taken with `--cpu-prof-interval N`.
 */
export const DEFAULT_INTERVAL_US = 1000;

/**
 * Adds up a set of profiles: `{ total, loading, byKind, byGroup, byPlace, byFunction, processes }`,
 * every time in seconds of CPU (idle left out), each `by…` a Map from a name to seconds.
 */
export function aggregate(profiles, { intervalUs = DEFAULT_INTERVAL_US } = {}) {
  const add = (map, key, s) => map.set(key, (map.get(key) ?? 0) + s);
  const out = { total: 0, loading: 0, byKind: new Map(), byGroup: new Map(), byPlace: new Map(), byFunction: new Map(), processes: profiles.length };
  for (const profile of profiles) {
    const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map();
    for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
    // Each node's place (its own, or its nearest caller's with a file) and whether it ran under the loader.
    const placed = new Map();
    const resolveNode = (id) => {
      if (placed.has(id)) return placed.get(id);
      const node = nodes.get(id);
      const up = parent.has(id) ? resolveNode(parent.get(id)) : { where: undefined, frame: undefined, loading: false };
      const own = placeOf(node.callFrame);
      const loading = up.loading || (node.callFrame.url ? LOADING(node.callFrame) : false);
      const r = own ? { where: own, frame: node.callFrame, loading } : { where: up.where, frame: up.frame ?? node.callFrame, loading };
      placed.set(id, r);
      return r;
    };
    const kind = processKind(profile.argv);
    for (const [id, s] of selfTimes(profile, intervalUs)) {
      const node = nodes.get(id);
      if (!node || IDLE.has(node.callFrame.functionName) || WAITING(node.callFrame)) continue;
      const { where = { group: 'v8', place: '(no file)' }, frame, loading } = resolveNode(id);
      out.total += s;
      if (loading) out.loading += s;
      add(out.byKind, kind.replace(/^test file .*/, 'test files').replace(/^hiwar .*/, 'hiwar children'), s);
      add(out.byGroup, where.group, s);
      add(out.byPlace, `${where.group === 'ours' ? '' : `${where.group}: `}${where.place}`, s);
      const file = frame?.url ? frame.url.replace(/^.*\/(node_modules\/|\.tmp\/test-tree-[^/]+\/)/, '$1').replace(/^file:\/\/\/work\/[^/]+\/[^/]+\//, '') : '';
      add(out.byFunction, `${frame?.functionName || '(anonymous)'} ${file}${frame?.url ? `:${frame.lineNumber + 1}` : ''}`, s);
    }
  }
  return out;
}

const table = (title, map, top, total) => {
  const rows = [...map].sort((a, b) => b[1] - a[1]).slice(0, top);
  return `\n${title}\n${rows.map(([k, s]) => `${s.toFixed(1).padStart(9)} s ${((s / total) * 100).toFixed(1).padStart(5)} %  ${k}`).join('\n')}\n`;
};

/** The report's text: totals, then each table's `top` rows. */
export function summarize(profiles, { top = 40, intervalUs } = {}) {
  const a = aggregate(profiles, { intervalUs });
  let text = `${a.processes} processes, ${a.total.toFixed(1)} s of CPU sampled (the JavaScript threads' samples times the interval, idle left out)\n`;
  text += `loading modules (import, link, top level): ${a.loading.toFixed(1)} s (${((a.loading / a.total) * 100).toFixed(1)} %)\n`;
  text += table('by kind of process', a.byKind, top, a.total);
  text += table('by group', a.byGroup, top, a.total);
  text += table('by place (our module directory, package, part of Node)', a.byPlace, top, a.total);
  text += table('by function (self)', a.byFunction, top, a.total);
  return text;
}

/**
 * `npm run bench -- profile <file.cpuprofile | dir> [top=25]`: where a `node --cpu-prof` run spent
 * its time. A .cpuprofile holds a call tree (`nodes`) and the sampled node of every tick
 * (`samples`, with `timeDeltas` in µs); this prints the functions with the most self time, the
 * same per package or project folder, and the inclusive time of the project's own functions
 * (a function counted once per sample however deep it recurses). Given a directory it reads
 * the newest profile in it.
 *
 * Hand-written (about a page) because the npm profile tools either render flame graphs for a
 * browser or need Chrome's DevTools frontend; the bench wants a table and a JSON line.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchArgs } from './harness.ts';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileRow {
  name: string;
  ms: number;
  pct: number;
}

export interface ProfileSummary {
  totalMs: number;
  /** Share of the samples that were not idle: the process's own CPU as the profiler saw it. */
  busyPct: number;
  self: ProfileRow[];
  byPlace: ProfileRow[];
  /** Inclusive time of functions in the project's own files (src/, transports/, bench/). */
  inclusive: ProfileRow[];
}

/** `node_modules/ws/lib/sender.js` → `ws`; `src/pipeline/stt.ts` → `src/pipeline`. */
export function placeOf(url: string): string {
  if (!url) return '(native)';
  const mod = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (mod) return mod[1]!;
  if (url.startsWith('node:')) return 'node:' + url.slice(5).split('/')[0];
  const own = /\/((?:src|transports|bench|test)\/[^/]+)\//.exec(url);
  if (own) return own[1]!;
  return url.replace(/^file:\/\//, '');
}

/** Function and place; no line for TypeScript run through tsx (its lines are the transpiled file's). */
function label(f: CallFrame): string {
  const file = f.url ? f.url.replace(/^file:\/\/.*?\/(node_modules|src|transports|bench|test)\//, '$1/') : '';
  const name = f.functionName || '(anonymous)';
  if (!file) return name;
  return file.endsWith('.ts') ? `${name} ${file}` : `${name} ${file}:${f.lineNumber + 1}`;
}

const isOwn = (url: string) => /\/(src|transports|bench)\//.test(url) && !url.includes('node_modules');

function rows(m: Map<string, number>, total: number, top: number): ProfileRow[] {
  return [...m.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, us]) => ({ name, ms: Math.round(us / 100) / 10, pct: Math.round((1000 * us) / total) / 10 }));
}

export function summarize(p: CpuProfile, top = 25): ProfileSummary {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  // timeDeltas[i] is the time before sample i; the time a sample stands for is the next delta.
  for (let i = 0; i < p.samples.length; i++) {
    const dt = p.timeDeltas[i + 1] ?? 0;
    selfUs.set(p.samples[i]!, (selfUs.get(p.samples[i]!) ?? 0) + dt);
  }
  let total = 0;
  let idle = 0;
  const self = new Map<string, number>();
  const place = new Map<string, number>();
  const incl = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const n = byId.get(id)!;
    total += us;
    if (n.callFrame.functionName === '(idle)') idle += us;
    const key = label(n.callFrame);
    self.set(key, (self.get(key) ?? 0) + us);
    const pl = n.callFrame.url ? placeOf(n.callFrame.url) : n.callFrame.functionName;
    place.set(pl, (place.get(pl) ?? 0) + us);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const f = byId.get(at)!.callFrame;
      if (!isOwn(f.url)) continue;
      const k = label(f);
      if (seen.has(k)) continue;
      seen.add(k);
      incl.set(k, (incl.get(k) ?? 0) + us);
    }
  }
  return {
    totalMs: Math.round(total / 1000),
    busyPct: total ? Math.round((1000 * (total - idle)) / total) / 10 : 0,
    self: rows(self, total, top),
    byPlace: rows(place, total, top),
    inclusive: rows(incl, total, top),
  };
}

/** In a directory, the largest profile: the main thread's (tsx's loader thread writes one too). */
function mainProfile(path: string): string {
  if (!statSync(path).isDirectory()) return path;
  const files = readdirSync(path)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => join(path, f))
    .sort((a, b) => statSync(b).size - statSync(a).size);
  if (!files.length) throw new Error(`no .cpuprofile in ${path}`);
  return files[0]!;
}

export async function profile({ rest }: BenchArgs): Promise<Record<string, unknown>> {
  const [path, topArg] = rest;
  const usage = 'usage: npm run bench -- profile <file.cpuprofile | dir> [top=25]';
  if (!path) throw new Error(usage);
  // `top=40` as the usage line writes it, or a bare `40`.
  const top = Number((topArg ?? '25').replace(/^top=/, ''));
  if (!Number.isInteger(top) || top < 1) throw new Error(`top must be a whole number of rows, not ${topArg}; ${usage}`);
  const file = mainProfile(path);
  const s = summarize(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile, top);
  const print = (title: string, rs: ProfileRow[]) => {
    console.log(`\n${title}`);
    for (const r of rs) console.log(`${String(r.pct).padStart(6)} %  ${String(r.ms).padStart(9)} ms  ${r.name}`);
  };
  console.log(`${file}: ${s.totalMs} ms sampled, ${s.busyPct} % not idle`);
  print('self time, by function', s.self);
  print('self time, by package or folder', s.byPlace);
  print("inclusive time of the project's functions", s.inclusive);
  return { bench: 'profile', file, ...s };
}

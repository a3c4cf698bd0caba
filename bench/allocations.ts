/**
 * Where a run allocates, in bytes a second: CPU profiles show the garbage collector's time, not who
 * made the garbage. Two halves:
 *
 * - `HIWAR_ALLOC_PROFILE=FILE node --import tsx --import ./bench/allocations.ts bench/run.ts <bench …>`
 *   samples every allocation (V8's sampling heap profiler, objects the collector has freed since
 *   included) from `HIWAR_ALLOC_START_MS` (default 8000) for `HIWAR_ALLOC_MS` (default 10000) of the
 *   run, and writes the profile to FILE (`HIWAR_ALLOC_SURVIVORS=1`: only what outlived the young
 *   generation, the garbage a full collection has to free);
 * - `npm run bench -- allocations FILE [top=25]` prints MB a second by allocating function and by
 *   the nearest function of hiwar's own that led to it.
 *
 * Bytes allocated depend on the work done, not on the machine's load, so two builds compare even
 * on a busy machine (per unit of work: the same bench, calls and window).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { table, type BenchArgs } from './harness.ts';

interface HeapNode {
  callFrame: { functionName: string; url: string };
  selfSize: number;
  children?: HeapNode[];
}
/** A heap profile as the inspector returns it, with the seconds it covers added. */
export interface AllocationProfile {
  head: HeapNode;
  seconds?: number;
}
export interface AllocationRow {
  name: string;
  mbPerSecond: number;
  pct: number;
}

const isOwn = (url: string) => /\/(src|transports|bench)\//.test(url) && !url.includes('node_modules');
const label = (f: HeapNode['callFrame']) => {
  const file = f.url.replace(/^.*\/node_modules\//, '').replace(/^(file:\/\/)?.*?\/(?=(src|transports|bench)\/)/, '');
  return `${f.functionName || '(anonymous)'}${file ? ' ' + file : ''}`;
};

/** Bytes a second by allocating function and by the nearest own function on its stack. */
export function summarizeAllocations(p: AllocationProfile, seconds: number, top = 25): { mbPerSecond: number; self: AllocationRow[]; own: AllocationRow[] } {
  const self = new Map<string, number>();
  const own = new Map<string, number>();
  let total = 0;
  const walk = (n: HeapNode, nearestOwn: string) => {
    const here = isOwn(n.callFrame.url) ? label(n.callFrame) : nearestOwn;
    if (n.selfSize) {
      total += n.selfSize;
      const k = label(n.callFrame);
      self.set(k, (self.get(k) ?? 0) + n.selfSize);
      own.set(here, (own.get(here) ?? 0) + n.selfSize);
    }
    for (const c of n.children ?? []) walk(c, here);
  };
  walk(p.head, '(no function of hiwar)');
  const rows = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, b]) => ({ name, mbPerSecond: Math.round(b / seconds / 1e4) / 100, pct: Math.round((1000 * b) / total) / 10 }));
  return { mbPerSecond: Math.round(total / seconds / 1e4) / 100, self: rows(self), own: rows(own) };
}

export async function allocations({ rest }: BenchArgs): Promise<Record<string, unknown>> {
  const file = rest.find((a) => !a.includes('='));
  if (!file) throw new Error('usage: npm run bench -- allocations FILE [top=25] (FILE from HIWAR_ALLOC_PROFILE=FILE; see bench/allocations.ts)');
  const top = Number(rest.find((a) => a.startsWith('top='))?.slice(4) ?? 25);
  const p = JSON.parse(readFileSync(file, 'utf8')) as AllocationProfile;
  const seconds = p.seconds ?? 1;
  const s = summarizeAllocations(p, seconds, top);
  console.log(`${file}: ${s.mbPerSecond} MB allocated a second over ${seconds} s (sampled)`);
  table('by allocating function', s.self.map((r) => [r.name, r.mbPerSecond, `MB/s (${r.pct} %)`]));
  table("by the nearest function of hiwar's own", s.own.map((r) => [r.name, r.mbPerSecond, `MB/s (${r.pct} %)`]));
  return { bench: 'allocations', file, seconds, ...s };
}

// Imported with --import and HIWAR_ALLOC_PROFILE set: sample this process's allocations.
const out = process.env.HIWAR_ALLOC_PROFILE;
if (out && !process.argv.includes('allocations')) {
  const startMs = Number(process.env.HIWAR_ALLOC_START_MS ?? 8000);
  const ms = Number(process.env.HIWAR_ALLOC_MS ?? 10000);
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<any>((resolve, reject) => session.post(method, params ?? {}, (err, r) => (err ? reject(err) : resolve(r))));
  setTimeout(async () => {
    await post('HeapProfiler.enable');
    // HIWAR_ALLOC_SURVIVORS=1 leaves out what died young: what is left was promoted to the old
    // generation (or is still alive), the garbage that only a full collection frees.
    const young = process.env.HIWAR_ALLOC_SURVIVORS !== '1';
    await post('HeapProfiler.startSampling', { samplingInterval: 16384, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: young });
    setTimeout(async () => {
      const { profile } = await post('HeapProfiler.stopSampling');
      writeFileSync(out, JSON.stringify({ ...profile, seconds: ms / 1000 }));
      console.error(`allocations: ${ms / 1000} s sampled into ${out}`);
    }, ms).unref();
  }, startMs).unref();
}

/**
 * What the slowest turns of a latency run were waiting for. While the calls run, this records
 * (in hiwar's process, on the performance.now() timeline the sessions use) every garbage
 * collection (`perf_hooks` 'gc' entries: kind, start, duration) and every tick of the bench
 * line's frame clock that took long (the caller frames of every call on that tick pushed through
 * the session to /listen, all synchronous). Afterwards each turn's hiwar-side spans (the parts of
 * its framework-added time: the time between the fake's holds) are checked against them: how
 * much of the turn's own time a collection or a frame burst held the loop.
 *
 * Recording costs one observer callback per collection and two clock reads per frame tick, so it
 * stays on in every latency run.
 */
import { constants, PerformanceObserver, performance, type PerformanceEntry } from 'node:perf_hooks';

export interface Busy {
  start: number;
  ms: number;
  what: string;
}

const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental marking',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};

/** Garbage collections in this process from `start()` to `stop()`. */
export class GcLog {
  readonly entries: Busy[] = [];
  private obs: PerformanceObserver | undefined;

  start(): void {
    this.obs = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) this.entries.push({ start: e.startTime, ms: e.duration, what: gcKind(e) });
    });
    this.obs.observe({ entryTypes: ['gc'] });
  }

  stop(): void {
    this.obs?.disconnect();
  }

  total(kind?: string): { n: number; ms: number; maxMs: number } {
    const xs = kind ? this.entries.filter((e) => e.what === kind) : this.entries;
    return { n: xs.length, ms: xs.reduce((s, e) => s + e.ms, 0), maxMs: xs.reduce((m, e) => Math.max(m, e.ms), 0) };
  }
}

function gcKind(e: PerformanceEntry): string {
  const kind = (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
  return (kind !== undefined && GC_KINDS[kind]) || `gc ${kind}`;
}

/** A span of a turn that is hiwar's (not a hold), on the performance.now() timeline. */
export interface Span {
  name: string;
  from: number;
  to: number;
}

export interface TurnTail {
  call: number;
  /** When the turn's speech ended (performance.now()). */
  at: number;
  turn: number;
  addedMs: number;
  /** The turn's largest hiwar-side span. */
  worst: { name: string; ms: number };
  /** Every hiwar-side span of the turn, ms (where a slow turn's time went, stage by stage). */
  spans: Record<string, number>;
  /** Milliseconds of the turn's hiwar-side spans during which a collection ran, per kind. */
  gc: Record<string, number>;
  /** Same for long frame-clock ticks (the caller frames of every call pushed through to /listen). */
  frameTickMs: number;
  /** Overlapping busy stretches, largest first (what the loop was doing). */
  busy: { what: string; at: string; ms: number }[];
}

const overlap = (a0: number, a1: number, b0: number, b1: number) => Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));

/** The turn's spans against what held the loop. */
export function explainTurn(call: number, at: number, turn: number, addedMs: number, spans: Span[], gcs: Busy[], ticks: Busy[]): TurnTail {
  const valid = spans.filter((s) => Number.isFinite(s.from) && Number.isFinite(s.to) && s.to >= s.from);
  const worst = valid.reduce((w, s) => (s.to - s.from > w.ms ? { name: s.name, ms: s.to - s.from } : w), { name: '–', ms: 0 });
  const gc: Record<string, number> = {};
  let frameTickMs = 0;
  const busy: TurnTail['busy'] = [];
  for (const b of [...gcs, ...ticks]) {
    let o = 0;
    let at = '';
    for (const s of valid) {
      const x = overlap(s.from, s.to, b.start, b.start + b.ms);
      if (x > 0 && !at) at = s.name;
      o += x;
    }
    if (o <= 0) continue;
    if (b.what === 'frame tick') frameTickMs += o;
    else gc[b.what] = (gc[b.what] ?? 0) + o;
    busy.push({ what: b.what, at, ms: Math.round(b.ms * 100) / 100 });
  }
  busy.sort((a, b) => b.ms - a.ms);
  const ms = Object.fromEntries(valid.map((s) => [s.name, Math.round((s.to - s.from) * 100) / 100]));
  return { call, at, turn, addedMs, worst: { name: worst.name, ms: Math.round(worst.ms * 100) / 100 }, spans: ms, gc, frameTickMs, busy: busy.slice(0, 4) };
}

/** The mean of each span over `turns` (the slowest turns', or all turns'), ms. */
export function meanSpans(turns: Pick<TurnTail, 'spans'>[]): Record<string, number> {
  const sum: Record<string, { ms: number; n: number }> = {};
  for (const t of turns) {
    for (const [k, v] of Object.entries(t.spans)) {
      const e = (sum[k] ??= { ms: 0, n: 0 });
      e.ms += v;
      e.n++;
    }
  }
  return Object.fromEntries(Object.entries(sum).map(([k, e]) => [k, Math.round((e.ms / e.n) * 100) / 100]));
}

/** The slowest `share` of the turns (at least one), slowest first. */
export function slowest<T extends { addedMs: number }>(turns: T[], share: number): T[] {
  return [...turns].sort((a, b) => b.addedMs - a.addedMs).slice(0, Math.max(1, Math.ceil(turns.length * share)));
}

/** Frame-clock ticks that held the loop this long or longer are kept (the rest cost a fraction of it). */
export const LONG_TICK_MS = 0.5;

export const now = () => performance.now();

/**
 * Why a WebRTC density level had late packets: a trace of every tick of the agents' packet clock
 * with what else happened around it, so a late packet can be put down to its cause.
 *
 * Per tick: when its send phase started and ended against its due time; the process's CPU
 * time and the clock's thread's wait on the kernel's run queue (Linux schedstat: runnable, but another process had
 * the core), before the tick and during it; and the garbage collector's pauses
 * (PerformanceObserver 'gc') over the same span. A tick is late when its last packet left more
 * than the clock's `lateAfterMs` past its due time. CPU time, unlike wall time, does not grow
 * with the machine's load: it is what to compare between runs on a shared machine.
 *
 * Costs two performance.now(), process.cpuUsage() and reads of /proc/thread-self/schedstat a tick: about 50 µs
 * per 20 ms, whatever the number of calls.
 */
import { readFileSync } from 'node:fs';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { constants } from 'node:perf_hooks';
import type { PacketClock, Tick } from '../transports/webrtc/packet-clock.ts';
import { percentile, round } from './harness.ts';

/** What a late tick is put down to: the largest of the measured spans around it. */
export type LateCause = 'run queue (other processes had the core)' | 'GC pause' | 'event loop busy before the tick' | "the tick's own work" | 'timer' | 'catch-up after a late tick';

export interface LateTick {
  /** Seconds into the window. */
  atS: number;
  /** The tick's last packet, ms past due. */
  lateMs: number;
  /** The tick's start (its first packet), ms past due. */
  wakeLateMs: number;
  /** The tick's send phase, ms of wall time and of the process's CPU. */
  workMs: number;
  workCpuMs: number | null;
  /**
   * The process's CPU between the previous tick's send phase and this tick's start, less GC:
   * the prepare phase (encoding) and the loop's callbacks (caller RTP, the worker channel), ms.
   */
  busyBeforeMs: number | null;
  /** GC pauses over the previous tick's end .. this tick's end, ms, and their kinds. */
  gcMs: number;
  gcKinds: string;
  /** The clock's thread's run-queue wait over the same span, ms (null where schedstat is missing). */
  runQueueMs: number | null;
  cause: LateCause;
}

export interface TraceReport {
  ticks: number;
  lateTicks: number;
  /** Late ticks per cause. */
  causes: Partial<Record<LateCause, number>>;
  /** The latest of the late ticks that started a burst (not catch-ups), latest first. */
  worst: LateTick[];
  /** The send phase of a tick: wall time p99 / max, and the process's CPU mean / p99, ms. */
  tickWorkP99Ms: number | null;
  tickWorkMaxMs: number | null;
  tickCpuMeanMs: number | null;
  tickCpuP99Ms: number | null;
  /** How late ticks started, ms. */
  wakeLateP99Ms: number | null;
  wakeLateMaxMs: number | null;
  /** GC pauses over the window per kind. */
  gc: Record<string, { count: number; maxMs: number; totalMs: number }>;
  /** V8 heap used at the window's end less at its start, MB. */
  heapGrowthMb: number | null;
  /** Run-queue wait of the clock's thread over the window, % of the window (null without schedstat). */
  runQueuePct: number | null;
}

const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'scavenge',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'mark-compact',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};

/**
 * CPU time so far and the current thread's run-queue wait (Linux schedstat: accounted when the
 * wait ends, so exact once the thread runs); ms. CPU is the process's (getrusage: exact to the
 * microsecond) on the main thread; in a sender thread, where the process's CPU would count the
 * main thread's work as the thread's, it is the thread's own schedstat run time (which moves
 * only at context switches and scheduler ticks, a few ms apart).
 */
function schedstat(threadCpu = false): { cpu: number; wait: number } | null {
  const { user, system } = process.cpuUsage();
  try {
    const [run, wait] = readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ');
    return { cpu: threadCpu ? Number(run) / 1e6 : (user + system) / 1000, wait: Number(wait) / 1e6 };
  } catch {
    return null;
  }
}

interface Span {
  due: number;
  start: number;
  end: number;
  prevEnd: number;
  /** The process's CPU and the main thread's run-queue wait before the tick's start and during its run. */
  before: { cpu: number; wait: number } | null;
  during: { cpu: number; wait: number } | null;
}

const minus = (a: { cpu: number; wait: number } | null, b: { cpu: number; wait: number } | null) => (a && b ? { cpu: a.cpu - b.cpu, wait: a.wait - b.wait } : null);

export class TickTrace {
  private readonly spans: Span[] = [];
  private readonly gcs: { start: number; end: number; kind: string }[] = [];
  private readonly observer: PerformanceObserver;
  private readonly unsubscribeHead: () => void;
  private unsubscribeTail: (() => void) | undefined;
  private recording = false;
  private windowStart = 0;
  private head: { due: number; start: number; stat: ReturnType<typeof schedstat> } | undefined;
  private prevEnd = 0;
  private prevStat: ReturnType<typeof schedstat>;
  private statAtStart: ReturnType<typeof schedstat> = null;
  private heapAtStart = 0;
  private readonly schedstat: () => ReturnType<typeof schedstat>;

  /**
   * Listens first on `clock`: make it before any output subscribes. `threadCpu`: the clock runs
   * in a thread of its own (a sender thread), whose CPU is its own, not the process's.
   */
  constructor(
    private readonly clock: PacketClock,
    threadCpu = false,
  ) {
    this.schedstat = () => schedstat(threadCpu);
    this.prevStat = this.schedstat();
    this.unsubscribeHead = clock.subscribe((t) => this.onHead(t));
    this.observer = new PerformanceObserver((list) => {
      if (!this.recording) return;
      for (const e of list.getEntries()) this.gcs.push({ start: e.startTime, end: e.startTime + e.duration, kind: GC_KINDS[(e as unknown as { detail?: { kind?: number } }).detail?.kind ?? -1] ?? 'gc' });
    });
    this.observer.observe({ entryTypes: ['gc'] });
  }

  /** Listens last on the clock (after every output has sent, before their prepare phase): call once every output has subscribed. */
  listenLast(): void {
    this.unsubscribeTail ??= this.clock.subscribe(() => this.onTail());
  }

  start(): void {
    this.spans.length = 0;
    this.gcs.length = 0;
    this.recording = true;
    this.windowStart = performance.now();
    this.statAtStart = this.schedstat();
    this.heapAtStart = process.memoryUsage().heapUsed;
  }

  private onHead(t: Tick): void {
    this.head = { due: t.due, start: performance.now(), stat: this.schedstat() };
  }

  private onTail(): void {
    const end = performance.now();
    const h = this.head;
    const stat = this.schedstat();
    if (h && this.recording) this.spans.push({ due: h.due, start: h.start, end, prevEnd: this.prevEnd, before: minus(h.stat, this.prevStat), during: minus(stat, h.stat) });
    this.prevEnd = end;
    this.prevStat = stat;
  }

  /** Ends the window; GC entries arrive asynchronously, so give them a moment first. */
  async stop(): Promise<TraceReport> {
    await new Promise((r) => setTimeout(r, 50));
    this.recording = false;
    const windowMs = performance.now() - this.windowStart;
    const statEnd = this.schedstat();
    const gcIn = (from: number, to: number) => this.gcs.filter((g) => g.end > from && g.start < to).map((g) => ({ kind: g.kind, ms: Math.min(g.end, to) - Math.max(g.start, from) }));
    const sum = (xs: { ms: number }[]) => xs.reduce((a, g) => a + g.ms, 0);
    const late: LateTick[] = [];
    let previous: { span: Span; late?: LateTick } | undefined;
    for (const s of this.spans) {
      const lateMs = s.end - s.due;
      let tick: LateTick | undefined;
      if (lateMs > this.clock.lateAfterMs) {
        const gcBefore = gcIn(s.prevEnd || s.due - this.clock.frameMs, s.start);
        const gcDuring = gcIn(s.start, s.end);
        const t: Omit<LateTick, 'cause'> = {
          atS: round((s.due - this.windowStart) / 1000, 2)!,
          lateMs: round(lateMs)!,
          wakeLateMs: round(s.start - s.due)!,
          workMs: round(s.end - s.start)!,
          workCpuMs: s.during && round(s.during.cpu, 2),
          busyBeforeMs: s.before && round(Math.max(0, s.before.cpu - sum(gcBefore)), 1),
          gcMs: round(sum(gcBefore) + sum(gcDuring))!,
          gcKinds: [...new Set([...gcBefore, ...gcDuring].map((g) => g.kind))].join('+'),
          runQueueMs: s.before && s.during && round(s.before.wait + s.during.wait)!,
        };
        // A tick already due when the one before it (late itself) ended ran in the same
        // wake-up: it owes its lateness to what held up the first of them.
        const catchUp = previous?.late && s.due <= previous.span.end;
        tick = { ...t, cause: catchUp ? 'catch-up after a late tick' : causeOf(t, Math.max(0, (t.workCpuMs ?? t.workMs) - sum(gcDuring))) };
        late.push(tick);
      }
      previous = { span: s, late: tick };
    }
    const causes: TraceReport['causes'] = {};
    for (const t of late) causes[t.cause] = (causes[t.cause] ?? 0) + 1;
    const work = this.spans.map((s) => s.end - s.start);
    const workCpu = this.spans.flatMap((s) => (s.during ? [s.during.cpu] : []));
    const wake = this.spans.map((s) => s.start - s.due);
    const gc: TraceReport['gc'] = {};
    for (const g of this.gcs) {
      const k = (gc[g.kind] ??= { count: 0, maxMs: 0, totalMs: 0 });
      k.count++;
      k.maxMs = Math.max(k.maxMs, round(g.end - g.start, 2)!);
      k.totalMs = round(k.totalMs + g.end - g.start, 2)!;
    }
    return {
      ticks: this.spans.length,
      lateTicks: late.length,
      causes,
      // The first tick of each late burst carries the cause; the catch-up ticks behind it only repeat it.
      worst: late.filter((t) => t.cause !== 'catch-up after a late tick').sort((a, b) => b.lateMs - a.lateMs).slice(0, 8),
      tickWorkP99Ms: round(percentile(work, 99), 2),
      tickWorkMaxMs: round(Math.max(...work), 2),
      tickCpuMeanMs: workCpu.length ? round(workCpu.reduce((a, b) => a + b, 0) / workCpu.length, 2) : null,
      tickCpuP99Ms: workCpu.length ? round(percentile(workCpu, 99), 2) : null,
      wakeLateP99Ms: round(percentile(wake, 99), 2),
      wakeLateMaxMs: round(Math.max(...wake), 2),
      gc,
      heapGrowthMb: round((process.memoryUsage().heapUsed - this.heapAtStart) / 2 ** 20),
      runQueuePct: statEnd && this.statAtStart ? round(((statEnd.wait - this.statAtStart.wait) / windowMs) * 100) : null,
    };
  }

  close(): void {
    this.recording = false;
    this.observer.disconnect();
    this.unsubscribeHead();
    this.unsubscribeTail?.();
  }
}

/** The largest span that could have held the tick up (`ownWorkMs`: its run's CPU less GC). */
function causeOf(t: Omit<LateTick, 'cause'>, ownWorkMs: number): LateCause {
  const spans: [LateCause, number][] = [
    ['run queue (other processes had the core)', t.runQueueMs ?? 0],
    ['GC pause', t.gcMs],
    ['event loop busy before the tick', t.busyBeforeMs ?? 0],
    ["the tick's own work", ownWorkMs],
  ];
  const [cause, ms] = spans.reduce((a, b) => (b[1] > a[1] ? b : a));
  return ms >= 5 ? cause : 'timer';
}

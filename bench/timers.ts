/**
 * `npm run bench -- timers [--quick] [calls=100]`: is one scheduler for every call in a process
 * cheaper than each call's own timers? N loops each wake every 20 ms (as a paced output does per
 * call) for a while, first with a timer per loop per wake (`sleepFor`, what the clocks do), then
 * with one shared timer that wakes every loop due in the same millisecond. Prints the process
 * CPU per loop-second and how late the wakes were, for each.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { sleepFor } from '../src/transport/clock.ts';
import { conditions, spanLine } from './conditions.ts';
import { benchOptions, percentile, round, type BenchArgs } from './harness.ts';

const PERIOD_MS = 20;

/** One timer for all: wakes are kept in 1 ms buckets; the timer is armed for the earliest bucket. */
class SharedScheduler {
  private readonly buckets = new Map<number, (() => void)[]>();
  private timer: NodeJS.Timeout | undefined;
  private armedAt = Infinity;

  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const at = Math.ceil(performance.now() + ms);
      let b = this.buckets.get(at);
      if (!b) this.buckets.set(at, (b = []));
      b.push(resolve);
      if (at < this.armedAt) this.arm(at);
    });
  }

  private arm(at: number): void {
    clearTimeout(this.timer);
    this.armedAt = at;
    this.timer = setTimeout(this.fire, Math.max(0, at - performance.now()));
  }

  private fire = (): void => {
    this.armedAt = Infinity;
    const now = performance.now();
    let next = Infinity;
    for (const [at, b] of this.buckets) {
      if (at <= now) {
        this.buckets.delete(at);
        for (const r of b) r();
      } else if (at < next) next = at;
    }
    if (next < Infinity) this.arm(next);
  };
}

async function run(calls: number, seconds: number, sleep: (ms: number) => Promise<void>) {
  const lateness: number[] = [];
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  await Promise.all(
    Array.from({ length: calls }, async (_, i) => {
      // Calls start spread over one period, as real calls do.
      let due = t0 + (i * PERIOD_MS) / calls;
      while (due < end) {
        await sleep(due - performance.now());
        lateness.push(performance.now() - due);
        due += PERIOD_MS;
      }
    }),
  );
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  loop.disable();
  return {
    cpuPct: round(((cpu.user + cpu.system) / 1000 / wall) * 100, 2),
    cpuUsPerCallSecond: round((cpu.user + cpu.system) / calls / (wall / 1000)),
    lateP50Ms: round(percentile(lateness, 50), 2),
    lateP99Ms: round(percentile(lateness, 99), 2),
    loopDelayP99Ms: round(loop.percentile(99) / 1e6, 2),
  };
}

export async function timers({ quick, rest }: BenchArgs): Promise<Record<string, unknown>> {
  const { numbers, named } = benchOptions(rest);
  const calls = Number(named.loops ?? named.calls ?? numbers[0] ?? 100);
  if (!(Number.isInteger(calls) && calls > 0)) throw new Error('usage: npm run bench -- timers [--quick] [loops=100]');
  const seconds = quick ? 5 : 20;
  const conds = conditions();
  const shared = new SharedScheduler();
  // Interleaved twice so that a change in the machine's load hits both alike.
  const perCall = [];
  const one = [];
  for (let k = 0; k < 2; k++) {
    perCall.push(await run(calls, seconds / 2, (ms) => sleepFor(ms)));
    one.push(await run(calls, seconds / 2, (ms) => shared.sleep(ms)));
  }
  const ran = conds.end();
  console.log(`\ntimers: ${calls} loops waking every ${PERIOD_MS} ms, ${seconds / 2} s per run, each run twice; ${spanLine(ran)}`);
  console.log('scheduler            cpu %   µs CPU per loop-second   wake late p50 / p99 ms   loop delay p99 ms');
  const line = (name: string, r: Awaited<ReturnType<typeof run>>) =>
    console.log(`${name.padEnd(18)}  ${String(r.cpuPct).padStart(6)}   ${String(r.cpuUsPerCallSecond).padStart(22)}   ${`${r.lateP50Ms} / ${r.lateP99Ms}`.padStart(22)}   ${String(r.loopDelayP99Ms).padStart(17)}`);
  perCall.forEach((r) => line('timer per call', r));
  one.forEach((r) => line('one shared timer', r));
  return { bench: 'timers', calls, seconds, perCall, shared: one, conditions: ran };
}

/**
 * Soak: one process starts and ends calls on a loop (K at a time, one turn each) for a bounded
 * time, sampling RSS, heap and open handles after a GC. Growth per 1,000 calls is the slope of
 * a least-squares line through (calls ended, memory), so a warm-up step does not count as a leak.
 * Usage: npm run bench -- soak [seconds=600] [concurrent=20] [pin=auto|off|1/0]   (--quick: 25 s, 10 at a time)
 * (`pin=`, bench/pin.ts: hiwar and its callers in this process on the server's core(s), the fake
 * service on the rest; `auto` by default, which on two CPUs shares them.)
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnFakeService } from './fake-service.ts';
import { benchOptions, FrameClock, round, startCall, table, type BenchArgs } from './harness.ts';
import { conditions, spanLine, type SpanConditions } from './conditions.ts';
import { pinBench } from './pin.ts';

export const SOAK_TARGETS = { growthPer1000CallsMb: 5 };

const gc = (globalThis as { gc?: () => void }).gc;

function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  if (n < 2) return NaN;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den ? num / den : NaN;
}

export async function soak({ quick, rest }: BenchArgs): Promise<Record<string, unknown>> {
  const { numbers, named } = benchOptions(rest);
  const seconds = Number(named.seconds ?? numbers[0] ?? (quick ? 25 : 600));
  const concurrent = Number(named.concurrent ?? numbers[1] ?? (quick ? 10 : 20));
  if (!(seconds > 0) || !(Number.isInteger(concurrent) && concurrent > 0)) throw new Error('usage: npm run bench -- soak [seconds=600] [concurrent=20] [pin=auto|off|1/0]');
  // Before the fake starts: it then starts on the rig's CPUs.
  const pin = pinBench(named.pin, { self: 'server' });
  const fake = await spawnFakeService({ sttMs: 50, llmMs: 50, ttsMs: 50, audioMsPerChar: 10 });
  const conds = conditions([fake.pid]);
  const frames = new FrameClock();
  const samples: { calls: number; rssMb: number; heapMb: number; handles: number; s: number }[] = [];
  let ended = 0;
  let failed = 0;
  let seq = 0;
  const t0 = performance.now();
  const until = t0 + seconds * 1000;
  const sample = () => {
    gc?.();
    const m = process.memoryUsage();
    samples.push({ calls: ended, rssMb: m.rss / 2 ** 20, heapMb: m.heapUsed / 2 ** 20, handles: process.getActiveResourcesInfo().length, s: (performance.now() - t0) / 1000 });
  };
  const handlesBefore = process.getActiveResourcesInfo().length;
  let ran: SpanConditions | undefined;
  try {
    const worker = async () => {
      while (performance.now() < until) {
        const c = startCall(fake, `soak${seq++}`, { turns: 1, speechMs: 200, gapMs: 0 }, frames);
        const report = (await c.done) as { turns: unknown[] };
        if (!c.caller.turns[0]?.firstAgentAudio) failed++;
        void report;
        ended++;
        // The fake keeps every hold: cleared now and then so the fake's memory stays flat.
        if (ended % 500 === 0) await fake.reset();
      }
    };
    const sampler = (async () => {
      while (performance.now() < until) {
        sample();
        await sleep(Math.min(5000, (seconds * 1000) / 12));
      }
    })();
    await Promise.all([...Array.from({ length: concurrent }, worker), sampler]);
    await sleep(500);
    sample();
    ran = conds.end();
  } finally {
    await fake.close();
  }
  // The first samples are the warm-up (JIT, pools, first connections): the slope starts after a fifth of the run.
  const steady = samples.filter((s) => s.s >= seconds / 5);
  const rssGrowth = slope(steady.map((s) => s.calls), steady.map((s) => s.rssMb)) * 1000;
  const heapGrowth = slope(steady.map((s) => s.calls), steady.map((s) => s.heapMb)) * 1000;
  const res = {
    bench: 'soak',
    quick,
    seconds,
    concurrent,
    pin: { pinned: pin.pinned, server: pin.server, rig: pin.rig },
    calls: ended,
    callsWithoutReply: failed,
    rssMb: { first: round(samples[0]!.rssMb), last: round(samples.at(-1)!.rssMb) },
    heapMb: { first: round(samples[0]!.heapMb), last: round(samples.at(-1)!.heapMb) },
    handles: { before: handlesBefore, after: samples.at(-1)!.handles },
    rssGrowthPer1000CallsMb: round(rssGrowth, 2),
    heapGrowthPer1000CallsMb: round(heapGrowth, 2),
    gcExposed: Boolean(gc),
    targets: SOAK_TARGETS,
    conditions: ran!,
  };
  console.log(`\nsoak: ${seconds} s, ${concurrent} calls at a time, local transport, warm after the first fifth (left out of the slope); ${spanLine(res.conditions)}`);
  console.log('   s    calls   rss MB  heap MB  handles');
  for (const s of samples) console.log(`${s.s.toFixed(0).padStart(4)}  ${String(s.calls).padStart(7)}  ${s.rssMb.toFixed(1).padStart(7)}  ${s.heapMb.toFixed(1).padStart(7)}  ${String(s.handles).padStart(7)}`);
  table('soak: summary', [
    ['calls ended (without a reply)', `${ended} (${failed})`, ''],
    ['RSS growth per 1,000 calls, MB', res.rssGrowthPer1000CallsMb, `≤ ${SOAK_TARGETS.growthPer1000CallsMb}`],
    ['heap growth per 1,000 calls, MB', res.heapGrowthPer1000CallsMb, `≤ ${SOAK_TARGETS.growthPer1000CallsMb}`],
    ['open handles before / after', `${res.handles.before} / ${res.handles.after}`, 'equal'],
  ]);
  return res;
}

/**
 * How many calls one process holds: N concurrent calls (caller audio at real time in 20 ms
 * frames, agent audio paced, a turn every few seconds), for N = 25, 50, 100, 150, 200…
 * Per N: process CPU, event-loop delay p99, late caller and agent frames (> 20 ms past due),
 * RSS per call. The answer is the largest N such that every level up to it had zero late agent frames (one process = one core; largestClean).
 */
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnFakeService } from './fake-service.ts';
import { FrameClock, benchOptions, largestClean, round, startCall, table, type BenchArgs, type RunningCall } from './harness.ts';
import { telephonyRig, type TelephonyRig } from './telephony-density.ts';
import { serveRig } from './telephony-serve-rig.ts';
import { conditionsLine, conditionsOf, conditionsStart, cpuUsOf, rssOf, schedstat, STARVED_WAIT_SHARE, type Conditions } from './conditions.ts';
import { pinBench } from './pin.ts';

export const DENSITY_TARGETS = { callsPerCore: 100, rssPerCallMb: 10 };

const gc = (globalThis as { gc?: () => void }).gc;

/**
 * `npm run bench -- density [--quick] [N …] [transport=local|twilio] [workers=N] [seconds=20] [uplink=ms] [phases=1|4…] [step=40] [pin=auto|off|1/0]`: `local`
 * drives each session through an in-process transport (hiwar's pipeline alone); `twilio` runs
 * `hiwar serve`'s server in this process and the callers as Twilio Media Streams over real
 * WebSockets from another process (bench/telephony-density.ts); `phases` spreads those callers over
 * the 20 ms clock (1: every call on one tick, the worst case); `workers=N` (twilio only) runs the
 * server as a real `hiwar serve --workers N` in processes of its own (bench/telephony-serve-rig.ts).
 * `pin=` (bench/pin.ts; `auto` by default): the server on its own core(s) (this process, or the
 * `hiwar serve` processes with `workers=N`, one core each), the callers and the fake on the rest.
 * Every level is printed with its conditions (bench/conditions.ts: the CPUs each side had, and
 * the rig's own run-queue wait); "calls per core" only from levels where neither the server nor
 * the rig was starved.
 */
export async function density({ quick, rest }: BenchArgs): Promise<Record<string, unknown>> {
  const { numbers, named, agent: agentOpts } = benchOptions(rest);
  const levels = numbers.length ? numbers : quick ? [10, 25] : [25, 50, 100, 150, 200];
  const transport = named.transport ?? 'local';
  if (transport !== 'local' && transport !== 'twilio') throw new Error(`transport must be local or twilio, not ${transport}`);
  const seconds = named.seconds !== undefined ? Number(named.seconds) : quick ? 8 : 20;
  if (!(seconds > 0)) throw new Error(`seconds must be a positive number, not ${named.seconds}`);
  const workers = named.workers !== undefined ? Number(named.workers) : undefined;
  if (workers !== undefined && (!Number.isInteger(workers) || workers < 1 || transport !== 'twilio')) throw new Error(`workers=N needs transport=twilio and a whole number of processes, not ${named.workers}`);
  // Before any child starts: the fake and the callers then start on the rig's CPUs.
  const pin = pinBench(named.pin, workers !== undefined ? { self: 'rig', serverCores: workers } : { self: 'server' });
  const fake = await spawnFakeService({ sttMs: 200, llmMs: 200, ttsMs: 100 });
  const phases = Number(named.phases ?? 1);
  if (!Number.isInteger(phases) || phases < 1 || 20 % phases) throw new Error(`phases must divide 20 (1, 2, 4, 5, 10, 20), not ${named.phases}`);
  // `step=40`: the telephony output sends two 20 ms frames per pacing step (media.sendEveryMs).
  const step = named.step !== undefined ? Number(named.step) : undefined;
  const rig = transport === 'twilio' ? (workers !== undefined ? await serveRig(fake, workers, phases) : await telephonyRig(fake, agentOpts, phases, step)) : undefined;
  // The server in processes of its own (workers=N): its CPU and memory are read from /proc.
  const external = rig !== undefined && workers !== undefined;
  const pids = () => rig?.pids() ?? [process.pid];
  // The far end: a starved rig sends late and reads late, which is not hiwar's to answer for.
  const rigPids = () => [fake.pid, ...(rig?.rigPids() ?? [])];
  const cpuUs = () => {
    // The scheduler's run time of every thread (ns) where there is one: /proc/<pid>/stat counts
    // whole ticks of 10 ms, charged to whatever runs at a tick, and a few calls' servers on a busy
    // machine could be charged none in a short window (cpu 0: seen beside a second suite).
    if (external) return (schedstat(pids())?.runNs ?? (cpuUsOf(pids()) ?? 0) * 1000) / 1000;
    const c = process.cpuUsage();
    return c.user + c.system;
  };
  const mem = () => (external ? { rss: rssOf(pids()) ?? 0, heap: 0 } : memory());
  const rows: ({ calls: number } & Record<string, number | null>)[] = [];
  const conditions: Conditions[] = [];
  // Memory per call is measured against the idle process (after a full collection), once: a
  // baseline taken before each level includes what the level before it left in the heap and in
  // freed-but-kept pages, which made the figure wander (even below zero).
  const idle = mem();
  try {
    for (const n of levels) {
      await fake.reset();
      const frames = new FrameClock();
      const calls: RunningCall[] = [];
      if (rig) await rig.start(n, `t${n}`);
      else {
        // Calls arrive over a second, as they would, not on one tick.
        for (let i = 0; i < n; i++) {
          calls.push(startCall(fake, `d${n}-${i}`, { turns: 1000, speechMs: 600, gapMs: 1000 + Math.random() * 2000 }, frames, agentOpts));
          await sleep(1000 / n);
        }
      }
      // Measured once every call is up: the steady state, not the connection storm.
      await sleep(1000);
      const before = await counters(frames, calls, rig);
      const fakeCpu0 = await fake.cpuUs();
      const loop = monitorEventLoopDelay({ resolution: 10 });
      loop.enable();
      const io0 = syscalls();
      const window = conditionsStart(pids(), rigPids());
      const cpu0 = cpuUs();
      const t0 = performance.now();
      await sleep(seconds * 1000);
      const wall = performance.now() - t0;
      const cpu = cpuUs() - cpu0;
      const io = syscalls();
      loop.disable();
      // Warm: this server already ran calls (an earlier level); the first level's is cold code.
      conditions.push(conditionsOf(window, { warm: rows.length > 0, calls: n, transport: rig ? `twilio, ${rig.where}` : 'local transport' }));
      const after = await counters(frames, calls, rig);
      const fakeCpu = (await fake.cpuUs()) - fakeCpu0;
      // After the window (a full collection stalls the loop): every call is still up.
      const m = mem();
      if (rig) await rig.stop();
      else {
        for (const c of calls) c.caller.hangUp();
        await Promise.all(calls.map((c) => c.done));
      }
      const pct = (us: number) => round((us / 1000 / wall) * 100);
      rows.push({
        calls: n,
        cpuPct: pct(cpu),
        cpuPerCallPct: round(pct(cpu)! / n, 3),
        loopDelayP99Ms: external ? null : round(loop.percentile(99) / 1e6),
        lateCallerFrames: after.lateCaller - before.lateCaller,
        callerFrames: after.callerFrames - before.callerFrames,
        lateAgentFrames: after.lateAgent - before.lateAgent,
        agentFrames: after.agentFrames - before.agentFrames,
        answeredTurns: after.turns - before.turns,
        underruns: rig ? null : after.underruns - before.underruns,
        rssPerCallMb: round((m.rss - idle.rss) / n / 2 ** 20, 2),
        heapPerCallMb: external ? null : round((m.heap - idle.heap) / n / 2 ** 20, 2),
        // Twilio only: frames the caller process itself sent late (its clock starved of a core),
        // and the far end's CPU; with the fake's, what else ran on the machine for these calls.
        callerLateSent: rig ? after.callerLateSent - before.callerLateSent : null,
        callersCpuPct: rig ? pct(after.callersCpuUs - before.callersCpuUs) : null,
        fakeCpuPct: pct(fakeCpu),
        lateAgentCallerStalled: rig ? after.lateAgentStalled - before.lateAgentStalled : null,
        callersLoopP99Ms: rig ? round(after.callersLoopP99Ms) : null,
        callersLoopMaxMs: rig ? round(after.callersLoopMaxMs) : null,
        // How long the callers' process took to write each tick's frames (from the due time to the last).
        callersBurstP50Ms: rig ? round(after.callersBurst[0]) : null,
        callersBurstP99Ms: rig ? round(after.callersBurst[1]) : null,
        // This process's read and write system calls per second (Linux): on loopback each write
        // also runs the receiving side's TCP work, so the count is a cost the CPU figure hides.
        writesPerSec: io && io0 && !external ? Math.round(((io.writes - io0.writes) * 1000) / wall) : null,
        readsPerSec: io && io0 && !external ? Math.round(((io.reads - io0.reads) * 1000) / wall) : null,
      });
      console.error(`density: ${JSON.stringify({ ...rows.at(-1), conditions: conditions.at(-1) })}`);
      await sleep(500);
    }
  } finally {
    await rig?.close();
    await fake.close();
  }
  const { ok, okServer, fed, byCpu } = densitySummary(rows, conditions);
  const res = { bench: 'density', transport, workers: workers ?? null, pin: { pinned: pin.pinned, server: pin.server, rig: pin.rig }, phases: rig ? phases : null, sendEveryMs: rig ? (step ?? null) : null, uplinkFrameMs: agentOpts.uplinkFrameMs ?? null, quick, seconds, levels: rows, conditions, starvedAbove: STARVED_WAIT_SHARE, maxCallsPerCoreNoLateAgentFrames: ok, maxCallsNoLateAgentFramesCallerNotStalled: rig ? okServer : null, callsPerCoreByCpu: byCpu, callsPerCoreByCpuFrom: fed?.calls ?? null, targets: DENSITY_TARGETS };
  const where = rig ? `${rig.where}, Twilio Media Streams over WebSocket, callers in another process` : 'local transport';
  console.log(`\ndensity (${where}): ${seconds} s per level, fake service in another process (caller frames late / total, agent frames late / total)`);
  const cols: [string, (r: Record<string, number | null>) => string][] = [
    ['calls', (r) => `${r.calls}`],
    ['cpu %', (r) => `${r.cpuPct}`],
    ['cpu %/call', (r) => `${r.cpuPerCallPct}`],
    ['loop p99 ms', (r) => `${r.loopDelayP99Ms}`],
    ['late caller', (r) => `${r.lateCallerFrames}/${r.callerFrames}`],
    ['late agent', (r) => `${r.lateAgentFrames}/${r.agentFrames}${r.underruns ? ` (${r.underruns} underruns)` : ''}`],
    ['rss/call MB', (r) => `${r.rssPerCallMb}`],
    ['heap/call MB', (r) => `${r.heapPerCallMb}`],
    ['fake cpu %', (r) => `${r.fakeCpuPct}`],
    ...(rig
      ? ([
          ['callers cpu %', (r) => `${r.callersCpuPct}`],
          ['sent late', (r) => `${r.callerLateSent}`],
          ['late agent, caller stalled', (r) => `${r.lateAgentCallerStalled}`],
          ['callers loop p99/max', (r) => `${r.callersLoopP99Ms}/${r.callersLoopMaxMs}`],
          ['callers burst p50/p99 ms', (r) => `${r.callersBurstP50Ms}/${r.callersBurstP99Ms}`],
        ] as [string, (r: Record<string, number | null>) => string][])
      : []),
  ];
  console.log(cols.map(([h]) => h.padStart(Math.max(h.length, 7))).join('  '));
  for (const r of rows) console.log(cols.map(([h, f]) => f(r).padStart(Math.max(h.length, 7))).join('  '));
  console.log('conditions:');
  for (const c of conditions) console.log(`  ${conditionsLine(c)}`);
  if (rig) {
    console.log('(sent late: caller frames the caller process itself sent more than 20 ms past due: they arrive late through no fault of hiwar;');
    console.log(' late agent, caller stalled: late agent frames read while the caller process was itself over 20 ms behind its clock)');
  }
  const starvedAll = `not reported, every level starved, hiwar or its rig (run-queue wait > ${STARVED_WAIT_SHARE * 100} %)`;
  table('density: summary', [
    [ok === null ? `calls per core, zero late agent frames: ${starvedAll}` : 'calls per core, zero late agent frames (levels not starved)', ok, `≥ ${DENSITY_TARGETS.callsPerCore}`],
    ...(rig ? ([['… not counting those read by a stalled caller', okServer, `≥ ${DENSITY_TARGETS.callsPerCore}`]] as [string, number | null, string][]) : []),
    [byCpu === null ? `calls per core the CPU allows: ${starvedAll}` : `calls per core the CPU allows (${fed!.calls} calls, not starved)`, byCpu, `≥ ${DENSITY_TARGETS.callsPerCore}`],
    ['RSS per call (largest N), MB', rows.at(-1)?.rssPerCallMb ?? null, `≤ ${DENSITY_TARGETS.rssPerCallMb}`],
  ]);
  return res;
}

/**
 * The summary's figures, from the levels where neither hiwar nor its rig was starved (the per-level
 * lines say which): a starved level's late agent frames say the machine was busy, and its CPU
 * share how little it was given, not what the calls need. `ok`: the largest such level with no
 * late agent frame up to it (`okServer`: not counting those a stalled caller read), null when
 * every level was starved; `byCpu`: what the CPU allows, 100 % of a core over the CPU per call
 * at the largest such level.
 */
export function densitySummary<R extends { calls: number } & Record<string, number | null>>(
  rows: R[],
  conditions: Pick<Conditions, 'starved' | 'rig'>[],
): { ok: number | null; okServer: number | null; fed: R | undefined; byCpu: number | null } {
  const fedRows = rows.filter((_, i) => !conditions[i]!.starved && !conditions[i]!.rig?.starved);
  if (!fedRows.length) return { ok: null, okServer: null, fed: undefined, byCpu: null };
  const fed = fedRows.at(-1)!;
  return {
    ok: largestClean(fedRows, (r) => r.lateAgentFrames!).best?.calls ?? 0,
    okServer: largestClean(fedRows, (r) => r.lateAgentFrames! - (r.lateAgentCallerStalled ?? 0)).best?.calls ?? 0,
    fed,
    byCpu: fed.cpuPct ? Math.floor((100 * fed.calls) / fed.cpuPct) : null,
  };
}

/** Read and write system calls of this process so far (Linux `/proc/self/io`), or undefined. */
function syscalls(): { reads: number; writes: number } | undefined {
  try {
    const io = readFileSync('/proc/self/io', 'utf8');
    const field = (k: string) => Number(new RegExp(`^${k}: (\\d+)`, 'm').exec(io)?.[1]);
    const reads = field('syscr');
    const writes = field('syscw');
    return Number.isFinite(reads) && Number.isFinite(writes) ? { reads, writes } : undefined;
  } catch {
    return undefined;
  }
}

/** RSS, and the heap plus memory outside it (buffers), after a full collection where available. */
function memory(): { rss: number; heap: number } {
  gc?.();
  const m = process.memoryUsage();
  return { rss: m.rss, heap: m.heapUsed + m.external };
}

interface Counters {
  lateCaller: number;
  callerLateSent: number;
  callersCpuUs: number;
  callersLoopP99Ms: number;
  callersLoopMaxMs: number;
  /** The callers' burst lag of the window (bench/telephony-callers.ts), p50 and p99. */
  callersBurst: [number, number];
  lateAgentStalled: number;
  callerFrames: number;
  lateAgent: number;
  /** Local only: late agent frames that came after a gap inside a reply. */
  underruns: number;
  agentFrames: number;
  turns: number;
}

/**
 * Totals so far. Local: caller frames late on the shared frame clock, agent frames late at the
 * paced sink. Twilio: caller frames late on arrival at the session (against the capture time
 * the caller sent), agent frames late at the caller's playout (a gap mid-reply).
 */
async function counters(frames: FrameClock, calls: RunningCall[], rig: TelephonyRig | undefined): Promise<Counters> {
  if (rig) {
    const s = await rig.stats();
    return { lateCaller: rig.arrivals.late, callerLateSent: s.lateTicks, callersCpuUs: s.cpuUs, callersLoopP99Ms: s.loopP99Ms, callersLoopMaxMs: s.loopMaxMs, callersBurst: [s.burstLagP50Ms, s.burstLagP99Ms], lateAgentStalled: s.lateAgentWhileStalled, callerFrames: rig.arrivals.frames, lateAgent: s.lateAgentFrames, underruns: 0, agentFrames: s.agentFrames, turns: s.answeredTurns };
  }
  return {
    lateCaller: frames.lateFrames,
    callerLateSent: 0,
    callersCpuUs: 0,
    callersLoopP99Ms: 0,
    callersLoopMaxMs: 0,
    callersBurst: [0, 0],
    lateAgentStalled: 0,
    callerFrames: frames.frames,
    lateAgent: calls.reduce((s, c) => s + c.caller.lateAgentFrames, 0),
    underruns: calls.reduce((s, c) => s + c.caller.underruns, 0),
    agentFrames: calls.reduce((s, c) => s + c.caller.agentFrames, 0),
    turns: calls.reduce((s, c) => s + c.caller.turns.filter((t) => t.firstAgentAudio !== undefined).length, 0),
  };
}

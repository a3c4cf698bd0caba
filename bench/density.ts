/**
 * How many calls one process holds: N concurrent calls (caller audio at real time in 20 ms
 * frames, agent audio paced, a turn every few seconds), for N = 25, 50, 100, 150, 200…
 * Per N: process CPU, event-loop delay p99, late caller and agent frames (> 20 ms past due),
 * RSS per call. The answer is the largest N with zero late agent frames (one process = one core).
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnFakeService } from './fake-service.ts';
import { FrameClock, benchOptions, round, startCall, table, type BenchArgs, type RunningCall } from './harness.ts';
import { telephonyRig, type TelephonyRig } from './telephony-density.ts';

export const DENSITY_TARGETS = { callsPerCore: 100, rssPerCallMb: 10 };

const gc = (globalThis as { gc?: () => void }).gc;

/**
 * `npm run bench -- density [--quick] [N …] [transport=local|twilio] [uplink=ms]`: `local`
 * drives each session through an in-process transport (hiwar's pipeline alone); `twilio` runs
 * `hiwar serve`'s server in this process and the callers as Twilio Media Streams over real
 * WebSockets from another process (bench/telephony-density.ts).
 */
export async function density({ quick, rest }: BenchArgs): Promise<Record<string, unknown>> {
  const { numbers, named, agent: agentOpts } = benchOptions(rest);
  const levels = numbers.length ? numbers : quick ? [10, 25] : [25, 50, 100, 150, 200];
  const transport = named.transport ?? 'local';
  if (transport !== 'local' && transport !== 'twilio') throw new Error(`transport must be local or twilio, not ${transport}`);
  const seconds = quick ? 8 : 20;
  const fake = await spawnFakeService({ sttMs: 200, llmMs: 200, ttsMs: 100 });
  const rig = transport === 'twilio' ? await telephonyRig(fake, agentOpts) : undefined;
  const rows: Record<string, number | null>[] = [];
  try {
    for (const n of levels) {
      await fake.reset();
      gc?.();
      const rss0 = process.memoryUsage().rss;
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
      const loop = monitorEventLoopDelay({ resolution: 10 });
      loop.enable();
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      await sleep(seconds * 1000);
      const wall = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      loop.disable();
      const rss = process.memoryUsage().rss;
      const after = await counters(frames, calls, rig);
      if (rig) await rig.stop();
      else {
        for (const c of calls) c.caller.hangUp();
        await Promise.all(calls.map((c) => c.done));
      }
      rows.push({
        calls: n,
        cpuPct: round(((cpu.user + cpu.system) / 1000 / wall) * 100),
        loopDelayP99Ms: round(loop.percentile(99) / 1e6),
        lateCallerFrames: after.lateCaller - before.lateCaller,
        callerFrames: after.callerFrames - before.callerFrames,
        lateAgentFrames: after.lateAgent - before.lateAgent,
        agentFrames: after.agentFrames - before.agentFrames,
        answeredTurns: after.turns - before.turns,
        rssPerCallMb: round((rss - rss0) / n / 2 ** 20, 2),
      });
      console.error(`density: ${JSON.stringify(rows.at(-1))}`);
      await sleep(500);
    }
  } finally {
    await rig?.close();
    await fake.close();
  }
  const ok = rows.filter((r) => r.lateAgentFrames === 0).map((r) => r.calls!);
  // What the CPU alone allows (100 % of a core / CPU per call at the largest N): on a machine
  // shared with other work, late frames come from the scheduler starving the process first.
  const last = rows.at(-1);
  const byCpu = last?.cpuPct ? Math.floor((100 * last.calls!) / last.cpuPct) : null;
  const res = { bench: 'density', transport, uplinkFrameMs: agentOpts.uplinkFrameMs ?? null, quick, seconds, levels: rows, maxCallsPerCoreNoLateAgentFrames: ok.length ? Math.max(...ok) : 0, callsPerCoreByCpu: byCpu, targets: DENSITY_TARGETS };
  const where = transport === 'twilio' ? 'hiwar serve + Twilio Media Streams over WebSocket, callers in another process' : 'local transport';
  console.log(`\ndensity (${where}): ${seconds} s per level, fake service in another process (caller frames late / total, agent frames late / total)`);
  console.log('calls   cpu %   loop p99 ms   late caller      late agent       rss/call MB');
  for (const r of rows) {
    console.log(
      `${String(r.calls).padStart(5)}  ${String(r.cpuPct).padStart(6)}  ${String(r.loopDelayP99Ms).padStart(11)}   ${`${r.lateCallerFrames}/${r.callerFrames}`.padStart(13)}  ${`${r.lateAgentFrames}/${r.agentFrames}`.padStart(13)}  ${String(r.rssPerCallMb).padStart(14)}`,
    );
  }
  table('density: summary', [
    ['calls per core, zero late agent frames', res.maxCallsPerCoreNoLateAgentFrames, `≥ ${DENSITY_TARGETS.callsPerCore}`],
    ['calls per core the CPU allows (largest N)', byCpu, `≥ ${DENSITY_TARGETS.callsPerCore}`],
    ['RSS per call (largest N), MB', rows.at(-1)?.rssPerCallMb ?? null, `≤ ${DENSITY_TARGETS.rssPerCallMb}`],
  ]);
  return res;
}

interface Counters {
  lateCaller: number;
  callerFrames: number;
  lateAgent: number;
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
    return { lateCaller: rig.arrivals.late, callerFrames: rig.arrivals.frames, lateAgent: s.lateAgentFrames, agentFrames: s.agentFrames, turns: s.answeredTurns };
  }
  return {
    lateCaller: frames.lateFrames,
    callerFrames: frames.frames,
    lateAgent: calls.reduce((s, c) => s + c.caller.lateAgentFrames, 0),
    agentFrames: calls.reduce((s, c) => s + c.caller.agentFrames, 0),
    turns: calls.reduce((s, c) => s + c.caller.turns.filter((t) => t.firstAgentAudio !== undefined).length, 0),
  };
}

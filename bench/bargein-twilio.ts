/**
 * The barge-in bench over the Twilio route (bench/bargein.ts): `hiwar serve`'s server in this
 * process, Twilio Media Streams callers in another (bench/telephony-callers.ts). `seconds` are
 * measured from the moment every caller connected, in the process's first calls (cold), as ever.
 *
 * With `warmup=SECONDS` that round comes first and is reported beside (cold), then the callers
 * hang up, the same number call again and the headline is that second round's (warm): to see
 * what a process that has served calls does. Each round's figures (bench/barge-figures.ts),
 * stages (bench/bargein-stages.ts) and CPU are its own, and each is also split at its first 10 s
 * (the calls' first turns, which start together: docs/performance.md, "The barge-in tail at 100
 * calls"); `spread=SECONDS` spreads the callers' first speech over that many seconds, where
 * otherwise every caller first speaks 300 ms after connecting.
 * `trace=FILE` writes every barge-in of the run, one JSON line each, with its round.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { ENERGY_VAD_DEFAULTS } from '../src/pipeline/energy-vad.ts';
import { conditions, cpuUsOf, spanLine, type SpanConditions } from './conditions.ts';
import { spawnFakeService, type FakeServiceProcess } from './fake-service.ts';
import { round, table, type BenchAgentOptions } from './harness.ts';
import { traceLines, wireFigures } from './barge-figures.ts';
import { BargeStageRecorder, stageRows, type BargeStages } from './bargein-stages.ts';
import { telephonyRig, type TelephonyRig } from './telephony-density.ts';

export const BARGEIN_TWILIO_TARGET = { speechToLastAudioOnWireP99: 30, atCalls: 100 };

interface Round {
  seconds: number;
  conditions: SpanConditions;
  callerFramesSentLate: number;
  bargeIns: number;
  notCleared: number;
  wire: ReturnType<typeof wireFigures>;
  /** The figure during the reply over the barge-ins of the window's first `FIRST_S` seconds and after. */
  split: { first: ReturnType<typeof wireFigures>['duringReply']; rest: ReturnType<typeof wireFigures>['duringReply'] };
  lateAgentFrames: number;
  callerLoopP99Ms: number | null;
  /** hiwar's process CPU (ms per second of the window) in its first `firstS` seconds and after. */
  cpuMsPerS: { first: number | null; rest: number | null; firstS: number };
  /** The fake service's CPU over the window, ms per second (its /proc figures: 10 ms ticks). */
  fakeCpuMsPerS: number | null;
  stages: BargeStages;
}

/** A round's first seconds: its calls' first turns, which start together (docs/performance.md). */
const FIRST_S = 10;
const cpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

/** One round: `calls` callers connect, `seconds` are measured, the callers hang up. */
async function measureRound(
  rig: TelephonyRig,
  fake: FakeServiceProcess,
  stamps: BargeStageRecorder,
  o: { calls: number; prefix: string; name: 'cold' | 'warm'; seconds: number; vad: 'service' | 'energy'; trace?: string },
): Promise<Round> {
  await rig.start(o.calls, o.prefix);
  // The window: every caller connected. The rig (callers, fake) has its own run-queue wait.
  const conds = conditions([fake.pid, ...rig.rigPids()]);
  const st0 = await rig.stats();
  stamps.start();
  // hiwar's CPU per second in the round's first seconds and after (CPU time: the load moves it only through the work a starved rig sends).
  const cpu0 = cpuMs();
  // The fake's CPU too: one process for the whole run, so warm in a warm round (the callers' process is new each round).
  const fake0 = cpuUsOf([fake.pid]);
  const splitAt = performance.timeOrigin + performance.now() + FIRST_S * 1000;
  const firstS = Math.min(FIRST_S, o.seconds);
  await new Promise((r) => setTimeout(r, firstS * 1000));
  const cpu1 = cpuMs();
  await new Promise((r) => setTimeout(r, (o.seconds - firstS) * 1000));
  const cpu2 = cpuMs();
  const fake2 = cpuUsOf([fake.pid]);
  const st = await rig.stats();
  const windowConds = conds.end();
  stamps.stop();
  await rig.stop();
  const barges = st.bargeIns.filter((b) => b.call.startsWith(`${o.prefix}-`));
  const serverOf = (b: (typeof barges)[number]) => stamps.interruptOf(b);
  if (o.trace) appendFileSync(o.trace, traceLines(barges, serverOf, { round: o.name }));
  return {
    seconds: o.seconds,
    conditions: windowConds,
    callerFramesSentLate: st.lateTicks - st0.lateTicks,
    bargeIns: barges.length,
    notCleared: st.bargeInsNotCleared,
    wire: wireFigures(barges, serverOf),
    split: {
      first: wireFigures(barges.filter((b) => b.speechStart < splitAt), serverOf).duringReply,
      rest: wireFigures(barges.filter((b) => b.speechStart >= splitAt), serverOf).duringReply,
    },
    lateAgentFrames: st.lateAgentFrames,
    callerLoopP99Ms: round(st.loopP99Ms, 1),
    cpuMsPerS: { first: round((cpu1 - cpu0) / firstS, 1), rest: o.seconds > firstS ? round((cpu2 - cpu1) / (o.seconds - firstS), 1) : null, firstS },
    fakeCpuMsPerS: fake0 === undefined || fake2 === undefined ? null : round((fake2 - fake0) / 1000 / o.seconds, 1),
    stages: stamps.explain(barges, await fake.holds(), fake.clockOffset, o.vad),
  };
}

/** Through the Twilio route: speech start → the last agent audio on the caller's wire; with `warmup`, a cold round first. */
export async function bargeinTwilio(calls: number, seconds: number, warmup: number, spread: number, agent: BenchAgentOptions, trace: string | undefined): Promise<Record<string, unknown>> {
  const fake = await spawnFakeService({ sttMs: 200, llmMs: 200, ttsMs: 100, audioMsPerChar: 60 });
  // Read by the caller process the rig forks (bench/telephony-callers.ts).
  process.env.HIWAR_BENCH_BARGE_IN = '300,1500';
  process.env.HIWAR_BENCH_FIRST_SPEECH_MS = String(spread * 1000);
  const stamps = new BargeStageRecorder();
  const rig = await telephonyRig(fake, agent, 4, undefined, stamps);
  const vad = agent.localVad ?? 'service';
  if (trace) writeFileSync(trace, '');
  try {
    const cold = warmup > 0 ? await measureRound(rig, fake, stamps, { calls, prefix: 'tw', name: 'cold', seconds: warmup, vad, trace }) : undefined;
    const main = await measureRound(rig, fake, stamps, { calls, prefix: 'tb', name: cold ? 'warm' : 'cold', seconds, vad, trace });
    const res = {
      transport: 'twilio',
      vad,
      vadMinSpeechMs: agent.localVad ? (agent.localVadMinSpeechMs ?? ENERGY_VAD_DEFAULTS.minSpeechMs) : null,
      /** `warm`: the figures below are of a process that served a round of the same calls before; `cold`: of its first calls. */
      process: cold ? 'warm' : 'cold',
      seconds,
      /** The callers' first speech spread over this many seconds (0: all 300 ms after connecting, as before). */
      spread,
      conditions: main.conditions,
      /** Caller frames the callers' process itself sent over 20 ms late in the window: the rig's lateness. */
      callerFramesSentLate: main.callerFramesSentLate,
      bargeIns: main.bargeIns,
      notCleared: main.notCleared,
      ...main.wire,
      lateAgentFrames: main.lateAgentFrames,
      callerLoopP99Ms: main.callerLoopP99Ms,
      cpuMsPerS: main.cpuMsPerS,
      fakeCpuMsPerS: main.fakeCpuMsPerS,
      firstSeconds: main.split,
      stages: main.stages,
      ...(cold ? { cold: { seconds: warmup, conditions: cold.conditions, bargeIns: cold.bargeIns, notCleared: cold.notCleared, ...cold.wire, cpuMsPerS: cold.cpuMsPerS, fakeCpuMsPerS: cold.fakeCpuMsPerS, firstSeconds: cold.split, stages: cold.stages } } : {}),
    };
    printRound(main, calls, vad, res.vadMinSpeechMs, cold, spread);
    return res;
  } finally {
    delete process.env.HIWAR_BENCH_BARGE_IN;
    delete process.env.HIWAR_BENCH_FIRST_SPEECH_MS;
    await rig.close();
    await fake.close();
  }
}

const f = (p: { p50: number | null; p95: number | null; p99: number | null }) => `${p.p50} / ${p.p95} / ${p.p99}`;

function printRound(r: Round, calls: number, vad: string, minSpeechMs: number | null, cold: Round | undefined, spread: number): void {
  const w = r.wire;
  const which = cold ? `a warm process (after a ${cold.seconds} s round of the same calls)` : 'a cold process (its first calls)';
  const coldRows: [string, string | number | null, string][] = cold
    ? [
        [`the same in the cold round (the process's first calls, ${cold.seconds} s, measured as before), ${cold.wire.duringReply.n} barge-ins`, f(cold.wire.duringReply.speechToLastAudioOnWireMs), `load ${cold.conditions.loadBefore} → ${cold.conditions.loadAfter}, run-queue wait ${cold.conditions.runQueueWaitMs ?? '–'} ms`],
        ['… the cold round to the server\'s last write', f(cold.wire.duringReply.speechToLastWriteMs), 'for comparison'],
      ]
    : [];
  table(`bargein over the Twilio route (speech start from ${vad === 'energy' ? `hiwar's energy detector after ${minSpeechMs} ms of loud audio, and the service` : "the service's SpeechStarted"}): ${r.bargeIns} barge-ins in ${calls} concurrent calls over ${r.seconds} s in ${which}, ${spread ? `their first speech spread over ${spread} s` : 'all first speaking 300 ms after connecting'} (p50 / p95 / p99, ms); ${spanLine(r.conditions)}`, [
    [`speech start → last agent audio on the wire: ${w.duringReply.n} barge-ins while agent audio was still to be sent`, f(w.duringReply.speechToLastAudioOnWireMs), `p99 ≤ ${BARGEIN_TWILIO_TARGET.speechToLastAudioOnWireP99} at ${BARGEIN_TWILIO_TARGET.atCalls} calls (includes the first speech frame's 20 ms capture)`],
    [`… the same barge-ins to the server's last agent media write before the clear (${w.duringReply.speechToLastWriteMs.n} stamped): the callers' own read delay out`, f(w.duringReply.speechToLastWriteMs), 'the line above, less what the callers\' loop added to its reads'],
    [`… the same, barge-ins in the window's first ${r.cpuMsPerS.firstS} s (${r.split.first.n}) | after (${r.split.rest.n})`, `${f(r.split.first.speechToLastAudioOnWireMs)} | ${f(r.split.rest.speechToLastAudioOnWireMs)}`, spread ? 'the calls\' first turns spread' : 'the calls\' first turns start together'],
    ...coldRows,
    ['… of them, no agent audio reached the caller after it spoke', w.duringReply.noAudioAfterSpeech, 'the server had audio left but sent none in time'],
    [`speech start → the caller reads the clear: ${w.afterLastByte.n} barge-ins after the reply's last byte had left`, f(w.afterLastByte.speechToClearMs), 'nothing left on the wire; the clear empties the platform\'s buffer'],
    ['barge-ins sorted by the caller\'s reads alone (no server stamp matched)', w.callerOnly, '0'],
    [`the figure of before (agent audio counted from the first speech frame leaving), all ${r.bargeIns}: read 0 for ${w.legacy.readZero}, ${w.legacy.readZeroWithAudioAfterSpeech} of them with agent audio after speech start`, f(w.legacy.speechToLastAudioOnWireMs), 'for comparison with figures taken before'],
    ['barge-ins without a clear within 2 s', r.notCleared, '0'],
    [`hiwar's CPU, ms per second: the first ${r.cpuMsPerS.firstS} s / the rest${cold ? ' (the cold round beside)' : ''}`, `${r.cpuMsPerS.first} / ${r.cpuMsPerS.rest ?? '–'}${cold ? ` (cold ${cold.cpuMsPerS.first} / ${cold.cpuMsPerS.rest ?? '–'})` : ''}`, 'CPU time, so compare within a run: a starved rig sends less work'],
    [`the fake service's CPU, ms per second${cold ? ' (the cold round beside)' : ''}`, `${r.fakeCpuMsPerS ?? '–'}${cold ? ` (cold ${cold.fakeCpuMsPerS ?? '–'})` : ''}`, 'the rig: what hiwar shares the cores with'],
    ['caller process loop delay p99, ms', r.callerLoopP99Ms, 'the far end: a stalled caller reads late'],
    ['caller frames the callers sent > 20 ms late', r.callerFramesSentLate, 'the far end: the rig\'s own lateness, not hiwar\'s'],
  ]);
  const s = r.stages;
  table(`where the milliseconds go (${s.matched} barge-ins matched to the server's and the fake's stamps, ${s.unmatched} not); server loop delay p50 / p99 / max ${s.serverLoopDelayMs.p50} / ${s.serverLoopDelayMs.p99} / ${s.serverLoopDelayMs.max} ms; server collections ${s.serverGc.n} (${s.serverGc.scavenges} scavenges, ${s.serverGc.ms} ms, longest ${s.serverGc.maxMs} ms)`, [
    ['stage (ms)', 'p50 / p95 / p99', 'slowest 5 %: mean'],
    ...stageRows(s),
  ]);
}

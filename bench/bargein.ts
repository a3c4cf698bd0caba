/**
 * Barge-in: callers speak at a random point of each reply. Measured per barge-in, two ways:
 * - local transport (in this process): from the deciding event (the fake sending SpeechStarted,
 *   so socket transit and parsing count) to the session calling the transport's `interrupt()`,
 *   and the agent audio still handed to the line after that while the caller speaks;
 * - Twilio route (`hiwar serve`'s server here, Twilio Media Streams callers in another process,
 *   bench/telephony-callers.ts), two figures, each with the number of barge-ins it covers
 *   (bench/barge-wire.ts): for barge-ins while agent audio was still to be sent, the caller's
 *   speech start (the capture start of its first speech frame) → the last agent media message
 *   that reached the caller's socket before the server's `clear` (what the caller's platform
 *   received of the reply after the caller spoke, its own playout buffer aside); for barge-ins
 *   after the reply's last byte had left, speech start → the caller reads the `clear`.
 *   Below them, where each barge-in's milliseconds went, stage by stage (bench/bargein-stages.ts),
 *   with the server's loop delay and collections over the window. `trace=FILE` writes every
 *   barge-in's moments, one JSON line each.
 *
 * Usage: npm run bench -- bargein [--quick] [calls=100] [transport=both|local|twilio] [seconds=30] [vad=service|energy] [vadMs=40] [pin=auto|off|1/0] [trace=FILE]
 * (`pin=`, bench/pin.ts: hiwar, in this process, on its own core; the callers' process and the
 * fake on the rest; `auto` by default where the machine has two cores and taskset.)
 * (`vad=energy`: the agent's `interruption.localVad: 'energy'`, speech start heard in hiwar's
 * process from the caller's frame levels, after `vadMs` of loud audio (its `minSpeechMs`, 40 by
 * default: two frames, so never under 40 ms here); `service`, the default: the service's
 * SpeechStarted, which the fake sends on the first loud frame.)
 */
import { performance } from 'node:perf_hooks';
import { spawnFakeService } from './fake-service.ts';
import { benchOptions, FrameClock, pcts, round, startCall, table, type BenchAgentOptions, type BenchArgs } from './harness.ts';
import { conditions, spanLine } from './conditions.ts';
import { pinBench } from './pin.ts';
import { ENERGY_VAD_DEFAULTS } from '../src/pipeline/energy-vad.ts';
import { telephonyRig } from './telephony-density.ts';
import { BargeStageRecorder, stageRows } from './bargein-stages.ts';
import { wireFigures, writeTrace } from './barge-figures.ts';

export const BARGEIN_TARGETS = { decisionToInterruptP99: 20, speechToLastAudioOnWireP99: 30, atCalls: 100 };

export async function bargein({ quick, rest }: BenchArgs): Promise<Record<string, unknown>> {
  const { numbers, named, agent } = benchOptions(rest);
  const calls = numbers[0] ?? (quick ? 10 : 100);
  const transport = named.transport ?? 'both';
  if (!['both', 'local', 'twilio'].includes(transport)) throw new Error(`transport= is both, local or twilio, not ${transport}`);
  // hiwar runs in this process (both transports): it takes the server's CPUs, the fake and the callers the rig's.
  const pin = pinBench(named.pin, { self: 'server' });
  const local = transport !== 'twilio' ? await bargeinLocal(calls, quick) : undefined;
  const twilio = transport !== 'local' ? await bargeinTwilio(calls, Number(named.seconds ?? (quick ? 15 : 30)), agent, named.trace) : undefined;
  return { bench: 'bargein', quick, calls, pin: { pinned: pin.pinned, server: pin.server, rig: pin.rig }, ...(local ?? {}), ...(twilio ? { twilio } : {}), targets: BARGEIN_TARGETS };
}

/** Through the Twilio route: speech start → the last agent audio on the caller's wire. */
async function bargeinTwilio(calls: number, seconds: number, agent: BenchAgentOptions, trace: string | undefined): Promise<Record<string, unknown>> {
  const fake = await spawnFakeService({ sttMs: 200, llmMs: 200, ttsMs: 100, audioMsPerChar: 60 });
  // Read by the caller process the rig forks (bench/telephony-callers.ts).
  process.env.HIWAR_BENCH_BARGE_IN = '300,1500';
  const stamps = new BargeStageRecorder();
  const rig = await telephonyRig(fake, agent, 4, undefined, stamps);
  try {
    await rig.start(calls, 'tb');
    // The window: every caller connected. The rig (callers, fake) has its own run-queue wait.
    const conds = conditions([fake.pid, ...rig.rigPids()]);
    const st0 = await rig.stats();
    stamps.start();
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const st = await rig.stats();
    const windowConds = conds.end();
    stamps.stop();
    await rig.stop();
    const vad = agent.localVad ?? 'service';
    const stages = stamps.explain(st.bargeIns, await fake.holds(), fake.clockOffset, vad);
    const wire = wireFigures(st.bargeIns, (b) => stamps.interruptOf(b));
    if (trace) writeTrace(trace, st.bargeIns, (b) => stamps.interruptOf(b));
    const res = {
      transport: 'twilio',
      vad,
      vadMinSpeechMs: agent.localVad ? (agent.localVadMinSpeechMs ?? ENERGY_VAD_DEFAULTS.minSpeechMs) : null,
      seconds,
      conditions: windowConds,
      /** Caller frames the callers' process itself sent over 20 ms late in the window: the rig's lateness. */
      callerFramesSentLate: st.lateTicks - st0.lateTicks,
      bargeIns: st.bargeIns.length,
      notCleared: st.bargeInsNotCleared,
      ...wire,
      lateAgentFrames: st.lateAgentFrames,
      callerLoopP99Ms: round(st.loopP99Ms, 1),
      stages,
    };
    const f = (p: { p50: number | null; p95: number | null; p99: number | null }) => `${p.p50} / ${p.p95} / ${p.p99}`;
    table(`bargein over the Twilio route (speech start from ${res.vad === 'energy' ? `hiwar's energy detector after ${res.vadMinSpeechMs} ms of loud audio, and the service` : "the service's SpeechStarted"}): ${res.bargeIns} barge-ins in ${calls} concurrent calls over ${seconds} s (p50 / p95 / p99, ms); ${spanLine(res.conditions)}`, [
      [`speech start → last agent audio on the wire: ${wire.duringReply.n} barge-ins while agent audio was still to be sent`, f(wire.duringReply.speechToLastAudioOnWireMs), `p99 ≤ ${BARGEIN_TARGETS.speechToLastAudioOnWireP99} at ${BARGEIN_TARGETS.atCalls} calls (includes the first speech frame's 20 ms capture)`],
      [`… the same barge-ins to the server's last agent media write before the clear (${wire.duringReply.speechToLastWriteMs.n} stamped): the callers' own read delay out`, f(wire.duringReply.speechToLastWriteMs), 'the line above, less what the callers\' loop added to its reads'],
      ['… of them, no agent audio reached the caller after it spoke', wire.duringReply.noAudioAfterSpeech, 'the server had audio left but sent none in time'],
      [`speech start → the caller reads the clear: ${wire.afterLastByte.n} barge-ins after the reply's last byte had left`, f(wire.afterLastByte.speechToClearMs), 'nothing left on the wire; the clear empties the platform\'s buffer'],
      ['barge-ins sorted by the caller\'s reads alone (no server stamp matched)', wire.callerOnly, '0'],
      [`the figure of before (agent audio counted from the first speech frame leaving), all ${res.bargeIns}: read 0 for ${wire.legacy.readZero}, ${wire.legacy.readZeroWithAudioAfterSpeech} of them with agent audio after speech start`, f(wire.legacy.speechToLastAudioOnWireMs), 'for comparison with figures taken before'],
      ['barge-ins without a clear within 2 s', res.notCleared, '0'],
      ['caller process loop delay p99, ms', res.callerLoopP99Ms, 'the far end: a stalled caller reads late'],
      ['caller frames the callers sent > 20 ms late', res.callerFramesSentLate, 'the far end: the rig\'s own lateness, not hiwar\'s'],
    ]);
    table(`where the milliseconds go (${stages.matched} barge-ins matched to the server's and the fake's stamps, ${stages.unmatched} not); server loop delay p50 / p99 / max ${stages.serverLoopDelayMs.p50} / ${stages.serverLoopDelayMs.p99} / ${stages.serverLoopDelayMs.max} ms; server collections ${stages.serverGc.n} (${stages.serverGc.scavenges} scavenges, ${stages.serverGc.ms} ms, longest ${stages.serverGc.maxMs} ms)`, [
      ['stage (ms)', 'p50 / p95 / p99', 'slowest 5 %: mean'],
      ...stageRows(stages),
    ]);
    return res;
  } finally {
    delete process.env.HIWAR_BENCH_BARGE_IN;
    await rig.close();
    await fake.close();
  }
}

/** The local transport: SpeechStarted sent → the session's interrupt(). */
async function bargeinLocal(calls: number, quick: boolean): Promise<Record<string, unknown>> {
  const turns = quick ? 4 : 6;
  // Longer replies (about 1.8 s) so there is time to barge into.
  const fake = await spawnFakeService({ sttMs: 200, llmMs: 200, ttsMs: 100, audioMsPerChar: 60 });
  try {
    const conds = conditions([fake.pid]);
    const frames = new FrameClock();
    const running = Array.from({ length: calls }, (_, i) =>
      startCall(fake, `barge${i}`, { turns, speechMs: 400, gapMs: 300, bargeIn: { minMs: 100, maxMs: 1200 } }, frames),
    );
    await Promise.all(running.map((c) => c.done));
    const holds = await fake.holds();
    const toInterrupt: number[] = [];
    const after: number[] = [];
    let missed = 0;
    running.forEach((c, i) => {
      const starts = (holds[`barge${i}`] ?? []).filter((h) => h.kind === 'speech').map((h) => h.at - fake.clockOffset);
      for (const b of c.caller.barges) {
        const spokeAt = performance.timeOrigin + b.speechStart;
        const sent = starts.find((t) => t >= spokeAt - 1);
        if (b.interrupted === undefined || sent === undefined) {
          missed++;
          continue;
        }
        toInterrupt.push(performance.timeOrigin + b.interrupted - sent);
        after.push(b.msAfterInterrupt);
      }
    });
    const res = {
      conditions: conds.end(),
      bargeIns: toInterrupt.length,
      notInterrupted: missed,
      decisionToInterruptMs: pcts(toInterrupt),
      agentAudioAfterInterruptMs: pcts(after),
      lateCallerFrames: frames.lateFrames,
      lateAgentFrames: running.reduce((n, c) => n + c.caller.lateAgentFrames, 0),
    };
    const f = (p: { p50: number | null; p95: number | null; p99: number | null }) => `${p.p50} / ${p.p95} / ${p.p99}`;
    table(`bargein: ${res.bargeIns} barge-ins in ${calls} concurrent calls (p50 / p95 / p99, ms); ${spanLine(res.conditions)}`, [
      ['SpeechStarted sent → interrupt()', f(res.decisionToInterruptMs), `p99 ≤ ${BARGEIN_TARGETS.decisionToInterruptP99} at ${BARGEIN_TARGETS.atCalls} calls`],
      ['agent audio after interrupt()', f(res.agentAudioAfterInterruptMs), 'none'],
      ['barge-ins not interrupted', missed, '0'],
      ['late caller / agent frames', `${res.lateCallerFrames} / ${res.lateAgentFrames}`, '0 / 0'],
    ]);
    return res;
  } finally {
    await fake.close();
  }
}

/**
 * Barge-in: callers speak at a random point of each reply. Measured per barge-in, two ways:
 * - local transport (in this process): from the deciding event (the fake sending SpeechStarted,
 *   so socket transit and parsing count) to the session calling the transport's `interrupt()`,
 *   and the agent audio still handed to the line after that while the caller speaks;
 * - Twilio route (bench/bargein-twilio.ts: `hiwar serve`'s server here, Twilio Media Streams
 *   callers in another process, bench/telephony-callers.ts; with `warmup=SECONDS`, a cold round
 *   of the process's first calls first, then the measured warm round), two figures, each with the number of barge-ins it covers
 *   (bench/barge-wire.ts): for barge-ins while agent audio was still to be sent, the caller's
 *   speech start (the capture start of its first speech frame) → the last agent media message
 *   that reached the caller's socket before the server's `clear` (what the caller's platform
 *   received of the reply after the caller spoke, its own playout buffer aside); for barge-ins
 *   after the reply's last byte had left, speech start → the caller reads the `clear`.
 *   Below them, where each barge-in's milliseconds went, stage by stage (bench/bargein-stages.ts),
 *   with the server's loop delay and collections over the window. `trace=FILE` writes every
 *   barge-in's moments, one JSON line each, with its round (cold or warm).
 *
 * Usage: npm run bench -- bargein [--quick] [calls=100] [transport=both|local|twilio] [seconds=30] [warmup=0|SECONDS] [spread=0|SECONDS] [vad=service|energy] [vadMs=40] [pin=auto|off|1/0] [trace=FILE]
 * (`pin=`, bench/pin.ts: hiwar, in this process, on its own core; the callers' process and the
 * fake on the rest; `auto` by default where the machine has two cores and taskset.)
 * (`vad=energy`: the agent's `interruption.localVad: 'energy'`, speech start heard in hiwar's
 * process from the caller's frame levels, after `vadMs` of loud audio (its `minSpeechMs`, 40 by
 * default: two frames, so never under 40 ms here); `service`, the default: the service's
 * SpeechStarted, which the fake sends on the first loud frame.)
 */
import { performance } from 'node:perf_hooks';
import { spawnFakeService } from './fake-service.ts';
import { benchOptions, FrameClock, pcts, startCall, table, type BenchArgs } from './harness.ts';
import { conditions, spanLine } from './conditions.ts';
import { pinBench } from './pin.ts';
import { BARGEIN_TWILIO_TARGET, bargeinTwilio } from './bargein-twilio.ts';

export const BARGEIN_TARGETS = { decisionToInterruptP99: 20, ...BARGEIN_TWILIO_TARGET };

export async function bargein({ quick, rest }: BenchArgs): Promise<Record<string, unknown>> {
  const { numbers, named, agent } = benchOptions(rest);
  const calls = numbers[0] ?? (quick ? 10 : 100);
  const transport = named.transport ?? 'both';
  if (!['both', 'local', 'twilio'].includes(transport)) throw new Error(`transport= is both, local or twilio, not ${transport}`);
  // hiwar runs in this process (both transports): it takes the server's CPUs, the fake and the callers the rig's.
  const pin = pinBench(named.pin, { self: 'server' });
  const local = transport !== 'twilio' ? await bargeinLocal(calls, quick) : undefined;
  const seconds = Number(named.seconds ?? (quick ? 15 : 30));
  // 0: the process's first calls alone, as ever; more: those first (reported beside), then the measured warm round.
  const warmup = Number(named.warmup ?? 0);
  if (!Number.isFinite(warmup) || warmup < 0) throw new Error(`warmup= is seconds (0 or more), not ${named.warmup}`);
  // 0: every caller first speaks 300 ms after connecting, as ever; more: their first speech spread over that many seconds.
  const spread = Number(named.spread ?? 0);
  if (!Number.isFinite(spread) || spread < 0) throw new Error(`spread= is seconds (0 or more), not ${named.spread}`);
  const twilio = transport !== 'local' ? await bargeinTwilio(calls, seconds, warmup, spread, agent, named.trace) : undefined;
  return { bench: 'bargein', quick, calls, pin: { pinned: pin.pinned, server: pin.server, rig: pin.rig }, ...(local ?? {}), ...(twilio ? { twilio } : {}), targets: BARGEIN_TARGETS };
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

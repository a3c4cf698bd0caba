/**
 * Barge-in: callers speak at a random point of each reply. Measured per barge-in: from the
 * deciding event (the fake sending SpeechStarted, so socket transit and parsing count) to the
 * session calling the transport's `interrupt()`, and the agent audio still handed to the line
 * after that while the caller speaks.
 */
import { performance } from 'node:perf_hooks';
import { spawnFakeService } from './fake-service.ts';
import { FrameClock, pcts, startCall, table, type BenchArgs } from './harness.ts';

export const BARGEIN_TARGETS = { decisionToInterruptP99: 20, atCalls: 100 };

export async function bargein({ quick, rest }: BenchArgs): Promise<Record<string, unknown>> {
  const calls = Number(rest[0] ?? (quick ? 10 : 100));
  const turns = quick ? 4 : 6;
  // Longer replies (about 1.8 s) so there is time to barge into.
  const fake = await spawnFakeService({ sttMs: 200, llmMs: 200, ttsMs: 100, audioMsPerChar: 60 });
  try {
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
      bench: 'bargein',
      quick,
      calls,
      bargeIns: toInterrupt.length,
      notInterrupted: missed,
      decisionToInterruptMs: pcts(toInterrupt),
      agentAudioAfterInterruptMs: pcts(after),
      lateCallerFrames: frames.lateFrames,
      lateAgentFrames: running.reduce((n, c) => n + c.caller.lateAgentFrames, 0),
      targets: BARGEIN_TARGETS,
    };
    const f = (p: { p50: number | null; p95: number | null; p99: number | null }) => `${p.p50} / ${p.p95} / ${p.p99}`;
    table(`bargein: ${res.bargeIns} barge-ins in ${calls} concurrent calls (p50 / p95 / p99, ms)`, [
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

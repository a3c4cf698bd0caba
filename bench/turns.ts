/**
 * `npm run bench -- turns [calls=3] [--quick]`: the Arabic turn policy in whole calls on the
 * embedded sandbox (or the real service with HIWAR_API_KEY), one call at a time, on the
 * stall-free clock at real speed. Prints, with and without the policy:
 * - for "كم رصيدي؟": when the reply starts after the caller's last word (voice to voice), the
 *   turn decision, and what ended the turn (`endOfTurnReason`);
 * - for a 10-digit number dictated in three groups with 800 ms pauses: how many turns it made.
 * Figures are wall-clock under the machine's load, printed beside them; no target is asserted.
 * No `pin=` (bench/pin.ts): the agent, the embedded sandbox and the callers run in this one
 * process on the stall-free clock, so there is no rig to put on other CPUs.
 */
import os from 'node:os';
import callCentre from '../agents/call-centre/index.ts';
import { connectService } from '../src/cli/connect.ts';
import type { Agent } from '../src/session/agent.ts';
import type { TurnMetrics } from '../src/session/events.ts';
import { TURN_DEFAULTS } from '../src/pipeline/turns.ts';
import { createLogger } from '../src/session/logger.ts';
import { scenarioSchema } from '../src/testing/scenario.ts';
import { simulateCall } from '../src/testing/simulate.ts';
import { SteadyScaledClock } from '../src/testing/steady-clock.ts';
import { benchOptions, percentile, round, table, type BenchArgs } from './harness.ts';
import { refusePin } from './pin.ts';

const QUESTION = [{ say: 'كم رصيدي؟' }];
const DICTATED = [
  { say: 'صفر خمسة صفر' },
  { say: 'تسعة ستة ثلاثة', continueAfterMs: 800 },
  { say: 'واحد اثنين ثلاثة أربعة', continueAfterMs: 800 },
];

type Client = Awaited<ReturnType<typeof connectService>>['client'];

async function oneCall(client: Client, steps: unknown[], agent: Partial<Agent>): Promise<{ users: number; metrics: TurnMetrics[] }> {
  const clock = new SteadyScaledClock(1);
  try {
    const { report } = await simulateCall({
      client, agent: { ...callCentre, ...agent }, scenario: scenarioSchema.parse({ steps }), clock, logger: createLogger('silent'),
    });
    return { users: report.turns.filter((t) => t.role === 'user').length, metrics: report.turns.flatMap((t) => (t.role === 'agent' && t.metrics ? [t.metrics] : [])) };
  } finally {
    clock.stop();
  }
}

/** Runs the two calls of each mode `calls` times: "with" is the default policy, "without" turns it off. */
export async function turns(args: BenchArgs): Promise<Record<string, unknown>> {
  const { numbers, named } = benchOptions(args.rest);
  refusePin(named.pin, 'turns', `each call runs in this one process (the agent, its caller and the embedded sandbox service; or the real service, elsewhere) on the stall-free clock, so there is no rig to put on other CPUs`);
  const calls = Number(named.calls ?? numbers[0] ?? (args.quick ? 1 : 3));
  if (!(Number.isInteger(calls) && calls > 0)) throw new Error('usage: npm run bench -- turns [calls=3] [--quick]');
  const service = await connectService(() => {});
  const loads: number[] = [];
  const modes: Record<string, Partial<Agent>> = {
    with: {},
    // Today's behaviour: the agent's own endpointing (600 ms), the service's end of speech.
    without: { turn: { policy: false } },
    // The same short endpointing as the policy uses, without the policy: what holding saves.
    'without, same endpointing': { turn: { policy: false }, stt: { ...callCentre.stt, endpointing: TURN_DEFAULTS.listenEndpointingMs } },
  };
  type Row = { v2v: number[]; decided: number[]; waits: number[]; reasons: string[]; dictatedTurns: number[] };
  const out: Record<string, Row> = {};
  try {
    for (const [mode, agent] of Object.entries(modes)) {
      const m: Row = { v2v: [], decided: [], waits: [], reasons: [], dictatedTurns: [] };
      out[mode] = m;
      for (let i = 0; i < calls; i++) {
        // Whole calls at real speed, two per mode and round: minutes in all, so each is announced.
        process.stderr.write(`turns: ${mode}, round ${i + 1} of ${calls} (2 whole calls at real speed)…\n`);
        loads.push(os.loadavg()[0]!);
        const q = await oneCall(service.client, QUESTION, agent);
        const first = q.metrics[0];
        if (first?.voiceToVoiceMs !== undefined) m.v2v.push(first.voiceToVoiceMs);
        // What the policy changes: the caller's last word → the turn decided (the final's wait, then the policy's).
        if (first?.endOfSpeechToFinalMs !== undefined) m.decided.push(first.endOfSpeechToFinalMs + (first.turnDecisionMs ?? 0));
        m.reasons.push(first?.endOfTurnReason ?? '–');
        m.waits.push(first?.endOfTurnWaitMs ?? 0);
        m.dictatedTurns.push((await oneCall(service.client, DICTATED, agent)).users);
      }
    }
  } finally {
    await service.close();
  }
  const med = (xs: number[]) => (xs.length ? round(percentile(xs, 50)) : null);
  const load = `load ${round(Math.min(...loads))}–${round(Math.max(...loads))} (1-min average), ${os.cpus().length} cores, ${calls} call(s) per mode, one at a time, ${service.sandbox ? 'sandbox' : 'service'}`;
  const saved = (med(out.without!.v2v) ?? NaN) - (med(out.with!.v2v) ?? NaN);
  const decidedSooner = (med(out.without!.decided) ?? NaN) - (med(out.with!.decided) ?? NaN);
  table(`"كم رصيدي؟" and a number dictated in three groups (${load})`, [
    ...Object.entries(out).flatMap(([mode, m]): [string, string | number | null, string][] => [
      [`${mode}: reply start (voice to voice, median ms)`, med(m.v2v), ''],
      [`${mode}: last word → turn decided (median ms)`, med(m.decided), ''],
      [`${mode}: end of turn (wait the policy added or saved, ms)`, `${[...new Set(m.reasons)].join(', ')} (${[...new Set(m.waits)].join(', ')})`, ''],
      [`${mode}: turns for the dictated number`, m.dictatedTurns.join(', '), mode === 'with' ? '1' : ''],
    ]),
    ['turn decided sooner with the policy (median ms)', round(decidedSooner), '≥ 300'],
    ['reply start sooner with the policy (median ms)', round(saved), '≥ 300'],
  ]);
  return { bench: 'turns', calls, load: round(Math.max(...loads)), modes: out, decidedSoonerMs: round(decidedSooner), replySoonerMs: round(saved) };
}

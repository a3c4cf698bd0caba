/**
 * Latency of whole calls: runs the demo scenario N times against the embedded sandbox (or the
 * real service with HIWAR_API_KEY) and prints the median of each per-turn figure.
 * Usage: npx tsx bench/call.ts [runs=2] [speed=1]
 */
import callCentre from '../agents/call-centre/index.ts';
import { connectService } from '../src/cli/connect.ts';
import { loadScenario } from '../src/testing/scenario.ts';
import { simulateCall } from '../src/testing/simulate.ts';
import { ScaledClock } from '../src/transport/clock.ts';
import { createLogger } from '../src/session/logger.ts';
import type { TurnMetrics } from '../src/session/events.ts';
import { conditions, spanLine } from './conditions.ts';

const runs = Number(process.argv[2] ?? 2);
const speed = Number(process.argv[3] ?? 1);
const scenario = await loadScenario(new URL('../agents/call-centre/scenario.json', import.meta.url).pathname);
const service = await connectService(() => {});
// The sandbox (espeak, its recognizer) shares the machine with the calls: the figures are the machine's too.
const conds = conditions();
const all: TurnMetrics[] = [];
for (let i = 0; i < runs; i++) {
  const { report } = await simulateCall({ client: service.client, agent: callCentre, scenario, clock: new ScaledClock(speed), logger: createLogger('silent') });
  for (const t of report.turns) if (t.metrics) all.push(t.metrics);
  console.log(`run ${i + 1}: ${report.turns.length} turns, ended "${report.ended}" after ${report.durationSeconds.toFixed(1)} s`);
}
const ran = conds.end();
await service.close();
const keys: (keyof TurnMetrics)[] = ['endOfSpeechToFinalMs', 'turnDecisionMs', 'llmFirstTokenMs', 'llmFirstSentenceMs', 'ttsFirstAudioMs', 'playoutStartMs', 'voiceToVoiceMs'];
const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`${all.length} agent turns at clock speed ${speed} (${service.sandbox ? 'sandbox' : 'service'}, model: scripted unless OPENAI_API_KEY); ${runs} run${runs > 1 ? 's' : ''}, the first cold; ${spanLine(ran)}`);
for (const k of keys) {
  const xs = all.map((m) => m[k]).filter((v): v is number => typeof v === 'number');
  console.log(`${k.padEnd(22)} median ${String(median(xs) ?? '–').padStart(5)} ms   max ${String(Math.max(...xs)).padStart(5)} ms`);
}

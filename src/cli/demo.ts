import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import callCentre from '../../agents/call-centre/index.ts';
import { ScaledClock } from '../transport/clock.ts';
import type { CallReport } from '../session/events.ts';
import { connectService } from './connect.ts';
import { loadScenario } from './scenario.ts';
import { simulateCall } from './simulate.ts';

const DEFAULT_SCENARIO = new URL('../../agents/call-centre/scenario.json', import.meta.url).pathname;

/** `hiwar demo`: a whole simulated call against the call-centre agent. */
export async function demoCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      scenario: { type: 'string', default: DEFAULT_SCENARIO },
      out: { type: 'string', default: 'out' },
      speed: { type: 'string', default: '1' },
      'model-ids': { type: 'string' },
    },
  });
  const modelIds = values['model-ids'];
  if (modelIds !== undefined && modelIds !== 'vendor' && modelIds !== 'spec') throw new Error('--model-ids must be "vendor" or "spec"');
  const speed = Number(values.speed);
  if (!(speed > 0 && speed <= 8)) throw new Error('--speed must be between 0 and 8');
  const scenario = await loadScenario(values.scenario!);
  const say = (m: string) => process.stdout.write(`${m}\n`);
  const service = await connectService((m) => say(`(${m})`), { modelIds });
  say(`(model ids: ${service.client.config.models.stt}, ${service.client.config.models.tts})`);
  try {
    say(`hiwar demo: ${scenario.description ?? values.scenario}`);
    const { report, caller } = await simulateCall({
      client: service.client,
      agent: callCentre,
      scenario,
      clock: new ScaledClock(speed),
      onEvent: (e) => {
        if (e.type === 'user_turn') say(`  العميل  ▸ ${e.text}`);
        else if (e.type === 'agent_turn') say(`  الوكيل  ◂ ${e.interrupted ? `${e.heardText} [قوطع]` : e.text}`);
        else if (e.type === 'interruption' && e.kind !== 'paused') say(`  (${e.kind === 'confirmed' ? 'barge-in: the agent stops, history keeps only what was heard' : 'false alarm: the agent resumes'})`);
        else if (e.type === 'tool') say(`  (tool ${e.outcome.call.name} → ${JSON.stringify(e.outcome.result)})`);
        else if (e.type === 'notice' || e.type === 'error') say(`  (${e.type === 'error' ? 'error: ' : ''}${e.message})`);
      },
    });
    await mkdir(values.out!, { recursive: true });
    await writeFile(join(values.out!, 'call.wav'), caller.recording());
    await writeFile(join(values.out!, 'report.json'), JSON.stringify({ ...report, scenario: values.scenario, llm: report.llm, sandbox: service.sandbox }, null, 2));
    say(latencyTable(report));
    say(`call ended (${report.ended}) after ${report.durationSeconds.toFixed(1)} s; wrote ${join(values.out!, 'call.wav')} (caller left, agent right) and report.json`);
    return 0;
  } finally {
    await service.close();
  }
}

export function latencyTable(report: CallReport): string {
  const rows = report.turns.filter((t) => t.role === 'agent' && t.metrics);
  const f = (v: number | undefined) => (v === undefined ? '–' : String(v)).padStart(8);
  const lines = ['', 'turn  stt-final  decision  llm-1st  tts-1st  playout  voice-to-voice (ms)  interrupted'];
  rows.forEach((t, i) => {
    const m = t.metrics!;
    lines.push(`${String(i + 1).padStart(4)} ${f(m.endOfSpeechToFinalMs)}  ${f(m.turnDecisionMs)} ${f(m.llmFirstTokenMs)} ${f(m.ttsFirstAudioMs)} ${f(m.playoutStartMs)} ${f(m.voiceToVoiceMs)}            ${m.interrupted ? 'yes' : 'no'}`);
  });
  return lines.join('\n');
}

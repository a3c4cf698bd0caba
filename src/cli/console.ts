import { parseArgs } from 'node:util';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { SoxTransport } from '../../transports/local/sox.ts';
import type { Agent } from '../session/agent.ts';
import { AgentSession } from '../session/agent-session.ts';
import { realClock } from '../transport/clock.ts';
import { connectService } from './connect.ts';
import { llmFromEnv, loggerFromEnv } from './llm.ts';

/** `hiwar console`: a live conversation through the microphone and loudspeaker. */
export async function consoleCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { agent: { type: 'string', default: 'agents/call-centre' }, rate: { type: 'string', default: '16000' } } });
  const mod = (await import(pathToFileURL(resolve(values.agent!, 'index.ts')).href)) as { default: Agent };
  const say = (m: string) => process.stdout.write(`${m}\n`);
  const service = await connectService((m) => say(`(${m})`));
  const clock = realClock();
  const transport = new SoxTransport(Number(values.rate), clock);
  const session = new AgentSession({ client: service.client, transport, agent: mod.default, clock, llm: llmFromEnv(mod.default), logger: loggerFromEnv() });
  session.events$.subscribe((e) => {
    if (e.type === 'transcript' && !e.final) process.stdout.write(`\r  … ${e.text}`);
    if (e.type === 'user_turn') say(`\r  أنت    ▸ ${e.text}`);
    if (e.type === 'agent_turn') say(`  الوكيل ◂ ${e.interrupted ? `${e.heardText} [قوطع]` : e.text}`);
    if (e.type === 'error' || e.type === 'notice') say(`  (${e.message})`);
  });
  process.once('SIGINT', () => void session.end('stopped by user'));
  say('Speak after the greeting; Ctrl-C ends the call.');
  const report = await session.run();
  await transport.close();
  await service.close();
  say(`call ended: ${report.ended}`);
  return 0;
}

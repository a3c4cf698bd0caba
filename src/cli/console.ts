import { AGENT_HELP, loadAgent, optionLine, PHRASEBOOK_HELP, sandboxPhrases } from './agent.ts';
import { parseCommand, UsageError } from './args.ts';
import type { connectService } from './connect.ts';
import { replyLines } from './demo-transcript.ts';
import { onStop } from './stop.ts';
import type { Agent } from '../session/agent.ts';

export const CONSOLE_USAGE = `Usage: hiwar console [--agent DIR|FILE] [--input DEVICE] [--output DEVICE] [--rate 16000] [--phrasebook FILE]

Talk to an agent through the microphone and loudspeaker (sox's rec and play). Ctrl-C ends the call.
Uses the real service when HIWAR_API_KEY is set, else the embedded sandbox, whose recognizer
knows a closed set of phrases, and the digits, نعم, لا and موافق in anyone's voice: the
console lists them at the start.

Options:
${optionLine('--agent DIR|FILE', AGENT_HELP, 21)}
  --input DEVICE     microphone, as sox names it (e.g. hw:1,0; default: the system default or AUDIODEV)
  --output DEVICE    loudspeaker, likewise
  --rate N           caller audio rate, 8000 or 16000 (default 16000)
${optionLine('--phrasebook FILE', PHRASEBOOK_HELP, 21)}
  -h, --help         this text
`;

/** `hiwar console`: a live conversation through the microphone and loudspeaker. */
export async function consoleCommand(args: string[]): Promise<number> {
  const values = parseCommand(
    args,
    {
      agent: { type: 'string' },
      rate: { type: 'string', default: '16000' },
      input: { type: 'string' },
      output: { type: 'string' },
      phrasebook: { type: 'string' },
    },
    CONSOLE_USAGE,
  );
  if (!values) return 0;
  if (values.rate !== '16000' && values.rate !== '8000') throw new UsageError(`--rate must be 8000 or 16000, got "${values.rate}"`, CONSOLE_USAGE);
  const { agent } = await loadAgent(values.agent);
  const phrases = await sandboxPhrases(agent, values.phrasebook);
  const say = (m: string) => process.stdout.write(`${m}\n`);
  // The devices' and the call's modules only once the command line is known good: --help and a
  // wrong option answer without loading the session and the sandbox (a second of start-up).
  const [{ SoxTransport }, { realClock }] = await Promise.all([import('../../transports/local/sox.ts'), import('../transport/clock.ts')]);
  const clock = realClock();
  // The devices first: without them there is no call, and nothing else should start or speak.
  const transport = await SoxTransport.open(Number(values.rate), clock, { input: values.input, output: values.output });
  let service: Awaited<ReturnType<typeof connectService>> | undefined;
  let unwatch = () => {};
  try {
    const [{ AgentSession }, { connectService }, { llmFromEnv, loggerFromEnv }] = await Promise.all([
      import('../session/agent-session.ts'),
      import('./connect.ts'),
      import('./llm.ts'),
    ]);
    service = await connectService((m) => say(`(${m})`), {}, { phrasebook: phrases });
    if (service.sandbox) {
      say('The offline recognizer understands only these phrases (whole or as clauses of them):');
      for (const p of phrases) say(`  • ${p}`);
      const { VOCABULARY_WORDS } = await import('../sandbox/engines/builtin-vocabulary.ts');
      say(`and, in anyone's voice, these words, alone or one after another with short pauses (a number digit by digit): ${VOCABULARY_WORDS.join('، ')}`);
      say('Add more with --phrasebook FILE (one phrase per line), or set HIWAR_API_KEY to use the real service.');
    }
    // Heard here as well as by the session: a device lost while the session starts must still
    // be the reason given, not the caller audio that ended with it.
    let deviceLost: string | undefined;
    transport.events$.subscribe((e) => {
      if (e.type === 'hangup') deviceLost ??= e.reason;
    });
    const logger = loggerFromEnv();
    // Offline, an agent a handoff reaches that no `handoffs` lists is taught when the call is handed to it.
    const teacher = service.embedded ? (await import('../server/sandbox-teacher.ts')).sandboxTeacher(service.embedded, phrases, logger) : undefined;
    const session = new AgentSession({ client: service.client, transport, agent, clock, llm: llmFromEnv(agent), logger, ...(teacher ? { teach: (a: Agent) => teacher(a, 'console') } : {}) });
    // Lines that are not the model's words are tagged, and a tool shows while it works, as in `hiwar demo`.
    const lines = replyLines();
    session.events$.subscribe((e) => {
      lines.seen(e);
      if (e.type === 'transcript' && !e.final) process.stdout.write(`\r  … ${e.text}`);
      if (e.type === 'user_turn') say(`\r  أنت    ▸ ${e.text}`);
      if (e.type === 'agent_turn') say(`  الوكيل ◂ ${lines.tag(e)}${e.interrupted ? `${e.heardText} [قوطع]` : e.text}`);
      if (e.type === 'agent_turn' || e.type === 'reply_dropped') lines.done(e.reply);
      if (e.type === 'tool_started') say(`  (tool ${e.name} working…)`);
      if (e.type === 'error' || e.type === 'notice') say(`  (${e.message})`);
      if (e.type === 'handoff_unlisted') say(`  (${e.to} is in no agent's handoffs: ${e.teaching ? 'teaching the recognizer its phrases…' : 'its phrases may not be heard'})`);
    });
    let stopped = false;
    // Ctrl-C, SIGTERM, or the npm process that started it going away: the call ends, the devices close.
    unwatch = onStop('console', (why) => {
      stopped = true;
      void session.end(why === 'SIGINT' ? 'stopped by user' : why);
    });
    say('Speak after the greeting; Ctrl-C ends the call.');
    const report = await session.run();
    // A call the user or the agent ended is a success; a device that vanished is not.
    if (deviceLost && !stopped) {
      say(`call ended: ${deviceLost}`);
      return 1;
    }
    say(`call ended: ${report.ended}`);
    // The service stopped serving the call (wallet, key): not a success either.
    return report.ended.startsWith('out of service: ') ? 1 : 0;
  } finally {
    unwatch();
    await transport.close();
    await service?.close();
  }
}

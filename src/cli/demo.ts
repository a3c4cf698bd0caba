import { access, constants, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServiceClient } from '../service/client.ts';
import type { Agent } from '../session/agent.ts';
import type { CallReport, TurnMetrics } from '../session/events.ts';
import type { Logger } from '../session/logger.ts';
import { AGENT_HELP, loadAgent, optionLine, PHRASEBOOK_HELP, sandboxPhrases } from './agent.ts';
import { CliError, numberOption, parseCommand, UsageError } from './args.ts';
import { demoTranscript } from './demo-transcript.ts';
import { missingVariables } from '../session/variables.ts';

/**
 * Fastest simulated clock the demo accepts. The service closes a /listen socket whose audio runs
 * 60 s ahead of real time (4008); at speed s a call gets (1 - 1/s) of its length ahead, so at 3
 * a call may last 90 s of call time (the shipped scenario takes about 60). The in-process
 * sandbox must also recognize speech s times faster than real time on the same cores: 3 is
 * what the test suite runs its calls at, on a loaded 2-core machine.
 */
export const MAX_SPEED = 3;

/** How a session's report names an end the service forced (its `outOfServiceLine`). */
const OUT_OF_SERVICE = 'out of service: ';

export const DEMO_USAGE = `Usage: hiwar demo [--agent DIR|FILE] [--scenario FILE] [--out DIR] [--speed 1] [--phrasebook FILE]
                  [--var name=value …] [--model-ids vendor|spec]

A whole simulated call with an agent (the Arabic call-centre agent unless --agent names yours):
prints the transcript and a per-turn latency table, writes DIR/call.wav (caller left, agent
right, one timeline), DIR/report.json and DIR/call.html (the call review page: both waveforms,
the turns, heard against meant, latency parts; opens offline, docs/call-review.md). Uses the real service when HIWAR_API_KEY is set, else
the embedded sandbox, taught the agent's intent examples.

Options:
${optionLine('--agent DIR|FILE', AGENT_HELP, 19)}
  --scenario FILE  the caller's script (JSON; default: scenario.json beside the agent, else one line
                   for each of the agent's intents; for the built-in agent its own scenario)
  --out DIR        where call.wav, report.json and call.html go (default out)
  --speed N        call clock speed, 1 to ${MAX_SPEED} (default 1). Above 1 the call runs faster than
                   real time and its latencies are on that scaled clock (network and model times
                   count N times their real length); time this process is stalled (a busy
                   machine) is not call time then.
${optionLine('--phrasebook FILE', PHRASEBOOK_HELP, 19)}
  --var name=value a call variable (repeat for more), as a placed call's: fills {name} in the
                   agent's greeting and instructions (an agent using one not given is refused)
  --model-ids ID   vendor (munsit, faseeh-v1-preview; default) or spec model names (HIWAR_MODEL_IDS)
  -h, --help       this text
`;

/** `hiwar demo`: a whole simulated call against the call-centre agent. */
export async function demoCommand(args: string[]): Promise<number> {
  const values = parseCommand(
    args,
    {
      agent: { type: 'string' },
      scenario: { type: 'string' },
      phrasebook: { type: 'string' },
      out: { type: 'string', default: 'out' },
      speed: { type: 'string', default: '1' },
      'model-ids': { type: 'string' },
      var: { type: 'string', multiple: true },
    },
    DEMO_USAGE,
  );
  if (!values) return 0;
  const modelIds = values['model-ids'];
  if (modelIds !== undefined && modelIds !== 'vendor' && modelIds !== 'spec') throw new UsageError('--model-ids must be "vendor" or "spec"', DEMO_USAGE);
  const speed = numberOption('speed', values.speed, 1, MAX_SPEED, DEMO_USAGE);
  const loaded = await loadAgent(values.agent);
  const agent = loaded.agent;
  const variables = (await import('./call.ts')).callVariables(values.var ?? [], DEMO_USAGE);
  const missing = missingVariables(agent, variables);
  if (missing.length) throw new CliError(`agent ${agent.name} uses ${missing.map((m) => `{${m}}`).join(', ')} in its greeting or instructions: give ${missing.length > 1 ? 'them' : 'it'} with ${missing.map((m) => `--var ${m}=…`).join(' ')}`);
  const { scenario, source } = await (await import('./demo-scenario.ts')).demoScenario(loaded, values.scenario);
  const phrases = await sandboxPhrases(agent, values.phrasebook);
  const out = values.out;
  await checkWritable(out, ['call.wav', 'report.json', 'call.html']);
  const say = (m: string) => process.stdout.write(`${m}\n`);
  // The call's modules only now that the command line is known good: --help and a wrong option
  // answer without loading the agent, the session and the sandbox (about a second of start-up).
  const [{ ScaledClock }, { SteadyScaledClock }, { connectService }, { simulateCall }, { describeLlm, llmFromEnv, loggerFromEnv }] = await Promise.all([
    import('../transport/clock.ts'),
    import('../testing/steady-clock.ts'),
    import('./connect.ts'),
    import('../testing/simulate.ts'),
    import('./llm.ts'),
  ]);
  // One call, then the process ends: no background optimizing of the VAD's WebAssembly to wait for at exit.
  (await import('../audio/onnx.ts')).baselineWasm();
  const service = await connectService((m) => say(`(${m})`), { modelIds }, { phrasebook: phrases, phrasebookVoices: [scenario.callerVoice] });
  say(`(model ids: ${service.client.config.models.stt}, ${service.client.config.models.tts})`);
  const llm = llmFromEnv(agent);
  say(`(language model: ${describeLlm(llm)})`);
  const logger = loggerFromEnv();
  // The out-of-service line before the call, as a server renders it at start-up: rendered by the
  // call instead, it raced the greeting's synthesis and a key of one concurrent session was
  // refused it (429), so a caller the service then refused heard nothing.
  await prepareDemoLines(service.client, agent, logger);
  // Faster than real time the call is a simulation in this one process (caller, agent and, without
  // a key, the sandbox): a stall counted as call time, N times over, spread the recording's speech
  // against the report's times on a busy machine. At 1× the latencies are the wall's, stalls too.
  const callClock = speed === 1 ? new ScaledClock(1) : new SteadyScaledClock(speed);
  try {
    say(`hiwar demo: ${agent.name}: ${scenario.description ?? source}${speed !== 1 ? ` (clock ×${speed})` : ''}`);
    const { report, caller } = await simulateCall({
      client: service.client,
      agent,
      llm,
      logger,
      scenario,
      clock: callClock,
      onEvent: demoTranscript(say),
      variables,
    });
    // The out-of-service line is told as any line (its chunk, then its turn): the transcript printed it.
    const wav = caller.recording();
    await writeFile(join(out, 'call.wav'), wav);
    const clock = { speed, note: speed === 1 ? 'real time' : `latencies are in call time on a clock running ${speed}× real time: divide network and model times by ${speed} for real time` };
    await writeFile(join(out, 'report.json'), JSON.stringify({ ...report, clock, scenario: source, llm: report.llm, sandbox: service.sandbox }, null, 2));
    // The review page: the recording and the turns on one timeline, opened from disk.
    const { callPageFile } = await import('../review/call-file.ts');
    const page = await callPageFile({ report, wav, recordingStartClock: caller.startedAt, title: `${agent.name}: ${scenario.description ?? source}`, clockNote: speed === 1 ? undefined : clock.note });
    await writeFile(join(out, 'call.html'), page.html);
    say(latencyTable(report, speed));
    say(`call ended (${report.ended}) after ${report.durationSeconds.toFixed(1)} s; wrote ${join(out, 'call.wav')} (caller left, agent right), ${join(out, 'report.json')} and ${join(out, 'call.html')} (open it in a browser)`);
    // The service stopped serving the call: the results are written, and the exit says so.
    if (report.ended.startsWith(OUT_OF_SERVICE)) throw new CliError(`the call ended out of service: ${report.ended.slice(OUT_OF_SERVICE.length)}`);
    return 0;
  } finally {
    if (callClock instanceof SteadyScaledClock) callClock.stop();
    await service.close();
  }
}

/**
 * Renders the agent's fixed lines before the call. A key that is not valid or a wallet that is
 * empty stops the demo here, in the one line the CLI gives them (the call could voice nothing);
 * anything else is a warning naming what the service refused, and the call goes on.
 */
async function prepareDemoLines(client: ServiceClient, agent: Agent, logger: Pick<Logger, 'warn'>): Promise<void> {
  const { prepareFixedLines, linesNotRendered } = await import('../session/prepare-fixed-lines.ts');
  const { AuthenticationError, InsufficientBalanceError } = await import('../service/errors.ts');
  const err = await prepareFixedLines(client, agent).then(() => undefined, (e: unknown) => e);
  if (err instanceof AuthenticationError || err instanceof InsufficientBalanceError) throw err;
  if (err) logger.warn({ err: (err as Error).message }, linesNotRendered(err));
}

/** Fails before the call, not after it, when the results could not be written. */
async function checkWritable(dir: string, files: string[]): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
    await access(dir, constants.W_OK);
    for (const f of files) {
      await access(join(dir, f), constants.W_OK).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
    }
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'ENOTDIR' || e.code === 'EEXIST' ? 'a file is in the way' : e.code === 'EACCES' || e.code === 'EPERM' ? 'permission denied' : e.message;
    throw new CliError(`--out ${dir}: cannot write the results there (${why})`);
  }
}

/** Why the caller's turn ended (the turn policy's reason and cue, and the wait it added or saved). */
const endOfTurn = (m: TurnMetrics): string =>
  m.endOfTurnReason ? `${m.endOfTurnReason}${m.endOfTurnCue ? ` (${m.endOfTurnCue})` : ''}${m.endOfTurnWaitMs ? ` ${m.endOfTurnWaitMs > 0 ? '+' : ''}${m.endOfTurnWaitMs} ms` : ''}` : '';

/**
 * The demo's per-turn latency table: the parts of each reply's wait in the order they happen
 * (final transcript, turn decision, the model's first token and first sentence, synthesis'
 * first audio, playout), which add up to its voice-to-voice.
 */
export function latencyTable(report: CallReport, speed = 1): string {
  const rows = report.turns.filter((t) => t.role === 'agent' && t.metrics);
  // A header over no row read as a failure to measure: the lines' own figures are per line, not per turn.
  if (!rows.length) return '\nlatency: no reply to a caller turn in this call, so no per-turn table (the caller hung up first, or was never heard)';
  const f = (v: number | undefined) => (v === undefined ? '–' : String(v)).padStart(8);
  const lines = ['', 'turn  stt-final  decision  llm-1st llm-sent  tts-1st  playout  voice-to-voice (ms)  interrupted  end of turn'];
  for (const t of rows) {
    const m = t.metrics!;
    // The caller's turn number, not the row's place: a turn nothing answered (the caller spoke again, or hung up) has no row.
    lines.push(`${String(m.turn ?? '–').padStart(4)} ${f(m.endOfSpeechToFinalMs)}  ${f(m.turnDecisionMs)} ${f(m.llmFirstTokenMs)} ${f(m.llmFirstSentenceMs)} ${f(m.ttsFirstAudioMs)} ${f(m.playoutStartMs)} ${f(m.voiceToVoiceMs)}            ${m.interrupted ? 'yes' : 'no '}          ${endOfTurn(m)}`.trimEnd());
  }
  if (speed !== 1) {
    lines.push(`(times in ms of call time: the clock ran ${speed}× real time, so network and model times count ${speed}× their real length; use --speed 1 for real-time figures)`);
  }
  return lines.join('\n');
}

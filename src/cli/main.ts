import { AGENT_HELP } from './agent.ts';
import { UsageError } from './args.ts';
import { explainError } from './explain.ts';
import { docsHelpLine } from '../docs-path.ts';

const USAGE = `hiwar: real-time Arabic voice agents

Usage:
  hiwar demo [--agent DIR|FILE] [--scenario FILE] [--out DIR] [--speed 1] [--phrasebook FILE]
             [--model-ids vendor|spec]
      A whole simulated call with an agent (the Arabic call-centre agent unless --agent names
      yours); prints the transcript and per-turn latency, writes DIR/call.wav (caller left,
      agent right), DIR/report.json and DIR/call.html (the call to review in a browser).
      Testing your own agent: docs/testing-your-agent.md.
      Uses the real service when HIWAR_API_KEY is set, else the embedded sandbox. Model ids:
      the vendor's (munsit, faseeh-v1-preview) unless --model-ids spec or HIWAR_MODEL_IDS=spec.
  hiwar console [--agent DIR|FILE] [--input DEVICE] [--output DEVICE] [--rate 16000] [--phrasebook FILE]
      Talk to an agent with the microphone and loudspeaker (sox).
  hiwar sandbox [--port 8787] [--host 127.0.0.1] [--keys FILE] [--uae-port N] [--phrasebook FILE]
                [--ahead-limit S] [--listen-idle S]
      Serve a local stand-in of the voice service (HTTP, SSE and WebSockets on one port).
  hiwar serve [--config FILE] [--agent DIR|FILE] [--port 8080] [--host 127.0.0.1] [--public-url URL]
      Serve the agent to telephony platforms (/telephony/<provider>), with /healthz, /readyz and /metrics.
      Uses the real service when HIWAR_API_KEY is set, else the embedded sandbox. docs/telephony.md
  hiwar call NUMBER [--agent DIR|FILE] [--from NUMBER] [--platform twilio|telnyx|plivo|vonage]
             [--var name=value …] [--server URL] [--public-url URL]
      Place one outbound call through the platform's REST API and wait for its outcome, here or on
      a running hiwar serve (--server). docs/outbound.md
  hiwar campaign start CONTACTS.csv [--agent DIR|FILE] [--window TEXT] [--concurrency N] [--retries N]
                 [--retry-after D] [--dnc FILE]
  hiwar campaign worker|status|pause|resume|cancel [ID]
      Call a list of contacts within a window, with retries and a do-not-call list, in this
      process or by workers on a cluster (REDIS_URL). docs/campaigns.md
  hiwar status [--json]
      The instances of a cluster of servers (REDIS_URL): calls, waiting callers, loop delay,
      the key's sessions in use. docs/scaling.md
  hiwar worker [--redis URL] [--recordings DIR] [--webhook URL] [--concurrency 2]
      Run post-call analytics jobs queued by hiwar serve --analytics. docs/analytics.md
  hiwar help [COMMAND]

--agent DIR|FILE: ${AGENT_HELP}.
Each command prints its own options with --help (hiwar demo --help).
`;

type Command = (args: string[]) => Promise<number>;

const commands: Record<string, () => Promise<Command>> = {
  demo: async () => (await import('./demo.ts')).demoCommand,
  console: async () => (await import('./console.ts')).consoleCommand,
  sandbox: async () => (await import('./sandbox.ts')).sandboxCommand,
  serve: async () => (await import('./serve.ts')).serveCommand,
  call: async () => (await import('./call.ts')).callCommand,
  campaign: async () => (await import('./campaign.ts')).campaignCommand,
  status: async () => (await import('./status.ts')).statusCommand,
  worker: async () => (await import('./worker.ts')).workerCommand,
};

/** Entry point of the `hiwar` command; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  // `hiwar help serve` is `hiwar serve --help`, as git and npm read it.
  if (name === 'help' && rest[0] && commands[rest[0]]) return main([rest[0], '--help']);
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(`${USAGE}${docsHelpLine(USAGE)}`);
    return name ? 0 : 2;
  }
  const load = commands[name];
  if (!load) {
    process.stderr.write(`hiwar: unknown command "${name}"\n\n${USAGE}`);
    return 2;
  }
  try {
    return await (await load())(rest);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`hiwar ${name}: ${err.message}\n\n${err.usage}`);
      return 2;
    }
    // Every failure a user can meet is one line; the stack only helps a developer, on request.
    process.stderr.write(`hiwar ${name}: ${explainError(err)}\n`);
    if (process.env.HIWAR_DEBUG) process.stderr.write(`${(err as Error).stack}\n`);
    return 1;
  }
}

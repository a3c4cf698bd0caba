import type { OutboundCall, PlaceCallRequest } from '../../transports/telephony/outbound/index.ts';
import { AGENT_HELP, loadAgent, optionLine, PHRASEBOOK_HELP } from './agent.ts';
import { E164 } from '../../transports/telephony/outbound/types.ts';
import { CliError, numberOption, parseCommand, publicUrlOption, UsageError } from './args.ts';
import { cliLogger } from './log.ts';

/** The text of `hiwar call --help`. */
export const CALL_USAGE = `Usage: hiwar call NUMBER [--agent DIR|FILE] [--from NUMBER] [--platform twilio|telnyx|plivo|vonage]
                  [--var name=value …] [--server URL] [--public-url URL] [--port 8080] [--host 127.0.0.1]
                  [--ring-timeout 30] [--phrasebook FILE]

Place one outbound call to NUMBER (E.164, +9665…) through the platform's REST API, with the call's
audio streamed back to an agent, and wait for its outcome (completed, busy, no-answer, failed,
canceled). See docs/outbound.md.

Two ways to run it:
  --server URL           ask a running \`hiwar serve\` (POST URL/calls with HIWAR_CALLS_SECRET): the call
                         runs there, with that server's agent; --agent, --public-url, --port and
                         --host do not apply
  (no --server)          start a server in this process for this one call: --public-url (or
                         HIWAR_PUBLIC_URL) must be the address the platform reaches --port at

Options:
${optionLine('--agent DIR|FILE', AGENT_HELP, 25)}
  --from NUMBER          caller ID, a number of yours on the platform (default HIWAR_CALL_FROM)
  --platform NAME        twilio, telnyx, plivo or vonage (default: the only one whose credentials
                         are set, else HIWAR_CALL_PLATFORM)
  --var name=value       a call variable (repeat for more): reaches the agent as
                         ctx.call.info.parameters and fills {name} in its greeting and instructions
  --server URL           a running hiwar serve to place the call on
  --public-url URL       the address the platform reaches this process at (or HIWAR_PUBLIC_URL)
  --port N, --host ADDR  where this process listens (default 8080, 127.0.0.1)
  --ring-timeout S       seconds the phone rings before the call counts as no-answer (default 30)
${optionLine('--phrasebook FILE', PHRASEBOOK_HELP, 25)}
  -h, --help             this text

Credentials (environment): TWILIO_ACCOUNT_SID + TWILIO_AUTH_TOKEN; TELNYX_API_KEY +
TELNYX_CONNECTION_ID (+ TELNYX_PUBLIC_KEY for its callbacks); PLIVO_AUTH_ID + PLIVO_AUTH_TOKEN;
VONAGE_APPLICATION_ID + VONAGE_PRIVATE_KEY or VONAGE_PRIVATE_KEY_PATH (+ VONAGE_SIGNATURE_SECRET).
Exit code: 0 once the call has an outcome (printed), 1 when it could not be placed.
`;

/** `hiwar call`: one outbound call, placed here or on a running `hiwar serve`. */
export async function callCommand(args: string[]): Promise<number> {
  // The number is the one positional argument; it may come anywhere.
  const at = args.findIndex((a, i) => /^\+?\d/.test(a) && !(i > 0 && /^--(from|port|ring-timeout)$/.test(args[i - 1]!)));
  const number = at >= 0 ? args[at] : undefined;
  const values = parseCommand(
    at >= 0 ? [...args.slice(0, at), ...args.slice(at + 1)] : args,
    {
      agent: { type: 'string' },
      from: { type: 'string' },
      platform: { type: 'string' },
      var: { type: 'string', multiple: true },
      server: { type: 'string' },
      'public-url': { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      'ring-timeout': { type: 'string' },
      phrasebook: { type: 'string' },
    },
    CALL_USAGE,
  );
  if (!values) return 0;
  if (!number) throw new UsageError('give the number to call (E.164, +9665…)', CALL_USAGE);
  // The number first: a wrong one is the mistake to tell, whatever else is missing.
  if (!E164.test(number)) throw new UsageError(`the number to call must be E.164 (+ then 8 to 15 digits, +9665…), got "${number}"`, CALL_USAGE);
  const platform = values.platform;
  if (platform !== undefined && !['twilio', 'telnyx', 'plivo', 'vonage'].includes(platform)) throw new UsageError(`--platform must be twilio, telnyx, plivo or vonage, got "${platform}"`, CALL_USAGE);
  const request: PlaceCallRequest = {
    to: number,
    ...(values.from ? { from: values.from } : {}),
    ...(platform ? { platform: platform as PlaceCallRequest['platform'] } : {}),
    variables: callVariables(values.var ?? []),
  };
  const ringTimeoutS = values['ring-timeout'] === undefined ? undefined : numberOption('ring-timeout', values['ring-timeout'], 5, 600, CALL_USAGE, true);
  const say = (m: string) => process.stdout.write(`${m}\n`);
  const call = values.server ? await onServer(values.server, request, say) : await here(values, request, ringTimeoutS, say);
  say(`${call.id}: ${call.outcome}${call.durationS !== undefined ? ` after ${call.durationS} s` : ''} (${call.platform}: ${call.rawStatus ?? 'no status'})`);
  for (const line of sessionLines(call)) say(line);
  return 0;
}

/**
 * What an answered call's session learnt, under the outcome line: who answered, how it ended and
 * what was said. The outcome alone read `completed` for a call the agent transferred, or that
 * reached a voicemail.
 */
export function sessionLines(call: OutboundCall): string[] {
  const s = call.session;
  if (!s) return [];
  return [
    ...(s.amd ? [`  who answered: ${s.amd.class} (${s.amd.action}, decided after ${(s.amd.decisionMs / 1000).toFixed(1)} s)`] : []),
    ...(s.ended ? [`  ended: ${s.ended}`] : []),
    ...(s.transcript ? s.transcript.split('\n').map((l) => `  ${l}`) : []),
  ];
}

/** `--var name=value` options as variables; a malformed one is a usage error. */
export function callVariables(vars: string[], usage = CALL_USAGE): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of vars) {
    const eq = v.indexOf('=');
    if (eq <= 0) throw new UsageError(`--var takes name=value, got "${v}"`, usage);
    out[v.slice(0, eq)] = v.slice(eq + 1);
  }
  return out;
}

/**
 * The line a command that serves calls says before it starts their server (`hiwar call`,
 * `hiwar campaign`): loading the modules, the agent and the embedded sandbox takes seconds, a
 * minute on a busy machine, and nothing else is printed until the server listens.
 */
export function startingServerLine(command: string, forWhat: string, embeddedSandbox: boolean): string {
  return `${command}: starting a server for ${forWhat}${embeddedSandbox ? ', with the embedded sandbox (no HIWAR_API_KEY)' : ''}; seconds, up to a minute on a busy machine…`;
}

/** Seconds `--server` waits after an answered call's outcome for its session's summary. */
const SESSION_WAIT_S = 10;

/** Places the call on a running `hiwar serve` and follows it there. */
async function onServer(server: string, request: PlaceCallRequest, say: (m: string) => void): Promise<OutboundCall> {
  const secret = process.env.HIWAR_CALLS_SECRET;
  if (!secret) throw new CliError('--server needs HIWAR_CALLS_SECRET: the bearer secret the server was started with');
  const base = server.replace(/\/+$/, '');
  const headers = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
  const asked = async (path: string, init?: RequestInit) => {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, { ...init, headers });
    } catch (err) {
      throw new CliError(`cannot reach ${base}: ${(err as Error).message}`);
    }
    const body = (await res.json().catch(() => ({}))) as OutboundCall & { error?: string };
    if (!res.ok) throw new CliError(`${base} answered ${res.status}: ${body.error ?? res.statusText}`);
    return body;
  };
  let call = await asked('/calls', { method: 'POST', body: JSON.stringify(request) });
  say(`placed ${call.id} through ${call.platform}; waiting for its outcome…`);
  // The server keeps the call's status; once a second is plenty for a call that lasts minutes.
  while (!call.outcome) {
    await new Promise((r) => setTimeout(r, 1000));
    call = await asked(`/calls/${call.id}`);
  }
  // An answered call's session summary follows its last callback by a moment.
  for (let tries = 0; call.answeredAt && !call.session && tries < SESSION_WAIT_S; tries++) {
    await new Promise((r) => setTimeout(r, 1000));
    call = await asked(`/calls/${call.id}`);
  }
  return call;
}

/** Starts a server in this process for this one call, places it, waits for its outcome and its session's end. */
async function here(values: { agent?: string; 'public-url'?: string; port?: string; host?: string; phrasebook?: string }, request: PlaceCallRequest, ringTimeoutS: number | undefined, say: (m: string) => void): Promise<OutboundCall> {
  const publicUrl = publicUrlOption(values['public-url'], CALL_USAGE);
  if (!publicUrl) throw new UsageError('the platform must reach this process: give --public-url (or HIWAR_PUBLIC_URL), or --server URL of a running hiwar serve', CALL_USAGE);
  const port = values.port === undefined ? 8080 : numberOption('port', values.port, 0, 65535, CALL_USAGE, true);
  // Whether a call can be placed at all, before anything slow starts.
  await (await import('./serve-outbound.ts')).checkDialling(request.from, request.platform);
  say(startingServerLine('hiwar call', 'the call', !process.env.HIWAR_API_KEY));
  const { agent } = await loadAgent(values.agent);
  // The model every call answers with (OPENAI_API_KEY, as `hiwar demo`'s); a malformed OPENAI_BASE_URL stops here.
  const model = (await import('./llm.ts')).serverLlm({ agent });
  if (model.line) say(`(language model: ${model.line})`);
  // Taught as `hiwar serve`'s is: the agent's intent examples and --phrasebook.
  const sandbox = await (await import('./connect.ts')).taughtSandbox(agent, values.phrasebook, (m) => say(`(${m})`));
  const { createAgentServer } = await import('../server/create.ts');
  const { telephonyRoutes, outboundCalls, jambonzOptionsFromEnv } = await import('../../transports/telephony/index.ts');
  const outbound = outboundCalls({ publicUrl, ringTimeoutS });
  let sessions = 0;
  const ended = new Set<string>();
  const app = await createAgentServer({
    agent,
    publicUrl,
    llm: model.llm,
    host: values.host,
    port,
    logger: cliLogger('info'),
    ...(sandbox ? { sandbox } : {}),
    plugins: [telephonyRoutes({ jambonz: jambonzOptionsFromEnv() }), outbound.routes],
    // The call's record learns what its session did (who answered, the transcript), as on `hiwar serve`.
    onCallEnded: (c, report) => {
      outbound.callEnded(c, report);
      ended.add(c.callId);
    },
    // Counted once made: a session refused before it exists never ends.
    wrapSessions: (inner) => async (t) => {
      const s = await inner(t);
      sessions++;
      outbound.callStarted(t.call);
      return s;
    },
  });
  try {
    const { url } = await app.listen();
    say(`hiwar call: agent "${agent.name}" at ${url}, reached as ${publicUrl}${app.sandboxUrl ? `; the embedded sandbox at ${app.sandboxUrl}` : ''}`);
    const placed = await outbound.placeCall(request).catch((err: Error) => {
      throw new CliError(err.message);
    });
    say(`placed ${placed.id} through ${placed.platform} to ${placed.to}; waiting for its outcome…`);
    await outbound.outcome(placed.id);
    // The platform may report the end before the stream has closed here: let the session finish.
    const give = Date.now() + 60_000;
    while (sessions > ended.size && Date.now() < give) await new Promise((r) => setTimeout(r, 200));
    // With what its session learnt, recorded as it ended.
    return await outbound.outcome(placed.id, { session: true });
  } finally {
    await app.close();
  }
}

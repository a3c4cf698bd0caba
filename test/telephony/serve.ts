import callCentre from '../../agents/call-centre/index.ts';
import { agentSessions } from '../../src/server/agent-sessions.ts';
import { AgentServer } from '../../src/server/server.ts';
import { CallTokens } from '../../src/server/tokens.ts';
import type { ServerWarning } from '../../src/server/types.ts';
import type { Agent } from '../../src/session/agent.ts';
import type { CallReport, SessionEvent } from '../../src/session/events.ts';
import { createLogger } from '../../src/session/logger.ts';
import type { Transport, TransportEvent } from '../../src/transport/types.ts';
import { telephonyPlugin, type TelephonyOptions } from '../../transports/telephony/index.ts';
import type { MediaStreamTransport } from '../../transports/telephony/media-stream.ts';
import { SteadyScaledClock } from '../../src/testing/steady-clock.ts';
import { runSandbox, type Running } from '../helpers/sandbox.ts';
import { Deadline } from '../helpers/deadline.ts';

/** One call as the test sees it from inside the server. */
export interface ServedCall {
  transport: MediaStreamTransport;
  events: SessionEvent[];
  transportEvents: TransportEvent[];
  report?: CallReport;
}

export interface Served {
  url: string;
  server: AgentServer;
  sandbox: Running;
  calls: ServedCall[];
  tokens: CallTokens;
  /** The telephony plugin (its `access`: what each platform's routes require). */
  plugin: ReturnType<typeof telephonyPlugin>;
  /** Call time of the server's sessions and of the tests' far ends: stalls of this process are not call time. */
  clock: SteadyScaledClock;
  connections(): number;
  close(): Promise<void>;
}

/**
 * A `hiwar serve` in this process, as the CLI builds it: the agent server with the telephony
 * plugin, sessions on the sandbox, everything on the stall-free scaled clock.
 */
export async function startServe(
  opts: { speed?: number; agent?: Partial<Agent>; sandbox?: Running; maxCalls?: number; beforeSession?: (t: Transport) => void; tokenSecret?: string; onWarning?: (w: ServerWarning) => void } & Partial<Omit<TelephonyOptions, 'tokens'>> = {},
): Promise<Served> {
  const sandbox = opts.sandbox ?? (await runSandbox());
  const clock = new SteadyScaledClock(opts.speed ?? 2);
  const logger = createLogger('silent');
  const calls: ServedCall[] = [];
  // A generous wait for the first TTS audio: these tests are about the line, and on a loaded
  // machine the sandbox's synthesis can be slow enough to send every reply down the HTTP path.
  // Barge-ins are confirmed by half a second of speech as well as by words: these tests are about
  // the platform's side of the cut (its interrupt message, marks, what was heard), which the
  // session's own tests check with words. (The sandbox's empty finals for a line spoken over the
  // agent, which first made this necessary, were a late VAD onset, fixed: docs/sandbox.md.)
  const agent: Agent = {
    ...callCentre,
    voice: { ...callCentre.voice, firstAudioTimeoutMs: 20_000 },
    interruption: { ...callCentre.interruption, minSpeechMs: 500, falseInterruptionTimeoutMs: 20_000 },
    ...opts.agent,
  };
  const base = agentSessions({ client: sandbox.client, agent, logger, clock });
  const server = new AgentServer({
    port: 0,
    logger,
    maxCalls: opts.maxCalls,
    onWarning: opts.onWarning,
    sessions: (t: Transport) => {
      opts.beforeSession?.(t);
      const s = base(t);
      const call: ServedCall = { transport: t as MediaStreamTransport, events: [], transportEvents: [] };
      calls.push(call);
      s.events$.subscribe((e) => call.events.push(e));
      t.events$.subscribe((e) => call.transportEvents.push(e));
      const run = s.run.bind(s);
      s.run = async () => (call.report = await run());
      return s;
    },
  });
  const tokens = new CallTokens({ secret: opts.tokenSecret });
  // Open (`hiwar serve --open`) unless a test says otherwise: most tests are about the call, not access.
  const plugin = telephonyPlugin(server.host, { open: true, logger, media: { clock }, ...opts, tokens });
  server.use(plugin);
  const { url } = await server.listen();
  return {
    url,
    server,
    sandbox,
    calls,
    tokens,
    plugin,
    clock,
    connections: () => plugin.connections(),
    close: async () => {
      await server.close();
      clock.stop();
      if (!opts.sandbox) await sandbox.close();
    },
  };
}

/** Waits for a condition, polling; fails with `what` after `ms` (generous: the machine is shared). */
export async function waitFor(cond: () => boolean, what: string, ms = 90_000, explain?: () => string): Promise<void> {
  const deadline = new Deadline(ms);
  while (!cond()) {
    if (deadline.expired) throw new Error(`timed out: ${what}${explain ? `\n  ${explain()}` : ''}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export const agentTurns = (c: ServedCall) => c.events.filter((e): e is Extract<SessionEvent, { type: 'agent_turn' }> => e.type === 'agent_turn');

/** Twilio's webhook for a new call, as Twilio sends it (form-encoded); the stream URL from its TwiML. */
export async function twilioCall(s: Served, callSid: string, headers: Record<string, string> = {}, fields: Record<string, string> = {}) {
  const body = new URLSearchParams({ CallSid: callSid, ...fields }).toString();
  const res = await fetch(`${s.url}/telephony/twilio`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body });
  const xml = await res.text();
  return { status: res.status, xml, streamUrl: /<Stream url="([^"]+)"/.exec(xml)?.[1] };
}

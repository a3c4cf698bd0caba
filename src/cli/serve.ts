import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Agent } from '../session/agent.ts';
import { createLogger } from '../session/logger.ts';
import { serveAnalytics } from '../analytics/serve-setup.ts';
import { agentSessions } from '../server/agent-sessions.ts';
import { AgentServer } from '../server/server.ts';
import { CallTokens } from '../server/tokens.ts';
import { accessLines, serveLedger } from './serve-security.ts';
import { generateKey } from '../sandbox/keys.ts';
import { numberOption, parseCommand, UsageError } from './args.ts';
import { checkServiceKey, connectService } from './connect.ts';
import { loadWebRtc } from './serve-webrtc.ts';
import { busyLineSynth, prepareLines, CLUSTER_FLAGS, CLUSTER_USAGE, clusterOptionsOf, lateCluster } from './serve-cluster.ts';

export const SERVE_USAGE = `Usage: hiwar serve [--agent agents/call-centre] [--port 8080] [--host 127.0.0.1] [--public-url URL]
                   [--max-calls 200] [--media-token TOKEN] [--audiosocket-port N] [--model-ids vendor|spec]
                   [--analytics] [--recordings DIR] [--open]

Serve an agent to telephony platforms (/telephony/<provider>) and, when mediasoup is installed, to
browsers (a call page at /, docs/webrtc.md), with /healthz, /readyz and /metrics. Uses the real
service when HIWAR_API_KEY is set, else the embedded sandbox (it recognizes only what it voiced
itself: real callers need the service). See docs/telephony.md.

Options:
  --agent DIR            a directory whose index.ts default-exports an Agent (default agents/call-centre)
  --port N               port to listen on (default 8080; 0 picks a free one)
  --host ADDR            address to bind (default 127.0.0.1; nothing is open without secrets, on any address)
  --public-url URL       the address platforms reach this server at, for webhook answers
  --max-calls N          concurrent calls before new ones are refused, media connections not
                         started yet included (default 200)
  --media-token TOKEN    fixed media token for FreeSWITCH, Asterisk, jambonz, pcm (or HIWAR_MEDIA_TOKEN)
  --audiosocket-port N   also take Asterisk AudioSocket calls on this TCP port
  --model-ids KIND       vendor (default) or spec model names
  --analytics            record calls and analyze each after it ends: as jobs for hiwar worker when
                         REDIS_URL is set, else in this process (also on when
                         HIWAR_ANALYTICS_WEBHOOK_URL is set); see docs/analytics.md
  --recordings DIR       where recordings and results go (default recordings, or HIWAR_RECORDINGS_DIR)
  --open                 development only: routes with no secret configured are open (unsigned
                         webhooks, media without a token, /webrtc/token without a secret)
  -h, --help             this text

Secrets (environment): TWILIO_AUTH_TOKEN, TELNYX_PUBLIC_KEY, PLIVO_AUTH_TOKEN,
VONAGE_SIGNATURE_SECRET, EXOTEL_BASIC_AUTH, JAMBONZ_WEBHOOK_SECRET check webhook signatures (their
answers hand out one-call media tokens); HIWAR_MEDIA_TOKEN opens the media URLs of FreeSWITCH,
Asterisk, jambonz and pcm; HIWAR_WEBRTC_SECRET guards POST /webrtc/token. Without --open a route
whose secret is missing is closed, on localhost too; the start-up lines say which. See
docs/security.md.

${CLUSTER_USAGE}`;

/** `hiwar serve`: the agent behind every telephony platform (and WebRTC), on one port. */
export async function serveCommand(args: string[]): Promise<number> {
  const values = parseCommand(
    args,
    {
      agent: { type: 'string', default: 'agents/call-centre' },
      port: { type: 'string', default: '8080' },
      host: { type: 'string', default: '127.0.0.1' },
      'public-url': { type: 'string' },
      'max-calls': { type: 'string', default: '200' },
      'media-token': { type: 'string' },
      'audiosocket-port': { type: 'string' },
      'model-ids': { type: 'string' },
      ...CLUSTER_FLAGS,
      analytics: { type: 'boolean', default: false },
      recordings: { type: 'string' },
      open: { type: 'boolean', default: false },
    },
    SERVE_USAGE,
  );
  if (!values) return 0;
  numberOption('port', values.port, 0, 65535, SERVE_USAGE, true);
  numberOption('max-calls', values['max-calls'], 1, 100_000, SERVE_USAGE, true);
  if (values['audiosocket-port'] !== undefined) numberOption('audiosocket-port', values['audiosocket-port'], 0, 65535, SERVE_USAGE, true);
  const say = (m: string) => process.stdout.write(`${m}\n`);
  const logger = createLogger(process.env.HIWAR_LOG_LEVEL ?? 'info');
  const agent = await loadAgent(values.agent!);
  const maxCalls = Number(values['max-calls']);
  const modelIds = values['model-ids'];
  if (modelIds !== undefined && modelIds !== 'vendor' && modelIds !== 'spec') throw new UsageError(`--model-ids must be "vendor" or "spec", got "${modelIds}"`, SERVE_USAGE);
  // Each call may hold up to three of the key's sessions (see CLUSTER_DEFAULTS.sessionsPerCall): its
  // recognition and synthesis sockets, and an HTTP synthesis or a socket being replaced.
  const sandboxSessions = 3 * maxCalls + 3;
  const clusterOptions = clusterOptionsOf(values, SERVE_USAGE, process.env.HIWAR_API_KEY ? undefined : sandboxSessions);
  const service = await connectService((m) => say(`(${m})`), { modelIds }, { keys: [{ key: generateKey(), credits: 100_000_000, concurrency: sandboxSessions }] });
  if (!service.sandbox) await checkServiceKey(service.client, (m) => say(`(${m})`));
  const cluster = clusterOptions ? lateCluster() : undefined;
  const host = values.host!;
  // Closed unless told otherwise: never inferred from the bind address.
  const open = values.open!;
  const ledger = await serveLedger(process.env.REDIS_URL, logger);
  const mediaToken = values['media-token'] ?? process.env.HIWAR_MEDIA_TOKEN;
  const analytics = await serveAnalytics({ enabled: values.analytics!, client: service.client, logger, recordingsDir: values.recordings });
  const sessions = agentSessions({ client: service.client, agent, logger });
  const server = new AgentServer({
    port: Number(values.port),
    host,
    publicUrl: values['public-url'] ?? process.env.HIWAR_PUBLIC_URL,
    maxCalls,
    logger,
    sessions: analytics ? analytics.sessions(sessions) : sessions,
    admission: cluster?.admission,
    health: cluster?.health,
    deferReady: true,
    onCallEnded: analytics?.onCallEnded,
  });
  const tokens = new CallTokens({ secret: process.env.HIWAR_MEDIA_SECRET });
  const telephony = await import('../../transports/telephony/index.ts');
  const telephonyRoutes = telephony.telephonyPlugin(server.host, { tokens, open, mediaToken, logger, ledger });
  server.use(telephonyRoutes);
  const closers: (() => Promise<void>)[] = [async () => ledger.close?.()];
  if (values['audiosocket-port']) {
    const listen = (telephony as Record<string, unknown>).listenAudioSocket as
      | ((h: typeof server.host, o: { port: number; host: string; open: boolean; mediaToken?: string; logger: typeof logger }) => Promise<{ close(): Promise<void> }>)
      | undefined;
    if (!listen) throw new Error('AudioSocket is not available in this build');
    const as = await listen(server.host, { port: Number(values['audiosocket-port']), host, open, mediaToken, logger });
    closers.push(() => as.close());
  }
  const webrtc = await loadWebRtc({
    host: server.host,
    logger,
    // The token route needs HIWAR_WEBRTC_SECRET unless --open, as the telephony routes need theirs.
    open,
    rooms: cluster?.rooms,
    // Every instance of a cluster must check the tokens any of them issued.
    tokens: process.env.HIWAR_WEBRTC_TOKEN_KEY ? { signingKey: process.env.HIWAR_WEBRTC_TOKEN_KEY } : undefined,
  });
  if (webrtc.plugin) server.use(webrtc.plugin);
  const { url } = await server.listen();
  const member = clusterOptions
    ? await (await import('../cluster/cluster.ts'))
        .joinCluster({
          options: clusterOptions,
          apiKey: service.client.config.apiKey ?? '',
          address: (values['public-url'] ?? process.env.HIWAR_PUBLIC_URL ?? url).replace(/\/+$/, ''),
          load: () => ({ calls: server.calls.active, maxCalls, draining: server.calls.draining }),
          logger,
        })
        .catch(async (err: Error) => {
          await server.close();
          for (const c of closers) await c();
          await service.close();
          throw err;
        })
    : undefined;
  if (member) {
    cluster!.joined(member);
    await member.prepareBusyLine(busyLineSynth(service.client, agent, logger));
    member.startupFinished();
  } else await prepareLines(service.client, agent, logger);
  server.startupFinished();
  say(`hiwar serve: agent "${agent.name}" at ${url}`);
  if (member) say(`  cluster: instance ${member.id}, ${member.options.keySessions} sessions of the key shared (${member.options.sessionsPerCall} per call), queue ${member.options.queueSize} for ${member.options.queueWaitMs} ms`);
  say(`  telephony: ${telephony.providers.map((p) => `/telephony/${p.name}`).join(' ')}`);
  say(`  ${webrtc.message}`);
  say(`  health: ${url}/healthz (live) ${url}/readyz (ready)   metrics: ${url}/metrics`);
  if (analytics) say(`  ${analytics.describe}`);
  const webrtcAccess = webrtc.plugin ? { secret: !!process.env.HIWAR_WEBRTC_SECRET } : undefined;
  for (const line of accessLines({ open, host, platforms: telephonyRoutes.access, webrtc: webrtcAccess, ledgerWhere: ledger.where, audiosocket: !!values['audiosocket-port'] })) say(line);
  process.on('unhandledRejection', (err) => logger.error({ err: String((err as Error)?.message ?? err) }, 'unhandled rejection (the call it came from is on its own)'));
  await new Promise<void>((resolveStop) => {
    const stop = (signal: string) => {
      say(`${signal}: draining (${server.calls.active} calls running, no new calls)`);
      void (async () => {
        await member?.stopTaking();
        await server.drain();
        await member?.leave();
        await analytics?.close();
        for (const c of closers) await c();
        await service.close();
        resolveStop();
      })();
    };
    process.once('SIGTERM', () => stop('SIGTERM'));
    process.once('SIGINT', () => stop('SIGINT'));
  });
  say('drained; bye');
  return 0;
}

/** An agent module: a directory with index.ts or a file, exporting the agent as default (or `agent`). */
export async function loadAgent(path: string): Promise<Agent> {
  let file = resolve(path);
  if (existsSync(file) && statSync(file).isDirectory()) file = resolve(file, 'index.ts');
  if (!existsSync(file)) throw new Error(`no agent at ${path} (expected a directory with index.ts, or a .ts file)`);
  const mod = (await import(pathToFileURL(file).href)) as { default?: Agent; agent?: Agent };
  const agent = mod.default ?? mod.agent;
  if (!agent?.name) throw new Error(`${path} does not export an agent (default export or "agent")`);
  return agent;
}

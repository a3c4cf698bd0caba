import type { Agent } from '../session/agent.ts';
import type { Logger } from '../session/logger.ts';
import { serveAnalytics } from '../analytics/serve-setup.ts';
import { reviewRoutes } from '../review/routes.ts';
import { AGENT_SERVER_DEFAULTS, createAgentServer, type CreateAgentServerOptions } from '../server/create.ts';
import { countsOf, describeAwaited } from '../server/drain-wait.ts';
import { SERVER_LIMITS } from '../server/limits.ts';
import type { CallHost, PluginFactory, ProviderHooks } from '../server/types.ts';
import { accessLines, serveLedger } from './serve-security.ts';
import { otelRequested, startOtel } from '../observability/otel-setup.ts';
import { traceSessions } from '../observability/trace-sessions.ts';
import { serveLive } from './serve-live.ts';
import { generateKey } from '../sandbox/keys.ts';
import { loadAgent, sandboxPhrases } from './agent.ts';
import { parseCommand, publicUrlOption, UsageError, type Values } from './args.ts';
import { cliLogger } from './log.ts';
import { checkServiceKey, connectService } from './connect.ts';
import { loadServeConfig } from './serve-config.ts';
import { loadWebRtc } from './serve-webrtc.ts';
import { busyLineSynth, clusterOptionsOf, lateCluster } from './serve-cluster.ts';
import { prepareLines } from '../session/prepare-fixed-lines.ts';
import { isServeWorker, serveWorkers, workerSide } from './serve-workers.ts';
import { ensurePortsFree, PARENT_GONE, watchParent } from './serve-preflight.ts';
import { docPath } from '../docs-path.ts';
import { docsRoutes } from '../docs-site/routes.ts';
import { checkServeArgs, SERVE_FLAGS, SERVE_USAGE } from './serve-args.ts';

export { SERVE_USAGE };

/** `hiwar serve`: the agent behind every telephony platform (and WebRTC), on one port. */
export async function serveCommand(args: string[]): Promise<number> {
  const values = parseCommand(args, SERVE_FLAGS, SERVE_USAGE);
  if (!values) return 0;
  // What start-up opened, closed (last first) when a later step fails: a sandbox, ledger or
  // socket left open kept the process up after the error was printed (a port in use).
  const opened: (() => unknown)[] = [];
  try {
    return await serve(values, opened);
  } catch (err) {
    for (const close of opened.splice(0).reverse()) {
      try {
        await close();
      } catch {
        // The start-up's error is the one to tell.
      }
    }
    throw err;
  }
}

/** `hiwar serve` with its options parsed; `opened` gets what start-up opens until the server is up. */
async function serve(values: Values<typeof SERVE_FLAGS>, opened: (() => unknown)[]): Promise<number> {
  const { portFlag, maxCallsFlag, drainTimeoutS, audioSocketPort, modelIds, webrtcStart, phrasebookLines, recordingsDir } = await checkServeArgs(values);
  // Flags win over the config module, which wins over the defaults.
  const loadConfig = () => (values.config ? loadServeConfig(values.config) : Promise.resolve({} as CreateAgentServerOptions));
  // The calls and the cluster's sessions, from the flags, the environment and the config.
  const sizing = (config: CreateAgentServerOptions) => {
    const maxCalls = maxCallsFlag ?? config.maxCalls ?? AGENT_SERVER_DEFAULTS.maxCalls;
    // Each call may hold up to three of the key's sessions (see CLUSTER_DEFAULTS.sessionsPerCall): its
    // recognition and synthesis sockets, and an HTTP synthesis or a socket being replaced.
    const sandboxSessions = AGENT_SERVER_DEFAULTS.sessionsPerCall * (maxCalls + 1);
    const clusterOptions = clusterOptionsOf(values, SERVE_USAGE, process.env.HIWAR_API_KEY || config.client ? undefined : sandboxSessions);
    // The agent comes from --agent, the config's `agent`, or the built-in one unless `agentFor` chooses.
    const noAgent = values.agent === undefined && !config.agent && !!config.agentFor;
    if (clusterOptions && noAgent) throw new UsageError('cluster mode (REDIS_URL) needs one agent whose voice says the busy line: give --agent, or `agent` beside `agentFor` in the config', SERVE_USAGE);
    return { maxCalls, sandboxSessions, clusterOptions };
  };
  // A port in use is said before anything slow starts (the sandbox voices the agent's phrases
  // first), in one place for one process and for the primary of --workers, which checks for its
  // workers before forking any: so the primary reads a --config too, for its port, host and sizes.
  const checked = isServeWorker() ? undefined : await loadConfig();
  const checkedSizing = checked && sizing(checked);
  if (checked) await ensurePortsFree(values.host ?? checked.host ?? AGENT_SERVER_DEFAULTS.host, { port: portFlag ?? checked.port ?? AGENT_SERVER_DEFAULTS.port, flag: '--port' }, { port: audioSocketPort, flag: '--audiosocket-port' });
  // --workers N: this process forks N servers and waits for them (serve-workers.ts).
  const primary = await serveWorkers(values.workers, SERVE_USAGE, (m) => process.stdout.write(`${m}\n`), values.gc);
  if (primary !== undefined) return primary;
  const worker = workerSide();
  const config = checked ?? (await loadConfig());
  const say = worker?.say ?? ((m: string) => process.stdout.write(`${m}\n`));
  // Each worker's lines say which worker wrote them.
  const logger = worker ? (config.logger ?? cliLogger('info')).child({ worker: worker.index }) : (config.logger ?? cliLogger('info'));
  // Before the sandbox starts and any call (the sessions' traces record only with the SDK
  // registered); a missing package was said when the arguments were read. Failed exports go to the log.
  const otel = otelRequested(values.otel!) ? await startOtel(process.env, { logger }) : undefined;
  if (otel) opened.push(() => otel.shutdown());
  const agent: Agent | undefined = values.agent !== undefined ? (await loadAgent(values.agent)).agent : (config.agent ?? (config.agentFor ? undefined : (await loadAgent(undefined)).agent));
  const phrases = await sandboxPhrases(agent, undefined, [...phrasebookLines, ...((config.sandbox || undefined)?.phrasebook ?? [])]);
  // The model every call answers with; a malformed OPENAI_BASE_URL stops here, before the sandbox starts.
  const model = (await import('./llm.ts')).serverLlm({ configLlm: config.llm, agent, agentFor: config.agentFor });
  const { maxCalls, sandboxSessions, clusterOptions } = checkedSizing ?? sizing(config);
  const host = values.host ?? config.host ?? AGENT_SERVER_DEFAULTS.host;
  const publicUrl = values['public-url'] ?? config.publicUrl ?? publicUrlOption(undefined, SERVE_USAGE);
  // Signals are taken from here on: one that comes while the server starts (before the stop
  // below is ready) is kept and acted on once it is, instead of being lost to a listener a
  // library installed, which left the process running with nobody draining it.
  const signals = earlySignals(!!worker);
  const service = config.client
    ? { client: config.client, close: async () => {}, sandbox: false, embedded: undefined }
    : await connectService((m) => say(`(${m})`), { modelIds }, { keys: [{ key: generateKey(), credits: 100_000_000, concurrency: sandboxSessions }], phrasebook: phrases });
  opened.push(() => service.close());
  if (!service.sandbox && !config.client) await checkServiceKey(service.client, (m) => say(`(${m})`), { model: agent?.stt?.model });
  const cluster = clusterOptions ? lateCluster() : undefined;
  // Closed unless told otherwise: never inferred from the bind address.
  const open = values.open! || (config.open ?? false);
  // The config's own ledger is used as given; otherwise this process's, or Redis's with REDIS_URL.
  const own = config.ledger ? undefined : worker && !process.env.REDIS_URL ? worker.ledger() : await serveLedger(process.env.REDIS_URL, logger);
  const ledger = config.ledger ?? own!;
  opened.push(() => ledger.close?.());
  const ledgerWhere = own?.where ?? "the config's ledger";
  const mediaToken = values['media-token'] ?? config.mediaToken ?? process.env.HIWAR_MEDIA_TOKEN;
  const live = serveLive(logger, worker?.liveCalls);
  opened.push(() => live.close());
  const analytics = recordingsDir === undefined ? undefined : await serveAnalytics({ client: service.client, logger, recordingsDir });
  opened.push(() => analytics?.close());
  const telephony = await import('../../transports/telephony/index.ts');
  let webrtcMessage = 'WebRTC is off';
  let webrtcOn = false;
  let telephonyAccess: { line: string }[] = [];
  // Outbound calls (POST /calls) and campaigns (GET /campaigns/:id): closed without HIWAR_CALLS_SECRET, --open or not; on Redis with REDIS_URL.
  // --workers without Redis: the records are the primary's, so any worker takes any call's callbacks.
  const machineRecords = worker && !process.env.REDIS_URL ? { records: worker.callRecords(), recordsWhere: 'this machine (the primary process)' } : {};
  const outbound = await (await import('./serve-outbound.ts')).serveOutbound({ publicUrl, redisUrl: process.env.REDIS_URL, logger, ...machineRecords });
  opened.push(() => outbound.close());
  const outboundPlatforms = Object.keys(telephony.platformsFromEnv());
  let machineMetrics: (() => Promise<string>) | undefined;
  const teacher = service.embedded ? (await import('../server/sandbox-teacher.ts')).sandboxTeacher(service.embedded, phrases, logger) : undefined;
  const vocabulary = service.sandbox ? (await import('../sandbox/engines/builtin-vocabulary.ts')).VOCABULARY_WORDS : [];
  const app = await createAgentServer({
    ...config,
    agent,
    client: service.client,
    // Agents `agentFor` chooses are taught to the embedded sandbox before their first call.
    teachSandbox: teacher,
    port: portFlag ?? config.port ?? AGENT_SERVER_DEFAULTS.port,
    host,
    publicUrl,
    maxCalls,
    logger,
    llm: model.llm,
    fallbackLlm: config.fallbackLlm ?? model.fallbackLlm,
    open,
    mediaToken,
    ledger,
    tokens: config.tokens ?? { secret: process.env.HIWAR_MEDIA_SECRET },
    admission: worker ? worker.admission(maxCalls, cluster?.admission ?? config.admission, logger) : (cluster?.admission ?? config.admission),
    health: worker ? worker.health(cluster?.health ?? config.health, (): number => app.activeCalls) : (cluster?.health ?? config.health),
    // With --workers, a scrape reaching any worker gets the machine's figures.
    metricsText: worker ? () => machineMetrics!() : config.metricsText,
    deferReady: true,
    wrapSessions: (inner) => {
      const own = config.wrapSessions ? config.wrapSessions(inner) : inner;
      const traced = traceSessions(live.calls.sessions(analytics ? analytics.sessions(own) : own));
      // A campaign call's session here keeps its slot while it runs (docs/campaigns.md#on-a-cluster).
      return async (t) => {
        const s = await traced(t);
        outbound.callStarted(t.call);
        return s;
      };
    },
    onTransportEnded: (transport, report, outcome) => {
      analytics?.onCallEnded(transport, report, outcome);
      outbound.callEnded(transport.call, report);
      config.onTransportEnded?.(transport, report, outcome);
    },
    plugins: [
      ...(values.docs ? [docsRoutes()] : []),
      (ctx) => {
        const routes = telephony.telephonyRoutes({ jambonz: telephony.jambonzOptionsFromEnv() })(ctx);
        telephonyAccess = routes.access;
        return routes;
      },
      // Before the outbound routes: their GET /calls/:id would take /calls/live, and a browser's GET /calls… is the review's.
      live.plugin,
      ...(analytics ? [reviewRoutes({ store: analytics.store })] : []),
      outbound.routes,
      ...(audioSocketPort !== undefined ? [audioSocketPlugin(telephony, audioSocketPort, host)] : []),
      async (ctx) => {
        const webrtc = await loadWebRtc({
          host: ctx.host,
          logger,
          // Beyond loopback the token route needs HIWAR_WEBRTC_SECRET, as the telephony routes need theirs.
          open: ctx.open,
          rooms: cluster?.rooms,
          // Every instance of a cluster must check the tokens any of them issued.
          tokens: process.env.HIWAR_WEBRTC_TOKEN_KEY ? { signingKey: process.env.HIWAR_WEBRTC_TOKEN_KEY } : undefined,
          // The page lists what the offline recognizer hears now: the phrases (those of agents
          // taught since the start too), then the words it hears in anyone's voice.
          phrases: service.sandbox ? () => [...new Set([...(teacher?.known() ?? phrases), ...vocabulary])] : [],
          start: webrtcStart,
        });
        webrtcMessage = webrtc.message;
        webrtcOn = !!webrtc.plugin;
        return webrtc.plugin;
      },
      ...(config.plugins ?? []),
    ],
  });
  opened.push(() => app.close());
  machineMetrics = worker?.metrics(app.server.metrics.registry);
  const { url } = await app.listen();
  const member = clusterOptions
    ? await (await import('../cluster/cluster.ts'))
        .joinCluster({
          options: clusterOptions,
          apiKey: service.client.config.apiKey ?? '',
          address: (publicUrl ?? url).replace(/\/+$/, ''),
          load: () => ({ calls: app.activeCalls, maxCalls, draining: app.server.calls.draining }),
          logger,
        })
    : undefined;
  if (member) {
    opened.push(() => member.leave());
    cluster!.joined(member);
    await live.joined(process.env.REDIS_URL!, member.options.prefix, member.id);
    await member.prepareBusyLine(busyLineSynth(service.client, agent!, logger));
    member.startupFinished();
  } else if (agent) await prepareLines(service.client, agent, logger);
  app.startupFinished();
  // Up: from here the drain below closes them.
  opened.length = 0;
  say(`hiwar serve: ${agent && !config.agentFor ? `agent "${agent.name}"` : `agents chosen per call by ${values.config}`} at ${url}`);
  if (member) say(`  cluster: instance ${member.id}, ${member.options.keySessions} sessions of the key shared (${member.options.sessionsPerCall} per call), queue ${member.options.queueSize} for ${member.options.queueWaitMs} ms`);
  say(`  telephony: ${telephony.providers.map((p) => `/telephony/${p.name}`).join(' ')}`);
  if (model.line) say(`  language model: ${model.line}`);
  say(`  ${webrtcMessage}`);
  const metricsAccess = (config.metricsToken ?? process.env.HIWAR_METRICS_TOKEN) ? ' (bearer HIWAR_METRICS_TOKEN)' : ' (open: HIWAR_METRICS_TOKEN closes it)';
  say(`  health: ${url}/healthz (live) ${url}/readyz (ready)   metrics: ${url}/metrics${metricsAccess}`);
  if (analytics) say(`  ${analytics.describe}`);
  if (otel) say(`  traces: OpenTelemetry over OTLP HTTP to ${otel.url}`);
  say(`  live calls: ${url}/calls/live`);
  if (values.docs) say(`  guide: ${url}/docs/ (the docs/ pages shipped with the package, as HTML)`);
  const webrtcAccess = webrtcOn ? { secret: !!process.env.HIWAR_WEBRTC_SECRET } : undefined;
  const limits = { ...SERVER_LIMITS, ...config.limits };
  say(`  slow clients: request heads cut after ${limits.headersTimeoutMs / 1000} s, whole requests after ${limits.requestTimeoutMs / 1000} s, untaken upgrades after ${limits.upgradeIdleMs / 1000} s idle (${docPath('docs/security.md')})`);
  for (const line of accessLines({ open, host, platforms: telephonyAccess, webrtc: webrtcAccess, ledgerWhere, audiosocket: audioSocketPort, calls: { secret: !!process.env.HIWAR_CALLS_SECRET, platforms: outboundPlatforms }, review: analytics ? { secret: !!process.env.HIWAR_REVIEW_SECRET } : undefined, live: { cluster: !!member }, docs: values.docs! })) say(line);
  worker?.ready(url);
  process.on('unhandledRejection', (err) => logger.error({ err: String((err as Error)?.message ?? err) }, 'unhandled rejection (the call it came from is on its own)'));
  await new Promise<void>((resolveStop) => {
    let stopping = false;
    // Once: a worker may be told twice (the terminal's SIGINT and the primary's SIGTERM). A second
    // SIGINT (Ctrl-C again) still ends the process at once, as Node's default does.
    const stop = (signal: string) => {
      if (stopping) return;
      stopping = true;
      // Answered calls whose media has not connected yet, and placed calls still ringing, are waited for too: say so
      // (a worker of --workers tells its primary, which says it for the machine).
      const w = countsOf(app.server.calls.waitingFor());
      worker?.draining({ calls: app.activeCalls, ...w });
      say(`${signal}: draining (${app.activeCalls} calls running${describeAwaited(w, Date.now())}, no new calls)`);
      void (async () => {
        await member?.stopTaking();
        await app.drain(drainTimeoutS === undefined ? undefined : drainTimeoutS * 1000);
        await member?.leave();
        await live.close();
        await analytics?.close();
        await otel?.shutdown().catch((err: Error) => logger.warn({ err: err.message }, 'the last spans could not be sent'));
        await ledger.close?.();
        await service.close();
        resolveStop();
      })();
    };
    signals.then(stop);
  });
  signals.stop();
  say('drained; bye');
  worker?.done();
  return 0;
}

/** Asterisk's AudioSocket (TCP, its own port) as a plugin with nothing on HTTP: the server closes it. */
function audioSocketPlugin(telephony: typeof import('../../transports/telephony/index.ts'), port: number, host: string): PluginFactory {
  return async (ctx) => {
    const listen = (telephony as Record<string, unknown>).listenAudioSocket as
      | ((h: CallHost, o: { port: number; host: string; open: boolean; mediaToken?: string; logger: Logger; hooks?: ProviderHooks }) => Promise<{ close(): Promise<void> }>)
      | undefined;
    if (!listen) throw new Error('AudioSocket is not available in this build');
    const as = await listen(ctx.host, { port, host, open: ctx.open, mediaToken: ctx.mediaToken, logger: ctx.logger, hooks: ctx.providerHooks.asterisk });
    return { name: 'audiosocket', close: () => as.close() };
  };
}

/**
 * SIGTERM/SIGINT from now on, handed to `then` (at once if one came already); and, started by
 * npm, the npm process going away (serve-preflight.ts): a worker goes with its primary instead.
 */
function earlySignals(inWorker: boolean): { then(stop: (signal: string) => void): void; stop(): void } {
  let got: string | undefined;
  let handler: ((signal: string) => void) | undefined;
  const on = (signal: string) => () => (handler ? handler(signal) : (got ??= signal));
  // A worker may be told twice (the terminal's SIGINT and the primary's SIGTERM): it keeps
  // listening for SIGTERM. A second SIGINT (Ctrl-C again) ends the process at once, as Node's default does.
  process[inWorker ? 'on' : 'once']('SIGTERM', on('SIGTERM'));
  process.once('SIGINT', on('SIGINT'));
  const unwatch = inWorker ? () => {} : watchParent(on(PARENT_GONE));
  return {
    then(stop) {
      handler = stop;
      if (got) stop(got);
    },
    stop: unwatch,
  };
}

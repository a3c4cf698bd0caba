import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { Subject, type Observable } from '../rx.ts';
import type { Llm } from '../llm/types.ts';
import type { ServiceClient } from '../service/client.ts';
import type { Agent } from '../session/agent.ts';
import { agentProblem } from '../session/check-agent.ts';
import type { CallReport, SessionEvent } from '../session/events.ts';
import { createLogger, logFormatFromEnv, type Logger } from '../session/logger.ts';
import type { Clock } from '../transport/clock.ts';
import type { CallInfo, Transport } from '../transport/types.ts';
import { agentChoice } from './agent-choice.ts';
import type { CallAdmission } from './call-admission.ts';
import type { SessionFactory } from './calls.ts';
import type { ServerMetrics } from './metrics.ts';
import type { ServerLimits } from './limits.ts';
import { AgentServer, type AttachOptions } from './server.ts';
import { serviceOf, type Service, type ServerSandboxOptions } from './service.ts';
import { ServiceReachability, type ModelProbeOptions, type ServiceProbeOptions } from './service-reachability.ts';
import { ModelProbes } from './model-probes.ts';
import { prepareLines } from '../session/prepare-fixed-lines.ts';
import { failureLine } from './failure-line.ts';
import { CallTokens, type CallTokenOptions } from './tokens.ts';
import { MemoryTokenLedger, type TokenLedger } from './token-ledger.ts';
import { type CallHost, type CallOutcome, type PluginContext, type PluginFactory, type ProviderHooks, type ServerPlugin, type ServerWarning } from './types.ts';
import { serverOptionProblem } from './option-checks.ts';

/** Defaults of `createAgentServer`'s options, in one place. */
export const AGENT_SERVER_DEFAULTS = {
  /** Port of `listen()`. */
  port: 8080,
  /** Address of `listen()`: loopback, so nothing is reachable from elsewhere until you say so. */
  host: '127.0.0.1',
  /** Calls at once; further calls are refused as `full`. */
  maxCalls: 200,
  /** Routes demand their secrets (webhook signatures, media tokens): set `open: true` only on loopback. */
  open: false,
  /** Serve `/metrics`. */
  metrics: true,
  /** Serve `/healthz` and `/readyz`. */
  probes: true,
  /**
   * Level of the default logger (pino, to stderr), unless HIWAR_LOG_LEVEL says otherwise. It
   * writes pino's JSON lines, or the `hiwar` commands' readable lines with HIWAR_LOG_FORMAT=text.
   */
  logLevel: 'warn',
  /**
   * Sessions of the service key one call may hold (recognition and synthesis sockets, and an HTTP
   * synthesis or a socket being replaced): the embedded sandbox's key allows `maxCalls` × this.
   */
  sessionsPerCall: 3,
} as const;

/** Options of `createAgentServer`; also what a `hiwar serve --config` module default-exports. */
export interface CreateAgentServerOptions {
  /** The agent of every call (or of the calls `agentFor` leaves to it). */
  agent?: Agent;
  /**
   * Chooses the agent of each call from what is known of it: `call.to` (the number dialled),
   * `call.provider` (the route it came in by: 'twilio', 'webrtc'…), `call.parameters`. Undefined
   * leaves the call to `agent`; with no `agent` either, or when it throws, the call is refused
   * (a `call_refused` event; it never touches another call).
   */
  agentFor?: (call: CallInfo) => Agent | undefined | Promise<Agent | undefined>;
  /** The voice service. Default: `HIWAR_API_KEY` from the environment, else the embedded sandbox. */
  client?: ServiceClient;
  /**
   * The embedded sandbox used when there is no client and no `HIWAR_API_KEY`. Its offline
   * recognizer knows what it voiced, the phrases of `agent` (its intents' examples and those of
   * the agents in its `handoffs`), those of each agent `agentFor` chooses (taught before that
   * agent's first call) and `phrasebook`'s; the lines it voices are kept on disk for the next
   * start as `hiwar serve`'s are (`voicedLines`). false: refuse to start without a key instead.
   */
  sandbox?: ServerSandboxOptions | false;
  /**
   * With a `client` of an embedded sandbox started elsewhere in this process (`hiwar serve` starts
   * its own): teaches it the phrases of an agent `agentFor` chose, before that agent's first call
   * (`sandboxTeacher`, src/server/sandbox-teacher.ts). The embedded sandbox `createAgentServer`
   * starts itself is taught without it.
   */
  teachSandbox?: (agent: Agent, callId: string) => Promise<void>;
  /** Adapters that bring calls in: plugins, or factories given the server (`telephonyRoutes()`). */
  plugins?: (ServerPlugin | PluginFactory)[];
  /** REST hooks by provider name (transfer on Telnyx Call Control, Exotel, FreeSWITCH, Asterisk). */
  providerHooks?: Record<string, ProviderHooks>;
  /** See `PluginContext.open`. @default false */
  open?: boolean;
  /** A fixed media token for platforms without webhooks (FreeSWITCH, Asterisk, jambonz, pcm). */
  mediaToken?: string;
  /** The per-call media token issuer, or its options (a `secret` shared by a cluster's instances). */
  tokens?: CallTokens | CallTokenOptions;
  /**
   * Where spent media tokens and webhook nonces are remembered, so a token opens one call: this
   * process by default; a cluster shares one (`connectTokenLedger` on Redis).
   */
  ledger?: TokenLedger;
  /** Port of `listen()`. @default 8080 */
  port?: number;
  /** Address of `listen()`. @default '127.0.0.1' */
  host?: string;
  /** The address platforms reach the server at, for webhook answers. Default: http:// + the Host header. */
  publicUrl?: string;
  /** @default 200 */
  maxCalls?: number;
  /** @default true */
  metrics?: boolean;
  /** What `/metrics` answers; default the server's own figures. See `AgentServerOptions.metricsText`. */
  metricsText?: () => Promise<string>;
  /** The bearer token `/metrics` requires. Default: `HIWAR_METRICS_TOKEN`, else none (open). See `AgentServerOptions.metricsToken`. */
  metricsToken?: string;
  /** @default true */
  probes?: boolean;
  /** A pino logger. Default: level HIWAR_LOG_LEVEL, else 'warn', to stderr. */
  logger?: Logger;
  /** The language model of every session, over each agent's own (default: each agent's `llm`, else its scripted intents). */
  llm?: Llm;
  /**
   * The model of an agent that has no `llm` of its own, when `llm` is not given (default: its
   * scripted intents); the agents it hands the call to without theirs answer with it too.
   * `hiwar serve` gives OPENAI_API_KEY's model here when the config has `agentFor`.
   */
  fallbackLlm?: Llm;
  /** The sessions' clock (a scaled clock in tests). */
  clock?: Clock;
  /** Told once per call after it ended (post-call analytics); what it throws becomes a `hook_failed` event. */
  onCallEnded?(call: CallInfo, report: CallReport | undefined, outcome: CallOutcome): void;
  /** Asked before each call (cluster mode). */
  admission?: CallAdmission;
  /** `/readyz` from the instance's own load (cluster mode). */
  health?: () => { ready: boolean; body: Record<string, unknown> };
  /**
   * `/readyz` says `starting` until `startupFinished()`. Start-up work is then yours: with it,
   * `createAgentServer` does not render the agent's out-of-service line (call `prepareLines`
   * of `hiwar/server` before `startupFinished()`, as `hiwar serve` does). @default false
   */
  deferReady?: boolean;
  /**
   * `/readyz` checks that the voice service can be reached (`SERVICE_PROBE_DEFAULTS`): what the
   * calls' sockets met, else one `GET /models` at most every `maxAgeMs`. false: not checked.
   */
  serviceProbe?: ServiceProbeOptions | false;
  /**
   * `/readyz` tells whether the models can be reached, in its body's `model` (`MODEL_PROBE_DEFAULTS`):
   * one `Llm.probe` (`OpenAiLlm`: `GET {baseURL}/models`) per distinct endpoint at most every
   * `maxAgeMs`: at start `llm`, else `agent.llm`, else `fallbackLlm`; with `agentFor`, each chosen
   * agent's model too, from its first call on. The body's `model` is the worst, with `endpoints`
   * listing each once there are several. 503 only for the states of `notReadyOn` (none by default).
   * false: not checked.
   */
  modelProbe?: ModelProbeOptions | false;
  /** Time limits for slow clients on the server's port; see `SERVER_LIMITS` (docs/security.md). */
  limits?: Partial<ServerLimits>;
  /** Wraps each call's session factory (analytics recording). */
  wrapSessions?: (inner: SessionFactory) => SessionFactory;
  /** Told with each ended call's transport (analytics' own hook); see `CallManagerOptions`. */
  onTransportEnded?(transport: Transport, report: CallReport | undefined, outcome: CallOutcome): void;
}

/** What the server tells about its calls, besides the logs. */
export type ServerEvent =
  | { type: 'call_started'; call: CallInfo; agent: string }
  | { type: 'call_ended'; call: CallInfo; outcome: CallOutcome; report?: CallReport }
  | { type: 'call_refused'; call: CallInfo; reason: string }
  /**
   * The call's voice service refused (the key, its wallet) or failed for good: its caller hears
   * the agent's out-of-service line, then the call ends (`reason`: the session's). `/readyz` says
   * what is known of the service meanwhile (docs/scaling.md).
   */
  | { type: 'out_of_service'; call: CallInfo; reason: string }
  /** No line is free (cluster mode): the caller waits in the queue at `position` (1: next) and hears the wait line. */
  | { type: 'call_waiting'; call: CallInfo; position: number }
  /** A call showed a set-up the user must fix (`ServerWarning`: a platform that needs a hangup hook). */
  | ({ type: 'warning' } & ServerWarning)
  | { type: 'hook_failed'; hook: 'agentFor' | 'onCallEnded'; call: CallInfo; error: string }
  /**
   * A tool call of a call's agent, as its session told it, with the `call` it belongs to: started
   * (`tool_started`), finished (`tool`), or given up and answering after all (`tool_late`; with
   * `afterEnd` once the call had ended). `args` and `outcome` hold what the caller gave and what
   * the tool returned: data for your code, which the server logs nowhere.
   */
  | (ToolEvent & { call: CallInfo });

/** A session's events about its tools, which the server's `events$` forwards. */
export type ToolEvent = Extract<SessionEvent, { type: 'tool_started' | 'tool' | 'tool_late' }>;

/** The session events `events$` forwards as they are (with the call). */
const TOOL_EVENTS: ReadonlySet<SessionEvent['type']> = new Set(['tool_started', 'tool', 'tool_late']);

/** A composed agent server: mount it (`handler`, `attach`) or let it listen; then drain or close. */
export interface AgentServerApp {
  /** The underlying server (plugins, call manager, readiness). */
  readonly server: AgentServer;
  /** What plugins hand calls to. */
  readonly host: CallHost;
  /** The voice service the sessions use (the embedded sandbox's, when it runs). */
  readonly client: ServiceClient;
  /** The embedded sandbox's URL, when it was started. */
  readonly sandboxUrl?: string;
  readonly metrics: ServerMetrics;
  readonly events$: Observable<ServerEvent>;
  /** Calls running now. */
  readonly activeCalls: number;
  /** For `http.createServer(handler)` and Express's `app.use(handler)` (`next` given: unknown routes go on). */
  readonly handler: (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void;
  /** Answers the request when it is the server's (true); false leaves it untouched (Fastify's onRequest). */
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
  /** Takes a WebSocket upgrade for one of the plugins' routes (true); false leaves the socket alone. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Joins an `http.Server` you own (its upgrades, and its requests when it has no handler). */
  attach(server: Server, opts?: AttachOptions): AgentServerApp;
  /** Listens on a port of its own. */
  listen(at?: { port?: number; host?: string }): Promise<{ port: number; host: string; url: string }>;
  /** `/readyz` may say ready (with `deferReady`). */
  startupFinished(): void;
  /** No new calls; running calls finish (at most `timeoutMs`), then everything closes. */
  drain(timeoutMs?: number): Promise<void>;
  /** Closes plugins, its own port and the embedded sandbox now; servers you own stay up. */
  close(): Promise<void>;
}

/**
 * The agent server, composed: the voice service (or the embedded sandbox), sessions with the agent
 * chosen per call, the plugins, metrics and probes. Nothing listens until `listen()`; mount it
 * in your own server with `attach` or `handler` instead.
 *
 * @example
 * const voice = await createAgentServer({ agent, plugins: [telephonyRoutes()] });
 * const server = http.createServer((req, res) => voice.handler(req, res));
 * voice.attach(server); // the media WebSockets
 * server.listen(8080);
 */
export async function createAgentServer(options: CreateAgentServerOptions): Promise<AgentServerApp> {
  const o = resolved(options);
  if (!o.agent && !o.agentFor) throw new TypeError('createAgentServer needs an agent: give `agent`, or `agentFor(call)` choosing one per call');
  const problem = o.agent && agentProblem(o.agent);
  if (problem) throw new TypeError(`createAgentServer: \`agent\` is not an Agent (${problem})`);
  if (o.agentFor && typeof o.agentFor !== 'function') throw new TypeError('createAgentServer: `agentFor` must be a function of the call');
  // Said here, before anything starts, naming the option.
  const optionProblem = serverOptionProblem(o);
  if (optionProblem) throw new TypeError(`createAgentServer: ${optionProblem}`);
  const logger = options.logger ?? createLogger(process.env.HIWAR_LOG_LEVEL ?? o.logLevel, { format: logFormatFromEnv('json') });
  const service = await serviceOf(options, o.maxCalls * o.sessionsPerCall + o.sessionsPerCall, logger);
  const opened: { server?: AgentServer } = {};
  try {
    return await compose(o, logger, service, opened);
  } catch (err) {
    // Whatever start-up opened closes before the error reaches the caller (an embedded sandbox
    // left listening kept a newcomer's process up after the error); the start-up's error is the one told.
    await opened.server?.close().catch((e: Error) => logger.warn({ err: e.message }, 'closing the server after a failed start-up failed'));
    await service.close().catch((e: Error) => logger.warn({ err: e.message }, 'closing the embedded sandbox after a failed start-up failed'));
    throw err;
  }
}

/** The server of `createAgentServer` on its service; `opened.server` is set as soon as there is one to close. */
async function compose(o: Resolved, logger: Logger, service: Service, opened: { server?: AgentServer }): Promise<AgentServerApp> {
  const events = new Subject<ServerEvent>();
  const emit = (e: ServerEvent) => {
    // A subscriber that throws is the user's bug; it must not end a call.
    try {
      events.next(e);
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'a server event subscriber failed');
    }
  };

  const models = modelProbes(o);
  const choice = agentChoice({ ...o, client: service.client, teach: service.teach, logger, models, emit });
  const chosen = choice.sessions;

  const ledger = o.ledger ?? new MemoryTokenLedger();
  const server = new AgentServer({
    port: o.port,
    host: o.host,
    logger,
    maxCalls: o.maxCalls,
    publicUrl: o.publicUrl,
    metrics: o.metrics,
    metricsText: o.metricsText,
    metricsToken: o.metricsToken,
    probes: o.probes,
    admission: o.admission,
    health: o.health,
    deferReady: o.deferReady,
    ...(o.serviceProbe === false ? {} : { service: serviceReachability(service.client, o.serviceProbe, o.agent?.stt?.model) }),
    ...(models ? { model: models } : {}),
    limits: o.limits,
    sessions: o.wrapSessions ? o.wrapSessions(chosen) : chosen,
    sayFailure: failureLine(service.client, (t) => choice.agentOf(t) ?? o.agent, o.clock),
    onCallWaiting: (transport, position) => emit({ type: 'call_waiting', call: transport.call, position }),
    onWarning: (w) => emit({ type: 'warning', ...w }),
    ledger,
    onSessionEvent: (e, transport) => {
      if (e.type === 'out_of_service') emit({ type: 'out_of_service', call: transport.call, reason: e.reason });
      else if (TOOL_EVENTS.has(e.type)) emit({ ...(e as ToolEvent), call: transport.call });
    },
    onCallEnded: (transport, report, outcome) => {
      const call = transport.call;
      try {
        o.onTransportEnded?.(transport, report, outcome);
      } catch (err) {
        logger.warn({ err: (err as Error).message }, 'call-ended hook failed');
      }
      emit({ type: 'call_ended', call, outcome, ...(report ? { report } : {}) });
      try {
        o.onCallEnded?.(call, report, outcome);
      } catch (err) {
        emit({ type: 'hook_failed', hook: 'onCallEnded', call, error: (err as Error)?.message ?? String(err) });
      }
    },
  });
  opened.server = server;

  const ctx: PluginContext = {
    host: server.host,
    logger,
    open: o.open,
    tokens: o.tokens instanceof CallTokens ? o.tokens : new CallTokens(o.tokens),
    mediaToken: o.mediaToken,
    ledger,
    providerHooks: o.providerHooks ?? {},
    agentOf: async (call) => (await o.agentFor?.(call)) ?? o.agent,
  };
  for (const p of o.plugins ?? []) {
    const plugin = typeof p === 'function' ? await p(ctx) : p;
    if (plugin) server.use(plugin);
  }
  // The out-of-service line is rendered while the service still answers: a caller who comes
  // once it refuses (an empty wallet) hears it at once. Agents chosen per call render theirs with their first call.
  if (o.agent && !o.deferReady) await prepareLines(service.client, o.agent, logger);

  let closed: Promise<void> | undefined;
  const closeAll = (drainMs?: number) =>
    (closed ??= (async () => {
      if (drainMs !== undefined) await server.drain(drainMs);
      else await server.close();
      events.complete();
      await service.close();
    })());
  const app: AgentServerApp = {
    server,
    host: server.host,
    client: service.client,
    ...(service.url ? { sandboxUrl: service.url } : {}),
    metrics: server.metrics,
    events$: events.asObservable(),
    get activeCalls() {
      return server.calls.active;
    },
    handler: server.handler,
    handle: (req, res) => server.handle(req, res),
    handleUpgrade: (req, socket, head) => server.handleUpgrade(req, socket, head),
    attach(http, opts) {
      server.attach(http, opts);
      return app;
    },
    listen: (at) => server.listen(at),
    startupFinished: () => server.startupFinished(),
    drain: (timeoutMs = 600_000) => closeAll(timeoutMs),
    close: () => closeAll(),
  };
  return app;
}

/**
 * `/readyz`'s service probe: `GET /models`, and whether the key may open `/listen` (with the
 * agent's recognition model when one agent is known), asked without audio until it is found open
 * (src/server/service-reachability.ts). A client of your own without `probeListen` is asked `GET /models` only.
 */
function serviceReachability(client: ServiceClient, opts: ServiceProbeOptions | undefined, model: string | undefined): ServiceReachability {
  const listen = typeof client.probeListen === 'function' ? (o: { timeoutMs: number }) => client.probeListen({ ...o, ...(model ? { model } : {}) }) : undefined;
  return new ServiceReachability((call) => client.listModels(call), opts, Date.now, listen);
}

/**
 * The probes of the server's models (`modelProbe`): the model known at start (`llm`, else the
 * agent's, else `fallbackLlm`); with `agentFor`, each chosen agent's joins as its call starts.
 */
function modelProbes(o: Resolved): ModelProbes | undefined {
  if (o.modelProbe === false) return undefined;
  const probes = new ModelProbes(o.modelProbe);
  probes.add(o.llm ?? o.agent?.llm ?? o.fallbackLlm);
  return probes;
}

/** The options over their defaults. */
const resolved = (options: CreateAgentServerOptions) => ({ ...AGENT_SERVER_DEFAULTS, ...withoutUndefined(options) });
type Resolved = ReturnType<typeof resolved>;

/** Options with their undefined fields dropped, so a default is not replaced by `undefined`. */
function withoutUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

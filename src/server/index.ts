/**
 * `hiwar/server`: the agent server as a library. `createAgentServer` composes it (the voice
 * service or the embedded sandbox, the agent per call, plugins, metrics, probes); mount it on your
 * own `http.Server` (`attach`), inside Express (`app.use(handler)`) or Fastify (`handle` in an
 * `onRequest` hook, `attach(app.server)` for WebSockets), or let it listen. The telephony routes
 * come from `hiwar/transports/telephony` (`telephonyRoutes()`), WebRTC from
 * `hiwar/transports/webrtc`. See docs/server.md.
 */

/** Composes the server from options (the usual way in). */
export { createAgentServer, AGENT_SERVER_DEFAULTS, type CreateAgentServerOptions, type AgentServerApp, type ServerEvent, type ToolEvent } from './create.ts';
export type { ServerSandboxOptions } from './service.ts';
/** The server itself: routes, plugins, probes, mounting (`createAgentServer` builds one). */
export { AgentServer, type AgentServerOptions, type AttachOptions } from './server.ts';
/** Runs many calls in one process, each its own session; drains on shutdown. */
export type { DrainWaiting } from './drain-wait.ts';
export { CallManager, DRAIN_DEFAULTS, type CallManagerOptions, type SessionFactory, type RunningSession } from './calls.ts';
export type { CallAdmission, AdmissionLease, AdmitOptions } from './call-admission.ts';
export { outcomeOf } from './call-end.ts';
/** The agent's out-of-service line rendered ahead of calls (start-up work of a server made with `deferReady`). */
export { prepareLines, prepareFixedLines } from '../session/prepare-fixed-lines.ts';
/** One `AgentSession` per call for a fixed agent. */
export { agentSessions } from './agent-sessions.ts';
/** Prometheus metrics fed from the calls' session events. */
export { ServerMetrics, serviceStatus } from './metrics.ts';
/** Per-call media tokens (sealed, AES-256-GCM), and the checks the routes use. */
export { CallTokens, safeEqual, isLoopback, type TokenClaims, type CallTokenOptions, type TokenKind, type MintOptions } from './tokens.ts';
/** Where spent tokens and nonces are remembered: this process (a cluster shares one in Redis: docs/security.md). */
export { MemoryTokenLedger, MEMORY_LEDGER_DEFAULTS, type TokenLedger } from './token-ledger.ts';
/** Limits for slow and greedy clients: time limits of the server's port, a per-address rate limit. */
export { SERVER_LIMITS, RateLimiter, type ServerLimits, type RateLimitOptions } from './limits.ts';
export { SERVICE_PROBE_DEFAULTS, MODEL_PROBE_DEFAULTS, type ServiceProbeOptions, type ModelProbeOptions, type ServiceStatus, type ReachabilityState } from './service-reachability.ts';
export type { ModelsStatus } from './model-probes.ts';
/** What plugins see of the server, and how they are made. */
export {
  CallRefused,
  type HoldOptions,
  type PromiseOptions,
  type NoMediaResult,
  type CallHost,
  type CallObserver,
  type CallOutcome,
  type ServerPlugin,
  type PluginContext,
  type PluginFactory,
  type ProviderHooks,
  type ServerWarning,
} from './types.ts';
/** OpenTelemetry export in your own server, as `hiwar serve --otel` sets it up (docs/observability.md). */
export { startTracing, type OtelSetup } from '../observability/start-tracing.ts';
/** The guide shipped with the package, as HTML pages at /docs (`hiwar serve --docs`). */
export { docsRoutes, DOCS_SITE_DEFAULTS, type DocsRoutesOptions } from '../docs-site/routes.ts';

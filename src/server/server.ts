import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from '../session/logger.ts';
import type { CallAdmission } from './call-admission.ts';
import { CallManager, type CallManagerOptions, type SessionFactory } from './calls.ts';
import { SERVER_LIMITS, type ServerLimits } from './limits.ts';
import { ServerMetrics } from './metrics.ts';
import { bearerMatches } from './secret-compare.ts';
import type { ServiceReachability, ServiceStatus } from './service-reachability.ts';
import type { ModelProbes } from './model-probes.ts';
import { warmUpNormalizer } from '../text/warm-up.ts';
import type { CallHost, ServerPlugin } from './types.ts';

/** Options of the agent server. */
export interface AgentServerOptions {
  /** @default 8080 */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  sessions: SessionFactory;
  logger: Logger;
  /** Calls at once. @default 200 */
  maxCalls?: number;
  /**
   * The address platforms reach this server at (`https://agent.example.com`), used in webhook
   * answers. Default: `http://` + the request's Host header.
   */
  publicUrl?: string;
  /** Serve `/metrics` (it tells call volumes to whoever can reach the port). @default true */
  metrics?: boolean;
  /**
   * What `/metrics` answers, in Prometheus' text format. Default: this server's own figures
   * (`server.metrics`); `hiwar serve --workers` answers with the whole machine's.
   */
  metricsText?: () => Promise<string>;
  /**
   * A bearer token `/metrics` requires (`Authorization: Bearer <token>`, Prometheus'
   * `authorization` / `bearer_token` setting); 401 without it. Default: `HIWAR_METRICS_TOKEN`,
   * else none: `/metrics` answers anyone who reaches the port.
   */
  metricsToken?: string;
  /**
   * Serve `/healthz` and `/readyz` (turn off when the app you mount the server in has its own).
   * @default true
   */
  probes?: boolean;
  /** Asked before each call (cluster mode). See `CallManagerOptions.admission`. */
  admission?: CallAdmission;
  /**
   * `/readyz` from the instance's own load (cluster mode): not ready answers 503 with the body.
   * Default: 503 only while starting or draining.
   */
  health?: () => { ready: boolean; body: Record<string, unknown> };
  /**
   * `/readyz` says `starting` (503) after `listen()` until `startupFinished()`: for work that
   * follows the listen (rendering the agent's fixed lines, joining a cluster).
   * @default false: ready once listening
   */
  deferReady?: boolean;
  /**
   * The voice service's reachability: `/readyz` says what it knows in its body's `service`, and is
   * 503 for the states of its `notReadyOn` (`createAgentServer` gives one; see SERVICE_PROBE_DEFAULTS).
   */
  service?: Pick<ServiceReachability, 'status' | 'observe' | 'notReadyOn'>;
  /** The model's reachability, in the body's `model` (503 only for its `notReadyOn`: MODEL_PROBE_DEFAULTS). */
  model?: Pick<ModelProbes, 'status' | 'notReadyOn'>;
  /** Told when each call has ended (post-call analytics); see `CallManagerOptions`. */
  onCallEnded?: CallManagerOptions['onCallEnded'];
  /** See `CallManagerOptions.sayFailure`. */
  sayFailure?: CallManagerOptions['sayFailure'];
  /** Told every session event of every call; see `CallManagerOptions.onSessionEvent`. */
  onSessionEvent?: CallManagerOptions['onSessionEvent'];
  /** See `CallManagerOptions.onCallWaiting`. */
  onCallWaiting?: CallManagerOptions['onCallWaiting'];
  /** See `CallManagerOptions.onWarning`. */
  onWarning?: CallManagerOptions['onWarning'];
  /** See `CallManagerOptions.ledger`. */
  ledger?: CallManagerOptions['ledger'];
  /**
   * Time limits for slow clients (request head, body, untaken upgrades); see `SERVER_LIMITS`.
   * The head and body limits apply to the server's own port (`listen()`); the upgrade limit to
   * attached servers too.
   */
  limits?: Partial<ServerLimits>;
}

/** How `attach` joins a server you own. */
export interface AttachOptions {
  /**
   * Also answer the server's HTTP requests (routes the agent server does not know get 404).
   * @default true when the server has no 'request' listener yet (a bare `http.createServer()`),
   * false when it has one (an Express or Fastify app): mount `handler` in that app instead.
   */
  requests?: boolean;
}

const NO_STORE = { 'content-type': 'application/json', 'cache-control': 'no-store' };

/**
 * The agent server: one HTTP port for every way calls come in. Plugins (telephony routes, WebRTC
 * rooms) get the requests and upgrades they recognize; the server adds `/healthz` (live: the
 * process answers), `/readyz` (ready for new calls), `/metrics` and a drain on shutdown. It knows
 * nothing of providers.
 *
 * It owns a listening port (`listen()`) or joins a server you own: `attach(httpServer)` for
 * requests and WebSocket upgrades, `handler` inside an Express or Fastify app.
 */
export class AgentServer {
  readonly metrics = new ServerMetrics();
  readonly calls: CallManager;
  private http: Server | undefined;
  private readonly attached: { server: Server; request?: (req: IncomingMessage, res: ServerResponse) => void; upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void }[] = [];
  private readonly plugins: ServerPlugin[] = [];
  private starting: boolean;
  private closed?: Promise<void>;
  private readonly limits: ServerLimits;

  constructor(private readonly o: AgentServerOptions) {
    this.starting = o.deferReady ?? false;
    this.limits = { ...SERVER_LIMITS, ...Object.fromEntries(Object.entries(o.limits ?? {}).filter(([, v]) => v !== undefined)) };
    this.calls = new CallManager({
      sessions: o.sessions,
      metrics: this.metrics,
      logger: o.logger,
      maxCalls: o.maxCalls,
      publicUrl: (req) => publicUrlOf(req, o.publicUrl),
      admission: o.admission,
      onCallEnded: o.onCallEnded,
      sayFailure: o.sayFailure,
      onCallWaiting: o.onCallWaiting,
      onWarning: o.onWarning,
      ledger: o.ledger,
      onSessionEvent: (e, transport) => {
        o.service?.observe(e);
        o.onSessionEvent?.(e, transport);
      },
    });
  }

  /** What plugins are given: runCall, draining, publicUrl. */
  get host(): CallHost {
    return this.calls;
  }

  /** Mounts a plugin (its routes and upgrades); returns the server for chaining. */
  use(plugin: ServerPlugin): this {
    this.plugins.push(plugin);
    return this;
  }

  /**
   * A request handler for `http.createServer(handler)` or Express (`app.use(server.handler)`):
   * with `next`, a request the agent server does not know goes on to the app; without, it gets 404.
   */
  readonly handler = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void): void => {
    void this.handle(req, res).then((mine) => {
      if (mine) return;
      if (next) next();
      // Browsers ask every server for an icon; without the call page (which has one) the answer
      // is "none", not a 404 in the console of whoever opened /healthz or /metrics.
      else if (this.urlOf(req).pathname === '/favicon.ico') res.writeHead(204, { 'cache-control': 'max-age=86400' }).end();
      else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    });
  };

  /** Answers the request when it is one of the server's routes (true); false leaves it untouched. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = this.urlOf(req);
    // Draining: a kept-alive connection would carry the client's next request to a process about
    // to close it (a reset mid-request); closing after each answer sends it to a live one instead.
    if (this.calls.draining && !res.headersSent) res.setHeader('connection', 'close');
    try {
      if ((this.o.probes ?? true) && url.pathname === '/healthz') {
        // Liveness: the process answers. Never 503 for load or a drain (an orchestrator would
        // restart an instance that is only busy, or one finishing its calls).
        res.writeHead(200, NO_STORE).end(JSON.stringify({ status: 'ok', activeCalls: this.calls.active }));
        return true;
      }
      if ((this.o.probes ?? true) && url.pathname === '/readyz') {
        const { ready, body } = await this.readinessWithService();
        res.writeHead(ready ? 200 : 503, NO_STORE).end(JSON.stringify(body));
        return true;
      }
      if (url.pathname === '/metrics' && (this.o.metrics ?? true)) {
        const token = this.o.metricsToken ?? process.env.HIWAR_METRICS_TOKEN;
        if (token && !bearerMatches(req, token)) {
          res.writeHead(401, { 'content-type': 'text/plain', 'www-authenticate': 'Bearer' }).end('/metrics needs Authorization: Bearer <HIWAR_METRICS_TOKEN>\n');
          return true;
        }
        const text = await (this.o.metricsText?.() ?? this.metrics.text());
        res.writeHead(200, { 'content-type': this.metrics.contentType }).end(text);
        return true;
      }
      for (const p of this.plugins) if (await p.handleRequest?.(req, res, url)) return true;
      return false;
    } catch (err) {
      this.o.logger.error({ path: url.pathname, err: (err as Error).message }, 'request failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('internal error\n');
      return true;
    }
  }

  /**
   * Takes a WebSocket upgrade when it is for one of the plugins' routes (true); false leaves the
   * socket untouched, for other upgrade handlers of the same server.
   */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    const url = this.urlOf(req);
    // A socket a WebSocket takes has its timeout cleared by ws; one refused (or left waiting) whose
    // peer never closes its side is destroyed after this much silence.
    const s = socket as Partial<Socket>;
    const idle = () => socket.destroy();
    s.setTimeout?.(this.limits.upgradeIdleMs, idle);
    try {
      for (const p of this.plugins) {
        if (p.handleUpgrade?.(req, socket, head, url)) {
          socket.on('error', () => socket.destroy());
          return true;
        }
      }
      // Not ours: the socket is left as it came, for other upgrade handlers.
      s.setTimeout?.(0);
      socket.off('timeout', idle);
    } catch (err) {
      this.o.logger.error({ path: url.pathname, err: (err as Error).message }, 'upgrade failed');
      if (!socket.destroyed) socket.end('HTTP/1.1 500 Internal Server Error\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return true;
    }
    return false;
  }

  /**
   * Joins an `http.Server` (or `https.Server`) you own: its WebSocket upgrades for the plugins'
   * routes, and its requests when it has no handler of its own (see `AttachOptions`). An upgrade
   * nobody takes is answered 404 unless the server has other upgrade listeners. `close()` detaches.
   */
  attach(server: Server, opts: AttachOptions = {}): this {
    const requests = opts.requests ?? server.listenerCount('request') === 0;
    const entry: (typeof this.attached)[number] = {
      server,
      upgrade: (req, socket, head) => {
        if (this.handleUpgrade(req, socket, head)) return;
        if (server.listenerCount('upgrade') === 1) {
          socket.on('error', () => socket.destroy());
          (socket as Partial<Socket>).setTimeout?.(this.limits.upgradeIdleMs, () => socket.destroy());
          socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        }
      },
      ...(requests ? { request: (req: IncomingMessage, res: ServerResponse) => this.handler(req, res) } : {}),
    };
    server.on('upgrade', entry.upgrade);
    if (entry.request) server.on('request', entry.request);
    this.attached.push(entry);
    return this;
  }

  /** Listens on its own port (`port` and `host` of the options, or given here). */
  async listen(at: { port?: number; host?: string } = {}): Promise<{ port: number; host: string; url: string }> {
    if (this.http) throw new Error('the agent server is already listening');
    const host = at.host ?? this.o.host ?? '127.0.0.1';
    const l = this.limits;
    const http = createServer({
      headersTimeout: l.headersTimeoutMs,
      requestTimeout: Math.max(l.requestTimeoutMs, l.headersTimeoutMs),
      connectionsCheckingInterval: l.checkEveryMs,
      keepAliveTimeout: l.keepAliveTimeoutMs,
    });
    http.on('clientError', (_err, socket) => socket.destroy());
    this.http = http;
    this.attach(http, { requests: true });
    // Before the first call can arrive: the first replies would pay the normalizer's cold start.
    warmUpNormalizer();
    try {
      await new Promise<void>((resolve, reject) => {
        http.once('error', reject);
        http.listen(at.port ?? this.o.port ?? 8080, host, () => {
          http.off('error', reject);
          resolve();
        });
      });
    } catch (err) {
      // A port in use: nothing of the attempt stays attached, so `listen` may be tried again elsewhere.
      this.http = undefined;
      this.detach(http);
      throw err;
    }
    const port = (http.address() as AddressInfo).port;
    return { port, host, url: `http://${host.includes(':') ? `[${host}]` : host}:${port}` };
  }

  /** Undoes `attach(server)`. */
  private detach(server: Server): void {
    const i = this.attached.findIndex((a) => a.server === server);
    if (i < 0) return;
    const [a] = this.attached.splice(i, 1);
    a!.server.off('upgrade', a!.upgrade);
    if (a!.request) a!.server.off('request', a!.request);
  }

  /** Sockets open now on the server's own port (requests, idle keep-alives, WebSockets); 0 before `listen()`. */
  openConnections(): Promise<number> {
    const http = this.http;
    if (!http) return Promise.resolve(0);
    return new Promise((resolve, reject) => http.getConnections((err, n) => (err ? reject(err) : resolve(n))));
  }

  private urlOf(req: IncomingMessage): URL {
    return new URL(req.url ?? '/', 'http://local');
  }

  /** Whether the load balancer should send new calls here. */
  readiness(): { ready: boolean; body: Record<string, unknown> } {
    const calls = { activeCalls: this.calls.active };
    const state = this.calls.draining ? 'draining' : this.starting ? 'starting' : undefined;
    // What the health hook adds (the worker that answered, the machine's calls, the cluster
    // instance) is told while draining or starting too: a drain's 503 said only `activeCalls`.
    if (state) return { ready: false, body: { ...this.o.health?.().body, status: state, ...calls } };
    return this.o.health?.() ?? { ready: true, body: { status: 'ok', ...calls } };
  }

  /**
   * `readiness()`, and when that says ready, what is known of the voice service and the model (the
   * body's `service` and `model`): 503 for a state its probe's `notReadyOn` names, else 200 with
   * `status: "degraded"` and the reasons in `degraded` (the instance still answers its callers,
   * with the agent's out-of-service line when the service refuses).
   */
  private async readinessWithService(): Promise<{ ready: boolean; body: Record<string, unknown> }> {
    const r = this.readiness();
    if (!r.ready || (!this.o.service && !this.o.model)) return r;
    const [service, model] = await Promise.all([this.o.service?.status(), this.o.model?.status()]);
    const body = { ...r.body, ...(service ? { service } : {}), ...(model ? { model } : {}) };
    const bad = [badState('service', service, this.o.service), badState('model', model, this.o.model)].filter((b) => b !== undefined);
    const blocking = bad.find((b) => b.blocks);
    if (blocking) return { ready: false, body: { ...body, status: blocking.reason } };
    if (bad.length) return { ready: true, body: { ...body, status: 'degraded', degraded: bad.map((b) => b.reason) } };
    return { ready: true, body };
  }

  /** Start-up work after `listen()` is done: `/readyz` may say ready (see `deferReady`). */
  startupFinished(): void {
    this.starting = false;
  }

  /** SIGTERM: no new calls, running calls finish, then the plugins and the port close. */
  async drain(timeoutMs?: number): Promise<void> {
    await this.calls.drain(timeoutMs);
    await this.close();
  }

  /**
   * Closes the plugins (their connections end), detaches from servers you own (they stay up) and
   * closes the server's own port. Running calls are not waited for: `drain()` does that first.
   */
  close(): Promise<void> {
    this.closed ??= (async () => {
      // Async: a plain-JS plugin's close may throw at once or return nothing; the others still close.
      for (const p of this.plugins) await (async () => p.close?.())().catch((err: Error) => this.o.logger.warn({ plugin: p.name, err: err?.message }, 'plugin close failed'));
      for (const a of [...this.attached]) this.detach(a.server);
      const http = this.http;
      if (http) {
        http.closeAllConnections();
        await new Promise<void>((r) => http.close(() => r()));
      }
    })();
    return this.closed;
  }
}

/** The configured public URL, else http:// + the Host header the platform used. */
function publicUrlOf(req: IncomingMessage, configured: string | undefined): string {
  if (configured) return configured.replace(/\/+$/, '');
  const hostHeader = String(req.headers.host ?? 'localhost').replace(/[^\w.:[\]-]/g, '');
  return `http://${hostHeader}`;
}

/** A dependency that is not reachable: the reason `/readyz` gives (`service refused`), and whether it makes it 503. */
function badState(what: string, s: ServiceStatus | undefined, probe: { notReadyOn: readonly string[] } | undefined): { reason: string; blocks: boolean } | undefined {
  if (!s || !probe || s.status === 'reachable') return undefined;
  return { reason: `${what} ${s.status}`, blocks: probe.notReadyOn.includes(s.status) };
}

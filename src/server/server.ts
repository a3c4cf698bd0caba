import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from '../session/logger.ts';
import { CallManager, type CallAdmission, type CallManagerOptions, type SessionFactory } from './calls.ts';
import { ServerMetrics } from './metrics.ts';
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
  /** Told when each call has ended (post-call analytics); see `CallManagerOptions`. */
  onCallEnded?: CallManagerOptions['onCallEnded'];
}

const NO_STORE = { 'content-type': 'application/json', 'cache-control': 'no-store' };

/**
 * `hiwar serve`: one HTTP port for every way calls come in. Plugins (telephony routes, WebRTC
 * rooms) get the requests and upgrades they recognize; the server adds `/healthz` (live: the
 * process answers), `/readyz` (ready for new calls), `/metrics` and a drain on shutdown. It knows
 * nothing of providers.
 */
export class AgentServer {
  readonly metrics = new ServerMetrics();
  readonly calls: CallManager;
  private readonly http: Server;
  private readonly plugins: ServerPlugin[] = [];
  private starting: boolean;

  constructor(private readonly o: AgentServerOptions) {
    this.starting = o.deferReady ?? false;
    this.calls = new CallManager({
      sessions: o.sessions,
      metrics: this.metrics,
      logger: o.logger,
      maxCalls: o.maxCalls,
      publicUrl: (req) => publicUrlOf(req, o.publicUrl),
      admission: o.admission,
      onCallEnded: o.onCallEnded,
    });
    this.http = createServer((req, res) => void this.onRequest(req, res));
    this.http.on('upgrade', (req, socket, head) => this.onUpgrade(req, socket, head));
    this.http.on('clientError', (_err, socket) => socket.destroy());
  }

  /** What plugins are given: runCall, draining, publicUrl. */
  get host(): CallHost {
    return this.calls;
  }

  use(plugin: ServerPlugin): this {
    this.plugins.push(plugin);
    return this;
  }

  async listen(): Promise<{ port: number; host: string; url: string }> {
    const host = this.o.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen(this.o.port ?? 8080, host, () => resolve());
    });
    const port = (this.http.address() as AddressInfo).port;
    return { port, host, url: `http://${host.includes(':') ? `[${host}]` : host}:${port}` };
  }

  private urlOf(req: IncomingMessage): URL {
    return new URL(req.url ?? '/', 'http://local');
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = this.urlOf(req);
    try {
      if (url.pathname === '/healthz') {
        // Liveness: the process answers. Never 503 for load or a drain (an orchestrator would
        // restart an instance that is only busy, or one finishing its calls).
        res.writeHead(200, NO_STORE).end(JSON.stringify({ status: 'ok', activeCalls: this.calls.active }));
        return;
      }
      if (url.pathname === '/readyz') {
        const { ready, body } = this.readiness();
        res.writeHead(ready ? 200 : 503, NO_STORE).end(JSON.stringify(body));
        return;
      }
      if (url.pathname === '/metrics' && (this.o.metrics ?? true)) {
        res.writeHead(200, { 'content-type': this.metrics.contentType }).end(await this.metrics.text());
        return;
      }
      for (const p of this.plugins) if (await p.handleRequest?.(req, res, url)) return;
      // Browsers ask every server for an icon; without the call page (which has one) the answer
      // is "none", not a 404 in the console of whoever opened /healthz or /metrics.
      if (url.pathname === '/favicon.ico') {
        res.writeHead(204, { 'cache-control': 'max-age=86400' }).end();
        return;
      }
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    } catch (err) {
      this.o.logger.error({ path: url.pathname, err: (err as Error).message }, 'request failed');
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('internal error\n');
    }
  }

  /** Whether the load balancer should send new calls here. */
  readiness(): { ready: boolean; body: Record<string, unknown> } {
    const calls = { activeCalls: this.calls.active };
    if (this.calls.draining) return { ready: false, body: { status: 'draining', ...calls } };
    if (this.starting) return { ready: false, body: { status: 'starting', ...calls } };
    return this.o.health?.() ?? { ready: true, body: { status: 'ok', ...calls } };
  }

  /** Start-up work after `listen()` is done: `/readyz` may say ready (see `deferReady`). */
  startupFinished(): void {
    this.starting = false;
  }

  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = this.urlOf(req);
    socket.on('error', () => socket.destroy());
    try {
      for (const p of this.plugins) if (p.handleUpgrade?.(req, socket, head, url)) return;
    } catch (err) {
      this.o.logger.error({ path: url.pathname, err: (err as Error).message }, 'upgrade failed');
    }
    if (!socket.destroyed) socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  }

  /** SIGTERM: no new calls, running calls finish, then the plugins and the port close. */
  async drain(timeoutMs?: number): Promise<void> {
    await this.calls.drain(timeoutMs);
    await this.close();
  }

  async close(): Promise<void> {
    for (const p of this.plugins) await p.close?.().catch((err: Error) => this.o.logger.warn({ plugin: p.name, err: err.message }, 'plugin close failed'));
    this.http.closeAllConnections();
    await new Promise<void>((r) => this.http.close(() => r()));
  }
}

/** The configured public URL, else http:// + the Host header the platform used. */
function publicUrlOf(req: IncomingMessage, configured: string | undefined): string {
  if (configured) return configured.replace(/\/+$/, '');
  const hostHeader = String(req.headers.host ?? 'localhost').replace(/[^\w.:[\]-]/g, '');
  return `http://${hostHeader}`;
}

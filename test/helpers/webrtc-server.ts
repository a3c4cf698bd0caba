import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import callCentre from '../../agents/call-centre/index.ts';
import type { Agent } from '../../src/session/agent.ts';
import { AgentSession } from '../../src/session/agent-session.ts';
import type { CallReport, SessionEvent } from '../../src/session/events.ts';
import { createLogger } from '../../src/session/logger.ts';
import type { ServiceClient } from '../../src/service/client.ts';
import type { CallHost, CallObserver, CallOutcome } from '../../src/server/types.ts';
import type { Transport } from '../../src/transport/types.ts';
import { createWebRtcPlugin, type WebRtcOptions, type WebRtcPlugin } from '../../transports/webrtc/index.ts';
import { until as untilState } from './deadline.ts';

export const SECRET = 'backend-secret-for-tests';

/** A call the host ran: its transport, events and report. */
export interface HostedCall {
  transport: Transport;
  events: SessionEvent[];
  session: AgentSession;
  report?: CallReport;
}

/**
 * The smallest `CallHost`: runs a real AgentSession for each transport, against the sandbox.
 * (`hiwar serve` has the full one; this keeps the WebRTC tests independent of it.)
 */
export class SessionHost implements CallHost {
  readonly calls: HostedCall[] = [];
  draining = false;
  constructor(
    private readonly client: ServiceClient,
    private readonly agent: Agent,
  ) {}

  async runCall(transport: Transport, observer?: CallObserver): Promise<CallOutcome> {
    const session = new AgentSession({ client: this.client, transport, agent: this.agent, logger: createLogger('silent') });
    const call: HostedCall = { transport, events: [], session };
    this.calls.push(call);
    session.events$.subscribe((e) => {
      call.events.push(e);
      observer?.onEvent?.(e);
    });
    call.report = await session.run();
    return call.report.ended.includes('hangup') || call.report.ended.includes('left') ? 'caller-hangup' : 'completed';
  }

  publicUrl(): string {
    return this.url;
  }
  url = '';
}

export interface WebRtcServer {
  url: string;
  plugin: WebRtcPlugin;
  host: SessionHost;
  server: Server;
  token(body?: Record<string, unknown>): Promise<{ token: string; room: string; joinUrl: string }>;
  close(): Promise<void>;
}

/** An HTTP server of the test's own with the WebRTC plugin mounted, as `hiwar serve` mounts it. */
export async function startWebRtcServer(client: ServiceClient, opts: { agent?: Partial<Agent>; plugin?: Partial<WebRtcOptions> } = {}): Promise<WebRtcServer> {
  // The sandbox voices in this process on the CPU a loaded machine leaves it: the speaker's 3 s of
  // wall time for the TTS socket's first audio would switch to HTTP (docs/testing.md).
  const host = new SessionHost(client, { ...callCentre, voice: { ...callCentre.voice, firstAudioTimeoutMs: 20_000 }, ...opts.agent });
  const plugin = await createWebRtcPlugin({
    host,
    apiSecret: SECRET,
    listenIp: '127.0.0.1',
    announcedAddress: '127.0.0.1',
    workers: { workers: 1 },
    logger: createLogger('silent'),
    ...opts.plugin,
  });
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    void Promise.resolve(plugin.handleRequest?.(req, res, url)).then(
      (mine) => {
        if (!mine) res.writeHead(404).end('not found');
      },
      (err: Error) => res.writeHead(500).end(err.message),
    );
  });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (!plugin.handleUpgrade?.(req, socket, head, url)) socket.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  host.url = url;
  return {
    url,
    plugin,
    host,
    server,
    async token(body = {}) {
      const res = await fetch(`${url}/webrtc/token`, { method: 'POST', headers: { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (!res.ok) throw new Error(`token: ${res.status} ${await res.text()}`);
      return (await res.json()) as { token: string; room: string; joinUrl: string };
    },
    async close() {
      await plugin.close?.();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Waits for a condition, polling; throws with `what` after `timeoutMs` of the machine's time. */
export function until(cond: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  return untilState(cond, what, timeoutMs);
}

/** RMS level of decoded audio frames. */
export function rms(pcm: Int16Array[]): number {
  let sum = 0;
  let n = 0;
  for (const f of pcm) for (const v of f) (sum += v * v), n++;
  return n ? Math.sqrt(sum / n) : 0;
}

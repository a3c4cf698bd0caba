/**
 * A small real HTTP + WebSocket server for protocol tests of the client. Each test gives the
 * handlers it needs; every request is recorded so tests can assert what went over the wire.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { ServiceClient } from '../../src/service/client.ts';
import type { ServiceConfigInput } from '../../src/service/config.ts';

export const KEY = 'sk-test-SECRET-key-1234';

export interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export type Handler = (req: Recorded, res: ServerResponse) => unknown;
export type WsHandler = (ws: WebSocket, req: Recorded) => void;

export interface Fake {
  baseUrl: string;
  calls: Recorded[];
  client(extra?: ServiceConfigInput): ServiceClient;
  close(): Promise<void>;
}

export async function startFake(routes: Record<string, Handler>, sockets: Record<string, WsHandler> = {}): Promise<Fake> {
  const calls: Recorded[] = [];
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname.replace(/^\/api\/v1/, '');
    const rec: Recorded = { method: req.method ?? 'GET', path, query: url.searchParams, headers: req.headers, body: Buffer.concat(parts) };
    calls.push(rec);
    const handler = routes[`${rec.method} ${path}`] ?? matchPattern(routes, rec.method, path);
    if (!handler) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ errorCode: 40401, errorMessage: `no route ${rec.method} ${path}` }));
      return;
    }
    await handler(rec, res);
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname.replace(/^\/api\/v1/, '');
    const handler = sockets[path];
    const rec: Recorded = { method: 'WS', path, query: url.searchParams, headers: req.headers, body: Buffer.alloc(0) };
    calls.push(rec);
    if (!handler) {
      socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => handler(ws, rec));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const baseUrl = `http://127.0.0.1:${port}/api/v1`;
  return {
    baseUrl,
    calls,
    // The client's own 30 s for an answer (wall time, not load-scaled): 5 s timed a fake's answer
    // out in a run starved to a two-hundredth of a core. A test about the timeout sets its own.
    client: (extra = {}) => new ServiceClient({ apiKey: KEY, baseUrl, retryBaseMs: 5, ...extra }),
    close: async () => {
      for (const c of wss.clients) c.terminate();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** Routes written with {param} placeholders. */
function matchPattern(routes: Record<string, Handler>, method: string, path: string): Handler | undefined {
  for (const [key, h] of Object.entries(routes)) {
    const [m, p] = key.split(' ');
    if (m !== method || !p?.includes('{')) continue;
    const re = new RegExp('^' + p.replace(/\{[^}]+\}/g, '[^/]+') + '$');
    if (re.test(path)) return h;
  }
  return undefined;
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

/** Parses a recorded multipart body with the platform's own parser. */
export async function formOf(rec: Recorded): Promise<FormData> {
  return new Request('http://x', { method: 'POST', headers: { 'content-type': String(rec.headers['content-type']) }, body: rec.body }).formData();
}

export function nextMessage(ws: WebSocket): Promise<Record<string, unknown>> {
  return new Promise((resolve) => ws.once('message', (d) => resolve(JSON.parse(d.toString()))));
}

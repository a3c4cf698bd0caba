import type { IncomingMessage, ServerResponse } from 'node:http';
import type { KeyState, Region } from '../keys.ts';
import type { SandboxState } from '../state.ts';
import { readBody } from '../../server/read-body.ts';
import { HttpError, badRequest, forbidden, insufficient, sendError, sendJson, tooMany, unauthorized } from './errors.ts';
import { closing, receiveForm } from './uploads.ts';

export interface RouteCtx {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  /** Captured groups of the route pattern. */
  params: string[];
  key: KeyState;
  region: Region;
  state: SandboxState;
  /** Base URL of this region's API as the client used it. */
  base: string;
  json(): Promise<Record<string, unknown>>;
  form(): Promise<FormData>;
  /** Spends credits or answers 402. */
  charge(credits: number): void;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
}

export interface Route {
  method: 'GET' | 'POST';
  pattern: RegExp;
  /** Name used by a key's allow list (path prefix). */
  endpoint: string;
  handler(ctx: RouteCtx): Promise<void> | void;
  /** Largest body accepted, and the error for a larger one. */
  bodyLimit?: number;
  tooLarge?: () => HttpError;
}

const DEFAULT_LIMIT = 1024 * 1024;

export const bodyTimedOut = () => new HttpError(408, 40801, 'Request body timed out');

/** A small JSON body, read whole: the limit is checked while reading and a stalled body times out. */
async function readJsonBody(req: IncomingMessage, limit: number, tooLarge: () => HttpError, idleMs: number): Promise<Buffer> {
  const body = await readBody(req, { limit, idleMs });
  if (body === 'too large') throw closing(tooLarge());
  if (body === 'too slow') throw closing(bodyTimedOut());
  if (body === 'aborted') throw closing(badRequest('Request body ended early'));
  return body;
}

/** The request's URL, or undefined when it cannot be parsed (`//`, an odd Host header). */
export function requestUrl(raw: string | undefined): URL | undefined {
  try {
    // The Host header is not needed to route: a fixed base keeps a malformed one harmless.
    return new URL(raw ?? '/', 'http://sandbox.invalid');
  } catch {
    return undefined;
  }
}

const decodeParam = (p: string): string => {
  try {
    return decodeURIComponent(p);
  } catch {
    throw badRequest('Malformed percent-encoding in the path');
  }
};

/** Splits /api/v1/… (global) and /uae/api/v1/… (UAE) paths. */
export function regionOf(pathname: string, fixed?: Region): { region: Region; prefix: string; path: string } | undefined {
  if (fixed && pathname.startsWith('/api/v1')) return { region: fixed, prefix: '/api/v1', path: pathname.slice(7) || '/' };
  if (pathname.startsWith('/uae/api/v1')) return { region: 'uae', prefix: '/uae/api/v1', path: pathname.slice(11) || '/' };
  if (pathname.startsWith('/api/v1')) return { region: 'global', prefix: '/api/v1', path: pathname.slice(7) || '/' };
  return undefined;
}

/**
 * The request handler: region from the path, key from x-api-key, then the key's allow list,
 * concurrency slot and the route. Every failure answers the service's envelope; nothing
 * thrown by a route escapes to the process.
 */
export function createHandler(
  state: SandboxState,
  routes: Route[],
  opts: { fixedRegion?: Region; log?: (msg: string) => void; prepareFile?: (name: string) => Promise<void> } = {},
) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const bodyIdleMs = state.limits.bodyIdleMs;
    const url = requestUrl(req.url);
    try {
      if (!url) throw closing(badRequest('Malformed request URL'));
      if (url.pathname.startsWith('/files/')) {
        const name = decodeParam(url.pathname.slice(7));
        authorizeFile(state, name, req, url);
        await opts.prepareFile?.(name);
        return serveFile(state, name, res);
      }
      const where = regionOf(url.pathname, opts.fixedRegion);
      if (!where) throw new HttpError(404, 40401, `Unknown path ${url.pathname}`);
      let match: { route: Route; params: string[] } | undefined;
      let pathExists = false;
      for (const route of routes) {
        const m = route.pattern.exec(where.path);
        if (!m) continue;
        pathExists = true;
        if (route.method === req.method) {
          match = { route, params: m.slice(1).map(decodeParam) };
          break;
        }
      }
      if (!match) throw pathExists ? new HttpError(405, 40501, `Method ${req.method} not allowed`) : new HttpError(404, 40401, `Unknown endpoint ${where.path}`);
      const key = state.keys.lookup(headerKey(req), where.region);
      if (!key) throw unauthorized();
      if (!key.may(match.route.endpoint)) throw forbidden(match.route.endpoint);
      if (state.takeBusy(where.path)) {
        res.setHeader('retry-after', String(state.faults.httpBusy?.retryAfterS ?? 1));
        throw tooMany();
      }
      const release = key.acquire();
      if (!release) throw tooMany();
      res.on('close', release);
      const aborter = new AbortController();
      res.on('close', () => aborter.abort());
      const limit = match.route.bodyLimit ?? DEFAULT_LIMIT;
      const tooLarge = match.route.tooLarge ?? (() => new HttpError(413, 41301, 'Request body too large'));
      let body: Buffer | undefined;
      const getBody = async () => (body ??= await readJsonBody(req, limit, tooLarge, bodyIdleMs));
      const ctx: RouteCtx = {
        req, res, url, params: match.params, key, region: where.region, state,
        base: `http://${hostOf(req)}${where.prefix}`,
        signal: aborter.signal,
        json: async () => {
          const text = (await getBody()).toString('utf8');
          try {
            const value = JSON.parse(text || '{}') as unknown;
            if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('not an object');
            return value as Record<string, unknown>;
          } catch {
            throw badRequest('Request body must be a JSON object');
          }
        },
        form: async () => {
          const { form, cleanup } = await receiveForm(req, { maxBytes: limit, tooLarge, idleMs: bodyIdleMs, timedOut: bodyTimedOut });
          res.on('close', () => void cleanup());
          return form;
        },
        charge: (credits: number) => {
          if (!key.canSpend(credits)) throw insufficient(credits, key.credits);
          key.spend(credits);
        },
      };
      await match.route.handler(ctx);
    } catch (err) {
      if (err instanceof HttpError) {
        if ((err as HttpError & { closeConnection?: boolean }).closeConnection) res.setHeader('connection', 'close');
        return sendError(res, err);
      }
      opts.log?.(`internal error on ${req.method} ${url?.pathname}: ${(err as Error).stack ?? err}`);
      if (!res.headersSent) sendJson(res, 500, { errorCode: 50001, errorMessage: `Internal error: ${(err as Error).message}` });
      else res.destroy();
    }
  };
}

export function headerKey(req: IncomingMessage): string | undefined {
  const v = req.headers['x-api-key'];
  return Array.isArray(v) ? v[0] : v;
}

/** A Host header fit to build URLs from; anything else falls back to the socket's address. */
function hostOf(req: IncomingMessage): string {
  const h = req.headers.host;
  if (h && /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(h)) return h;
  const a = req.socket.localAddress ?? '127.0.0.1';
  return `${a.includes(':') ? `[${a}]` : a}:${req.socket.localPort}`;
}

/** /files/ needs a valid key (x-api-key) or a signed, unexpired URL from the sandbox. */
function authorizeFile(state: SandboxState, name: string, req: IncomingMessage, url: URL): void {
  const key = headerKey(req);
  if (key && (state.keys.lookup(key, 'global') || state.keys.lookup(key, 'uae'))) return;
  const signed = state.signer.check(name, url.searchParams);
  if (signed === 'ok') return;
  if (signed === 'expired') throw new HttpError(403, 40302, 'This file URL has expired: request a new one');
  throw unauthorized('A valid API key or a signed file URL is required');
}

function serveFile(state: SandboxState, name: string, res: ServerResponse): void {
  const file = state.files.get(name);
  if (!file) return sendJson(res, 404, { errorCode: 40401, errorMessage: 'File not found' });
  res.writeHead(200, { 'content-type': file.contentType, 'content-length': file.bytes.byteLength });
  res.end(Buffer.from(file.bytes));
}

/** Reads a multipart field as a number; undefined when absent. */
export function numField(form: FormData, name: string): number | undefined {
  const v = form.get(name);
  if (v === null || v === '') return undefined;
  const n = Number(v);
  if (!Number.isFinite(n)) throw badRequest(`${name} must be a number`);
  return n;
}

export function boolField(form: FormData, name: string): boolean {
  return form.get(name) === 'true';
}

export async function fileField(form: FormData, name: string, message = `${name} is required and must be a file`): Promise<Uint8Array> {
  const v = form.get(name);
  if (!(v instanceof Blob)) throw badRequest(message);
  return new Uint8Array(await v.arrayBuffer());
}

export function strField(form: FormData, name: string, required = false): string | undefined {
  const v = form.get(name);
  if (typeof v === 'string' && v !== '') return v;
  if (required) throw badRequest(`${name} is required`);
  return undefined;
}

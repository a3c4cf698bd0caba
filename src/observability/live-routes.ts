import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../session/logger.ts';
import { bearerMatches } from '../server/tokens.ts';
import type { ServerPlugin } from '../server/types.ts';
import type { LiveCall } from './live-calls.ts';
import { livePageAssets } from './live-bundle.ts';

/** Options of the live calls routes (`/calls/live`). */
export interface LiveRoutesOptions {
  /** The calls to show: this process's (`LiveCalls.list`), or the cluster's. */
  calls(): LiveCall[] | Promise<LiveCall[]>;
  /** Whether `calls` spans the cluster (said on the page). */
  scope?: () => 'instance' | 'cluster';
  /** The operator's bearer secret. @default process.env.HIWAR_CALLS_SECRET (unset: the routes are closed) */
  secret?: string;
  logger?: Logger;
}

/** What the live page's answers carry besides their body: no caching, no framing, scripts from here only. */
const HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'",
};

/**
 * `GET /calls/live`: the calls in progress, as a page that refreshes itself or, with
 * `Accept: application/json` or `?format=json`, as JSON for tools. Closed (403) without a secret
 * configured, whatever `--open` says: it shows what callers say. The JSON needs the secret as a
 * bearer; the page's own files carry no call data and ask for the secret in the browser.
 */
export function liveCallsRoutes(o: LiveRoutesOptions): ServerPlugin {
  const assets = livePageAssets();
  const secret = o.secret ?? process.env.HIWAR_CALLS_SECRET;
  const send = (res: ServerResponse, status: number, type: string, body: string | Buffer) => {
    res.writeHead(status, { ...HEADERS, 'content-type': type, 'content-length': Buffer.byteLength(body) });
    res.end(body);
    return true;
  };
  const json = (res: ServerResponse, status: number, body: unknown) => send(res, status, 'application/json; charset=utf-8', JSON.stringify(body));
  return {
    name: 'live-calls',
    async handleRequest(req: IncomingMessage, res: ServerResponse, url: URL): Promise<boolean> {
      if (url.pathname !== '/calls/live' && !url.pathname.startsWith('/calls/live/')) return false;
      if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 405, { error: 'GET /calls/live' });
      if (!secret) return json(res, 403, { error: 'the live calls view is closed: set HIWAR_CALLS_SECRET' });
      const wantsJson = url.searchParams.get('format') === 'json' || /application\/json/.test(String(req.headers.accept ?? ''));
      if (url.pathname === '/calls/live' && wantsJson) {
        if (!bearerMatches(req, secret)) {
          o.logger?.warn({ route: '/calls/live' }, 'live calls refused: wrong or missing bearer secret');
          return json(res, 401, { error: 'wrong or missing bearer secret' });
        }
        try {
          return json(res, 200, { scope: o.scope?.() ?? 'instance', calls: await o.calls() });
        } catch (err) {
          o.logger?.warn({ err: (err as Error).message }, 'live calls could not be listed');
          return json(res, 503, { error: 'the live calls could not be listed' });
        }
      }
      const asset = await assets.get(url.pathname);
      return asset ? send(res, 200, asset.type, asset.body) : json(res, 404, { error: `no ${url.pathname}` });
    },
  };
}

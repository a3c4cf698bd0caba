import type { IncomingMessage } from 'node:http';

/** Where a WebSocket client put its key. Each socket accepts only the forms the spec lists. */
export interface WsCredentials {
  header?: string;
  bearer?: string;
  query: Record<string, string | undefined>;
}

export function credentialsOf(req: IncomingMessage, url: URL): WsCredentials {
  const h = req.headers['x-api-key'];
  const auth = req.headers.authorization;
  return {
    header: Array.isArray(h) ? h[0] : h,
    bearer: typeof auth === 'string' && /^bearer\s+/i.test(auth) ? auth.replace(/^bearer\s+/i, '') : undefined,
    query: {
      api_key: url.searchParams.get('api_key') ?? undefined,
      'x-api-key': url.searchParams.get('x-api-key') ?? undefined,
      token: url.searchParams.get('token') ?? undefined,
    },
  };
}

export const listenKey = (c: WsCredentials) => c.header ?? c.query.api_key ?? c.query['x-api-key'];
export const ttsKey = (c: WsCredentials) => c.header ?? c.bearer ?? c.query['x-api-key'];
export const legacyKey = (c: WsCredentials) => c.header ?? c.bearer ?? c.query.token ?? c.query['x-api-key'];

import type WebSocket from 'ws';
import { lazyRequire } from '../../lazy-require.ts';
import type { ServiceConfig, WsAuthMode } from '../config.ts';
import {
  AuthenticationError,
  TransportError,
  ValidationError,
  errorForStatus,
  parseErrorBody,
  redact,
} from '../errors.ts';

/** ws and its native bufferutil, loaded with the first socket. */
const loadWs = lazyRequire<typeof WebSocket>('ws');

export interface SocketCallOptions {
  /** How the key travels; each socket accepts the forms the spec lists for it. */
  auth?: WsAuthMode;
  signal?: AbortSignal;
  /** Time allowed for the connection (and its handshake messages) to open. */
  timeoutMs?: number;
}

export interface OpenSpec {
  path: string;
  query: Record<string, string | number | boolean | undefined>;
  auth: WsAuthMode;
  allowed: readonly WsAuthMode[];
  /** Query parameter that carries the key in 'query' mode. */
  queryKey: string;
  endpoint: string;
}

/**
 * Opens a WebSocket with the key in the chosen place. A refused handshake (HTTP 401, 402, 429…)
 * becomes the same typed error an HTTP call would raise. Resolves with a paused socket.
 */
export function openSocket(cfg: ServiceConfig, spec: OpenSpec, opts: SocketCallOptions): Promise<WebSocket> {
  if (!cfg.apiKey) {
    return Promise.reject(
      new AuthenticationError({ status: 401, errorCode: 40101, errorMessage: 'no API key configured (set HIWAR_API_KEY or pass apiKey)', endpoint: spec.endpoint }),
    );
  }
  if (!spec.allowed.includes(spec.auth)) {
    return Promise.reject(new ValidationError(`auth "${spec.auth}" is not accepted by ${spec.endpoint}`, spec.endpoint));
  }
  const url = new URL(cfg.wsBaseUrl + spec.path);
  for (const [k, v] of Object.entries(spec.query)) if (v !== undefined) url.searchParams.set(k, String(v));
  const headers: Record<string, string> = {};
  if (spec.auth === 'header') headers['x-api-key'] = cfg.apiKey;
  if (spec.auth === 'bearer') headers.authorization = `Bearer ${cfg.apiKey}`;
  if (spec.auth === 'query' || spec.auth === 'query+message') url.searchParams.set(spec.queryKey, cfg.apiKey);
  if (spec.auth === 'token') url.searchParams.set('token', cfg.apiKey);

  return new Promise((resolve, reject) => {
    const ws = new (loadWs())(url, { headers, handshakeTimeout: opts.timeoutMs ?? cfg.timeoutMs });
    ws.binaryType = 'nodebuffer';
    const fail = (err: Error) => {
      cleanup();
      ws.removeAllListeners();
      ws.on('error', () => {});
      ws.terminate();
      reject(err);
    };
    const onAbort = () => fail(new TransportError(`${spec.endpoint}: aborted`, 'aborted'));
    const cleanup = () => opts.signal?.removeEventListener('abort', onAbort);
    if (opts.signal?.aborted) return onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    ws.once('open', () => {
      // Frames that arrive with the handshake would be emitted before the caller can attach
      // its listeners; the socket stays paused until the wrapper calls resume().
      ws.pause();
      cleanup();
      ws.removeAllListeners('unexpected-response');
      resolve(ws);
    });
    ws.once('unexpected-response', (_req, res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        const parsed = parseErrorBody(res.statusCode ?? 0, Buffer.concat(parts).toString('utf8'));
        fail(
          errorForStatus({
            status: res.statusCode ?? 0,
            errorCode: parsed.errorCode,
            errorMessage: redact(parsed.errorMessage, cfg.apiKey),
            endpoint: spec.endpoint,
          }),
        );
      });
      res.on('error', () => fail(new TransportError(`${spec.endpoint}: handshake refused`, 'network')));
    });
    ws.once('error', (err) => {
      const timedOut = /timed out/i.test(err.message);
      fail(
        new TransportError(
          `${spec.endpoint}: ${timedOut ? 'connection timed out' : `connection failed: ${redact(err.message, cfg.apiKey)}`}`,
          timedOut ? 'timeout' : 'network',
        ),
      );
    });
  });
}

/** Parses a text frame; undefined when the frame is not a JSON object. */
export function parseFrame(data: WebSocket.RawData): Record<string, unknown> | undefined {
  return parseJsonObject(data.toString());
}

/** Parses text; undefined when it is not a JSON object. */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}


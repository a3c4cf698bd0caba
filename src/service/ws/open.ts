import type { IncomingMessage } from 'node:http';
import type WebSocket from 'ws';
import { lazyRequire } from '../../lazy-require.ts';
import type { ServiceConfig, WsAuthMode } from '../config.ts';
import {
  AuthenticationError,
  TransportError,
  errorForResponse,
  ValidationError,
  type ServiceError,
  redact,
} from '../errors.ts';
import { runTimers } from '../run-time.ts';

/** ws and its native bufferutil, loaded with the first socket. */
const loadWs = lazyRequire<typeof WebSocket>('ws');

/**
 * How much of a refused handshake's body is read, and for how long. The status is what matters;
 * a body cut short, endless or huge must not turn the refusal into a timeout or a bare "refused".
 */
export const REFUSAL_BODY_LIMITS = { maxBytes: 16 * 1024, waitMs: 2000 } as const;

export interface SocketCallOptions {
  /** How the key travels; each socket accepts the forms the spec lists for it. */
  auth?: WsAuthMode;
  signal?: AbortSignal;
  /**
   * Time allowed for the connection (and its handshake messages) to open, in the process's run
   * time: a handshake answered while the process was starved of CPU is read, not timed out.
   */
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
    // No permessage-deflate offered: the messages are audio, which zlib barely shrinks, and a
    // server that accepts the offer (many do by default) would have every message compressed on
    // libuv's thread pool, a CPU cost and a hop per message each way.
    // The handshake's time limit is this module's own, on run time (ws's `handshakeTimeout` counts wall time).
    const ws = new (loadWs())(url, { headers, perMessageDeflate: false });
    ws.binaryType = 'nodebuffer';
    let settled = false;
    let refusalTimer: ReturnType<typeof setTimeout> | undefined;
    /** Set once the server has answered the upgrade with an HTTP status: builds its typed error. */
    let refused: (() => ServiceError) | undefined;
    const timeoutMs = opts.timeoutMs ?? cfg.timeoutMs;
    const handshakeTimer = timeoutMs > 0 ? runTimers.set(() => fail(refused ? refused() : new TransportError(`${spec.endpoint}: connection timed out`, 'timeout')), timeoutMs) : undefined;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      cleanup();
      ws.removeAllListeners();
      ws.on('error', () => {});
      ws.terminate();
      reject(err);
    };
    const onAbort = () => fail(new TransportError(`${spec.endpoint}: aborted`, 'aborted'));
    const cleanup = () => {
      if (handshakeTimer !== undefined) runTimers.clear(handshakeTimer);
      clearTimeout(refusalTimer);
      opts.signal?.removeEventListener('abort', onAbort);
    };
    if (opts.signal?.aborted) return onAbort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    ws.once('open', () => {
      // Frames that arrive with the handshake would be emitted before the caller can attach
      // its listeners; the socket stays paused until the wrapper calls resume().
      ws.pause();
      settled = true;
      cleanup();
      ws.removeAllListeners('unexpected-response');
      resolve(ws);
    });
    ws.once('unexpected-response', (_req, res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      const parts: Buffer[] = [];
      let size = 0;
      refused = () => {
        const retryAfter = res.headers['retry-after'];
        const body = Buffer.concat(parts).toString('utf8');
        return errorForResponse({ status, body, retryAfter: (Array.isArray(retryAfter) ? retryAfter[0] : retryAfter) ?? null, endpoint: spec.endpoint }, cfg.apiKey);
      };
      const done = () => fail(refused!());
      // Whatever ends the body (its end, a dropped connection, the limits) ends the wait with
      // the status and as much of the message as came.
      refusalTimer = setTimeout(done, REFUSAL_BODY_LIMITS.waitMs);
      res.on('data', (c: Buffer) => {
        parts.push(c);
        size += c.length;
        if (size >= REFUSAL_BODY_LIMITS.maxBytes) done();
      });
      res.on('end', done);
      res.on('close', done);
      res.on('error', done);
    });
    ws.once('error', (err) => {
      if (refused) return fail(refused());
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


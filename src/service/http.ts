import type { ServiceConfig } from './config.ts';
import {
  AuthenticationError,
  ProtocolError,
  TransportError,
  errorForResponse,
  redact,
  type ServiceError,
} from './errors.ts';
import { backoffDelay, sleep } from './retry.ts';
import { runTimers, type Timers } from './run-time.ts';

/** Accepted by every client method. */
export interface CallOptions {
  signal?: AbortSignal;
  /**
   * Time allowed until the response starts (streams) or is complete (JSON); 0 = none. Counted in
   * the process's run time, as the sockets' watchdogs count (src/service/run-time.ts): a stall of
   * this process does not time out an answer that arrived meanwhile.
   */
  timeoutMs?: number;
  /** Overrides the configured retry count (retries apply to idempotent calls only). */
  maxRetries?: number;
}

export interface RequestSpec {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  json?: unknown;
  form?: FormData;
  accept?: string;
  /** Safe to send twice: only such calls are retried on 429, 5xx or a network failure. */
  idempotent?: boolean;
  /** The body is read after `request` returns: the caller's signal must keep aborting it. */
  stream?: boolean;
}

export function buildUrl(base: string, path: string, query?: RequestSpec['query']): string {
  const url = new URL(base + path);
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v !== undefined) url.searchParams.set(k, String(v));
  }
  return url.toString();
}

function endpointLabel(spec: RequestSpec): string {
  return `${spec.method} ${spec.path}`;
}

/** One attempt: resolves with an ok response or throws a typed error. */
async function attempt(cfg: ServiceConfig, spec: RequestSpec, signal: AbortSignal): Promise<Response> {
  const headers: Record<string, string> = { 'x-api-key': cfg.apiKey ?? '' };
  if (spec.accept) headers.accept = spec.accept;
  let body: string | FormData | undefined;
  if (spec.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(spec.json);
  } else if (spec.form) {
    body = spec.form; // fetch sets the multipart boundary itself
  }
  let res: Response;
  let url = buildUrl(cfg.baseUrl, spec.path, spec.query);
  let method: string = spec.method;
  for (let hops = 0; ; hops++) {
    try {
      // Redirects are followed here, not by fetch: fetch would carry x-api-key to any origin.
      res = await cfg.fetch(url, { method, headers, body, signal, redirect: 'manual' });
    } catch (err) {
      if (signal.aborted) throw abortError(signal, spec);
      const reason = err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err);
      throw new TransportError(`${endpointLabel(spec)}: network error: ${redact(reason, cfg.apiKey)}`, 'network');
    }
    if (res.type === 'opaqueredirect') {
      // A browser's fetch hides the target of a manual redirect: it is never followed.
      throw new ProtocolError(`${endpointLabel(spec)}: the service answered a redirect; not followed, the key stays with the configured base URL`);
    }
    const next = redirectTarget(res, url);
    if (!next) break;
    void res.body?.cancel().catch(() => {});
    if (new URL(next).origin !== new URL(url).origin) {
      throw new ProtocolError(`${endpointLabel(spec)}: the service redirected to another origin (${new URL(next).origin}); not followed, the key stays with the configured base URL`);
    }
    if (hops >= MAX_REDIRECTS) throw new ProtocolError(`${endpointLabel(spec)}: more than ${MAX_REDIRECTS} redirects`);
    // 301/302/303 turn a POST into a GET without body, as browsers and fetch do; 307/308 repeat it.
    if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
      delete headers['content-type'];
    }
    url = next;
  }
  if (res.ok) return res;
  const text = await res.text().catch(() => '');
  throw errorForResponse({ status: res.status, body: text, retryAfter: res.headers.get('retry-after'), endpoint: endpointLabel(spec) }, cfg.apiKey);
}

const MAX_REDIRECTS = 5;

/** The absolute URL a 3xx answer points to, or undefined for any other answer. */
function redirectTarget(res: Response, from: string): string | undefined {
  if (![301, 302, 303, 307, 308].includes(res.status)) return undefined;
  const location = res.headers.get('location');
  if (!location) return undefined;
  try {
    return new URL(location, from).toString();
  } catch {
    return undefined;
  }
}

function abortError(signal: AbortSignal, spec: RequestSpec): TransportError {
  const timedOut = signal.reason instanceof DOMException && signal.reason.name === 'TimeoutError';
  return timedOut
    ? new TransportError(`${endpointLabel(spec)}: timed out`, 'timeout')
    : new TransportError(`${endpointLabel(spec)}: aborted`, 'aborted');
}

/**
 * Sends a request with the key, a timeout, the caller's AbortSignal, and retries with backoff
 * for idempotent calls. `consume` reads the body while the timeout still runs; streaming callers
 * pass `(r) => r` and own the body afterwards (the caller's signal still aborts it). The timeout
 * runs on `timers`: run time by default, so a process starved of CPU (Node runs a timer that came
 * due before it reads the socket) does not give up on an answer already waiting for it.
 */
export async function request<T>(
  cfg: ServiceConfig,
  spec: RequestSpec,
  opts: CallOptions,
  consume: (res: Response) => Promise<T> | T,
  timers: Timers = runTimers,
): Promise<T> {
  if (!cfg.apiKey) {
    throw new AuthenticationError({
      status: 401,
      errorCode: 40101,
      errorMessage: 'no API key configured (set HIWAR_API_KEY or pass apiKey)',
      endpoint: endpointLabel(spec),
    });
  }
  const retries = spec.idempotent ? (opts.maxRetries ?? cfg.maxRetries) : 0;
  const timeoutMs = opts.timeoutMs ?? cfg.timeoutMs;
  for (let n = 0; ; n++) {
    const ctrl = new AbortController();
    const onUserAbort = () => ctrl.abort(opts.signal!.reason);
    if (opts.signal?.aborted) throw new TransportError(`${endpointLabel(spec)}: aborted`, 'aborted');
    opts.signal?.addEventListener('abort', onUserAbort, { once: true });
    const timer = timeoutMs > 0 ? timers.set(() => ctrl.abort(new DOMException('timed out', 'TimeoutError')), timeoutMs) : undefined;
    try {
      const res = await attempt(cfg, spec, ctrl.signal);
      try {
        return await consume(res);
      } catch (err) {
        if (ctrl.signal.aborted) throw abortError(ctrl.signal, spec);
        throw err;
      }
    } catch (err) {
      const retryable =
        (err instanceof TransportError && err.kind === 'network') ||
        (err instanceof Error && 'retryable' in err && (err as ServiceError).retryable);
      if (!retryable || n >= retries || opts.signal?.aborted) throw err;
      const after = err instanceof TransportError ? undefined : (err as ServiceError).retryAfterMs;
      await sleep(backoffDelay(n, { baseMs: cfg.retryBaseMs }, after), opts.signal).catch(() => {
        throw new TransportError(`${endpointLabel(spec)}: aborted`, 'aborted');
      });
    } finally {
      if (timer !== undefined) timers.clear(timer);
      if (!spec.stream) opts.signal?.removeEventListener('abort', onUserAbort);
    }
  }
}

/** Body readers for `request`. */
export const read = {
  json: async <T>(res: Response): Promise<T> => {
    const text = await res.text();
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new ProtocolError(`expected a JSON body, got ${JSON.stringify(text.slice(0, 80))}`);
    }
  },
  // Typed on a plain ArrayBuffer (as it is): `new File([bytes], name)` then type-checks, for an upload.
  bytes: async (res: Response): Promise<Uint8Array<ArrayBuffer>> => new Uint8Array(await res.arrayBuffer()),
  raw: (res: Response): Response => res,
};

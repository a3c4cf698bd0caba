import http from 'node:http';
import https from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
// The error classes' own module, not the package's main entry (src/session/failure.ts says why).
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai/core/error';
import type OpenAI from 'openai';
import { redact } from '../service/errors.ts';
import { sleep } from '../service/retry.ts';
import { runTimers } from '../service/run-time.ts';
import type { PrimedRequests, RequestTarget } from './primed-requests.ts';

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;

export interface ChatStreamOptions {
  baseURL: string;
  apiKey: string;
  /**
   * Until the response's headers, per attempt (as the SDK's `timeout`), in the process's run time:
   * headers that came while the process was starved of CPU are read, not timed out.
   */
  timeoutMs: number;
  /** Retries of a failed connection or a retryable status (408, 409, 429, 5xx). */
  maxRetries: number;
  signal: AbortSignal;
  /** Sent with every request, after the built-in ones (same name: replaced; null: left out). */
  headers?: Record<string, string | null>;
  /** Added to the URL's query (an Azure-style `api-version`, a gateway's parameters). */
  query?: Record<string, string>;
  /**
   * Requests made ahead on kept-alive connections (for this target and these headers): the first
   * attempt takes one when there is one, and a response read to its end makes the next ready.
   */
  primed?: PrimedRequests;
}

/**
 * One streamed Chat Completions request (`POST {baseURL}/chat/completions`, server-sent events)
 * over node:http(s) and their keep-alive agents, with the `openai` package's errors and retry
 * policy.
 *
 * Hand-written rather than through the SDK's own client because of what that client costs on the
 * path between a caller's turn and the model's first token, measured on the bench machine: the
 * SDK with Node's built-in fetch spent 2.0–2.7 ms of CPU per streamed request (its request
 * pipeline, undici's fetch, web streams, the SSE decoders), against 0.4–0.6 ms for node:http,
 * and about 2 ms of a turn's framework-added time (docs/performance.md). The SDK is kept for its
 * types and error classes (`APIError.generate`), so a failure is classified as before.
 */
export async function* streamChatCompletion(body: object, o: ChatStreamOptions): AsyncGenerator<Chunk> {
  for await (const batch of streamChatBatches(body, o)) yield* batch;
}

/**
 * The same stream, as the chunks that came in each read of the body: a consumer hands on what
 * arrived together in one step (a model or a gateway often sends several deltas at once, and
 * each step through the reply's stages costs the turn a little).
 */
export async function* streamChatBatches(body: object, o: ChatStreamOptions): AsyncGenerator<Chunk[]> {
  const target = targetOf(o.baseURL, o.query);
  const payload = JSON.stringify(body);
  let res: http.IncomingMessage | undefined;
  for (let retriesLeft = o.maxRetries; ; retriesLeft--) {
    const attempt = await send(target, payload, o, retriesLeft === o.maxRetries);
    if (attempt instanceof Error) {
      if (o.signal.aborted) throw new APIUserAbortError();
      if (retriesLeft > 0) {
        await wait(retryDelay(undefined, o.maxRetries - retriesLeft), o.signal);
        continue;
      }
      if (attempt.name === 'TimeoutError') throw new APIConnectionTimeoutError();
      throw new APIConnectionError({ message: `Connection error: ${attempt.message}`, cause: attempt });
    }
    const status = attempt.statusCode ?? 0;
    if (status >= 200 && status < 300) {
      res = attempt;
      break;
    }
    const headers = headersOf(attempt);
    if (retriesLeft > 0 && shouldRetry(status, headers)) {
      attempt.resume();
      await wait(retryDelay(headers, o.maxRetries - retriesLeft), o.signal);
      continue;
    }
    const text = scrub(await readText(attempt).catch(() => ''), o);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    throw APIError.generate(status, json as object | undefined, json ? undefined : text || undefined, headers);
  }
  const socket = res.socket;
  yield* events(res, o);
  // Read to its end: its connection goes back to the pool, and the next request is made ready on it.
  o.primed?.primeAfter(socket);
}

const targets = new Map<string, RequestTarget>();

/**
 * `{baseURL}/chat/completions` as node:http's options, parsed once per base URL: a request given
 * a URL parses and converts it again each time, on the path between a turn and the model.
 */
export function targetOf(baseURL: string, query?: Record<string, string>): RequestTarget {
  const key = query ? `${baseURL}\n${new URLSearchParams(query)}` : baseURL;
  let t = targets.get(key);
  if (!t) {
    const url = new URL(`${baseURL.replace(/\/+$/, '')}/chat/completions`);
    for (const [k, v] of Object.entries(query ?? {})) url.searchParams.set(k, v);
    // A process talks to one model server or a few; the bound only stops one cycling through many from growing.
    if (targets.size >= 16) targets.clear();
    targets.set(key, (t = { https: url.protocol === 'https:', options: urlToHttpOptions(url) }));
  }
  return t;
}

/**
 * The request (the first attempt's made ahead when one is ready: its socket is assigned already,
 * so `end` writes at once); resolves with the response (any status) or the error that stopped it.
 */
function send(target: RequestTarget, payload: string, o: ChatStreamOptions, first: boolean): Promise<http.IncomingMessage | Error> {
  return new Promise((resolve) => {
    if (o.signal.aborted) return resolve(abortError());
    const ready = first ? o.primed?.take() : undefined;
    let req: http.ClientRequest;
    if (ready) {
      req = ready;
      req.setHeader('content-length', Buffer.byteLength(payload));
    } else {
      const request = target.https ? https.request : http.request;
      req = request({ ...target.options, method: 'POST', headers: { ...requestHeaders(o), 'content-length': Buffer.byteLength(payload) } });
    }
    const timer = runTimers.set(() => req.destroy(Object.assign(new Error('request timed out'), { name: 'TimeoutError' })), o.timeoutMs);
    const onAbort = () => req.destroy(abortError());
    o.signal.addEventListener('abort', onAbort, { once: true });
    const done = (r: http.IncomingMessage | Error) => {
      runTimers.clear(timer);
      o.signal.removeEventListener('abort', onAbort);
      resolve(r);
    };
    req.on('response', done);
    req.on('error', done);
    req.end(payload);
  });
}

/**
 * A server's error text without the request's credentials: a gateway (or a model server) may
 * echo the key it refused (`Incorrect API key provided: sk-…`), and the error's message goes to
 * the session's log line. The key, and the values of headers that carry one (Azure's `api-key`).
 */
export function scrub(text: string, o: Pick<ChatStreamOptions, 'apiKey' | 'headers'>): string {
  let out = redact(text, o.apiKey);
  for (const [name, value] of Object.entries(o.headers ?? {})) {
    if (value && /key|auth|token|secret/i.test(name)) out = redact(out, value.replace(/^Bearer\s+/i, ''));
  }
  return out;
}

/** The built-in headers, then the caller's (names compared in lower case, as HTTP does). */
export function requestHeaders(o: Pick<ChatStreamOptions, 'apiKey' | 'headers'>): http.OutgoingHttpHeaders {
  const h: http.OutgoingHttpHeaders = { authorization: `Bearer ${o.apiKey}`, 'content-type': 'application/json', accept: 'text/event-stream' };
  for (const [k, v] of Object.entries(o.headers ?? {})) {
    if (v === null) delete h[k.toLowerCase()];
    else h[k.toLowerCase()] = v;
  }
  return h;
}

/** The SSE events of a 2xx response as chunks, until `[DONE]` or the end of the body. */
async function* events(res: http.IncomingMessage, o: ChatStreamOptions): AsyncGenerator<Chunk[]> {
  const { signal } = o;
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => queue.push(e) });
  // An abort mid-stream ends the body, as the SDK's stream does: the caller sees the end.
  const onAbort = () => res.destroy(abortError());
  signal.addEventListener('abort', onAbort, { once: true });
  let finished = false;
  try {
    res.setEncoding('utf8');
    for await (const text of res as AsyncIterable<string>) {
      parser.feed(text);
      const batch: Chunk[] = [];
      for (const e of queue) {
        if (e.data.startsWith('[DONE]')) finished = true;
        if (finished) continue;
        const data = JSON.parse(e.data) as Chunk & { error?: object };
        if (data.error) {
          // What came before the error is handed on first, as it would have been alone.
          queue.length = 0;
          if (batch.length) yield batch;
          throw new APIError(undefined, (JSON.parse(scrub(e.data, o)) as { error: object }).error, undefined, headersOf(res));
        }
        batch.push(data);
      }
      queue.length = 0;
      if (batch.length) yield batch;
    }
    finished = true;
  } catch (err) {
    if (signal.aborted) return;
    throw err;
  } finally {
    signal.removeEventListener('abort', onAbort);
    // Left early (the consumer stopped reading): the rest of the answer is not wanted.
    if (!finished) res.destroy();
  }
}

function headersOf(res: http.IncomingMessage): Headers {
  const h = new Headers();
  for (let i = 0; i < res.rawHeaders.length; i += 2) h.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
  return h;
}

async function readText(res: http.IncomingMessage): Promise<string> {
  res.setEncoding('utf8');
  let text = '';
  for await (const part of res as AsyncIterable<string>) text += part;
  return text;
}

/** The SDK's rule: the server's x-should-retry, else 408, 409, 429 and 5xx. */
function shouldRetry(status: number, headers: Headers): boolean {
  const said = headers.get('x-should-retry');
  if (said === 'true') return true;
  if (said === 'false') return false;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** The SDK's wait: retry-after-ms / retry-after when given (up to a minute), else 0.5 s doubling to 8 s, less up to 25 % jitter. */
function retryDelay(headers: Headers | undefined, retried: number): number {
  const ms = Number.parseFloat(headers?.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0 && ms < 60_000) return ms;
  const after = headers?.get('retry-after');
  if (after) {
    const s = Number.parseFloat(after);
    const wait = Number.isFinite(s) ? s * 1000 : Date.parse(after) - Date.now();
    if (wait >= 0 && wait < 60_000) return wait;
  }
  return Math.min(0.5 * 2 ** retried, 8) * (1 - Math.random() * 0.25) * 1000;
}

/** Waits before a retry; an abort ends the wait as the SDK's does, with its error class. */
function wait(ms: number, signal: AbortSignal): Promise<void> {
  return sleep(ms, signal).catch(() => {
    throw new APIUserAbortError();
  });
}

const abortError = () => new DOMException('This operation was aborted', 'AbortError');

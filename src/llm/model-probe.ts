/**
 * The cheapest question a model's server answers without spending tokens: `GET {baseURL}/models`
 * (readiness, src/server/service-reachability.ts). It fails as a streamed request does (the
 * `openai` package's error classes), so its answer is classified the same way.
 */
import http from 'node:http';
import https from 'node:https';
import { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai/core/error';
import { runTimers } from '../service/run-time.ts';
import { requestHeaders, scrub } from './chat-stream.ts';

export interface ModelProbeOptions {
  baseURL: string;
  apiKey: string;
  headers?: Record<string, string | null>;
  query?: Record<string, string>;
  /** Until the whole answer. */
  timeoutMs: number;
}

/** Resolves on a 2xx; rejects with `APIError.generate` for another status, a connection error or a timeout. */
export function probeModels(o: ModelProbeOptions): Promise<void> {
  const url = new URL(`${o.baseURL.replace(/\/+$/, '')}/models`);
  for (const [k, v] of Object.entries(o.query ?? {})) url.searchParams.set(k, v);
  // The built-in headers (the key, a gateway's own), less the body's.
  const headers: http.OutgoingHttpHeaders = { ...requestHeaders(o), accept: 'application/json' };
  delete headers['content-type'];
  return new Promise((resolve, reject) => {
    const req = (url.protocol === 'https:' ? https : http).request(url, { method: 'GET', headers, agent: false });
    // Until the whole answer: a server that sends its headers and then nothing holds no probe. In
    // run time, as the other clients' timeouts: an answer that came while the process stalled is read.
    const timer = runTimers.set(() => req.destroy(Object.assign(new Error('timed out'), { name: 'TimeoutError' })), o.timeoutMs);
    const fail = (err: Error) => {
      runTimers.clear(timer);
      reject(err.name === 'TimeoutError' ? new APIConnectionTimeoutError() : new APIConnectionError({ message: `Connection error: ${err.message}`, cause: err }));
    };
    req.on('error', fail);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      // The error's words only: a server answering a huge page is not read whole.
      res.on('data', (part: string) => {
        if (text.length < 4096) text += part;
      });
      res.on('error', fail);
      res.on('end', () => {
        runTimers.clear(timer);
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) return resolve();
        let json: object | undefined;
        try {
          json = JSON.parse(scrub(text, o)) as object;
        } catch {
          json = undefined;
        }
        reject(APIError.generate(status, json, json ? undefined : scrub(text, o) || undefined, new Headers()));
      });
    });
    req.end();
  });
}

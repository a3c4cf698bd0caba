/**
 * What a failed transfer was, from what the transport or the platform hook threw: an HTTP
 * refusal from the platform's API is not a lost connection, and the operator acts on each
 * differently (fix the request or the key, wait, or fix the hook's own code).
 */
import { CALL_ENDED } from '../transport/call-ended.ts';
import { failureMessage, type Failure, type FailureSource } from './failure.ts';

/** Error codes of a request that never reached the platform (Node's sockets and DNS, undici's fetch). */
const UNREACHED = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
/** Error codes and names of a request that got no answer in time. */
const TIMED_OUT = new Set(['ETIMEDOUT', 'ESOCKETTIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'TimeoutError']);

type Thrown = { status?: unknown; statusCode?: unknown; response?: { status?: unknown }; code?: unknown; name?: unknown; cause?: unknown };

/** The HTTP status the error carries: `status`, `statusCode`, or axios's `response.status`. */
function httpStatus(err: Thrown): number | undefined {
  const s = err.status ?? err.statusCode ?? err.response?.status;
  return typeof s === 'number' && s >= 400 && s < 600 ? s : undefined;
}

/** The error's code or name, or its cause's (`fetch` throws "fetch failed" with the socket's error as cause). */
function codes(err: Thrown): unknown[] {
  const cause = (err.cause ?? {}) as Thrown;
  return [err.code, err.name, cause.code, cause.name];
}

/** Who failed (`source`) and how (`failure`) for a transfer to `target` that threw `err`. */
export function transferFailure(target: string, err: unknown): { source: FailureSource; failure: Failure } {
  const e = (err ?? {}) as Thrown;
  const what = `transfer to ${target}`;
  const status = typeof err === 'object' ? httpStatus(e) : undefined;
  if (status !== undefined) {
    const kind = status === 401 || status === 403 ? 'auth' : status === 429 ? 'rate' : status === 408 ? 'timeout' : status >= 500 ? 'network' : 'protocol';
    const message = status >= 500 ? `the platform answered the ${what} with a server error (HTTP ${status})` : `the platform refused the ${what} (HTTP ${status})`;
    return { source: 'transport', failure: { kind, message } };
  }
  const said = typeof err === 'object' ? codes(e) : [];
  if (said.includes(CALL_ENDED)) return { source: 'transport', failure: { kind: 'network', message: `the call ended before the ${what}` } };
  if (said.some((c) => TIMED_OUT.has(c as string))) return { source: 'transport', failure: { kind: 'timeout', message: `the platform did not answer the ${what} in time` } };
  if (said.some((c) => UNREACHED.has(c as string))) return { source: 'transport', failure: { kind: 'network', message: `the platform could not be reached for the ${what}` } };
  // Nothing says the platform or the network failed: the hook's own code threw (or said too little to tell).
  return { source: 'agent', failure: { kind: 'hook', message: failureMessage('agent', 'hook', `the transfer hook, ${what}`) } };
}

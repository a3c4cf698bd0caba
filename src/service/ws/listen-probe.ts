/**
 * Whether the key may open the live recognition socket, asked without spending audio: `/listen`
 * refuses a key as soon as the connection is made (an HTTP status at the handshake, or an
 * `Error` event then close 1008), and accepts it with the opening `Metadata`. The probe waits
 * for one or the other, then sends `CloseStream` with no audio sent: the service closes with
 * nothing to transcribe and nothing billed (`audio_seconds_billed` 0). It holds one of the
 * key's concurrent sessions for that moment. `GET /models`, the cheap request, says nothing of
 * this: a key may be restricted to some endpoints (text-to-speech, say, and not `/listen`).
 */
import { filter, firstValueFrom } from '../../rx.ts';
import type { ServiceConfig } from '../config.ts';
import { AuthenticationError, InsufficientBalanceError, PermissionDeniedError, RateLimitError, ServiceError, TransportError } from '../errors.ts';
import { runTimers } from '../run-time.ts';
import type { CloseInfo } from './close-codes.ts';
import { ListenSocket, type ListenOptions } from './listen.ts';

/** Defaults of `probeListen`. */
export const LISTEN_PROBE_DEFAULTS = {
  /** How long the probe waits for the handshake, then for the service's first word (ms of run time). */
  timeoutMs: 5_000,
} as const;

/** What a `/listen` probe asks with: the socket's own options that choose what is asked for. */
export type ListenProbeOptions = Pick<ListenOptions, 'model' | 'language' | 'sample_rate' | 'auth' | 'signal' | 'timeoutMs'>;

/** The endpoint a probe's refusal names (`ServiceError.endpoint`). */
export const LISTEN_ENDPOINT = '/listen';

/**
 * Resolves when the service accepts `/listen` for the key (the opening `Metadata`, or no refusal
 * within `timeoutMs`); rejects with the typed error of a refusal, as an HTTP call would raise it:
 * `AuthenticationError` (not a valid key), `PermissionDeniedError` (a valid key that may not
 * call `/listen` or its model), `InsufficientBalanceError`, `RateLimitError`, or the connection's
 * own `TransportError`.
 */
export async function probeListen(cfg: ServiceConfig, opts: ListenProbeOptions = {}): Promise<void> {
  const timeoutMs = opts.timeoutMs ?? LISTEN_PROBE_DEFAULTS.timeoutMs;
  // A refused handshake rejects here with its typed error (openSocket).
  const socket = await ListenSocket.connect(cfg, { ...opts, timeoutMs, keepAliveMs: 0 });
  let lastError: string | undefined;
  let timer: unknown;
  const first = firstValueFrom(
    socket.events$.pipe(
      filter((e) => {
        if (e.type === 'Error') lastError = e.message;
        return (e.type === 'Metadata' && e.phase === 'open') || e.type === 'Closed';
      }),
    ),
    { defaultValue: undefined },
  );
  // Nothing refused in time on an open socket: the service took it (a refusal comes at once).
  const quiet = new Promise<undefined>((resolve) => (timer = runTimers.set(() => resolve(undefined), timeoutMs)));
  const e = await Promise.race([first, quiet]);
  runTimers.clear(timer);
  if (e?.type === 'Closed') throw refusalOfClose(e.close, lastError);
  await socket.finish(timeoutMs);
}

/** The typed error a `/listen` close right after the connection stands for. */
export function refusalOfClose(close: CloseInfo, lastError?: string): Error {
  const errorMessage = lastError || close.reason || `closed ${close.code}`;
  if (close.kind === 'unauthorized') {
    // 1008 is the key's, or its access: the service's words tell a valid key without the endpoint.
    const denied = /access|denied|cannot call|not allowed|forbidden|permission|restricted/i.test(errorMessage);
    return denied
      ? new PermissionDeniedError({ status: 403, errorCode: 40301, errorMessage, endpoint: LISTEN_ENDPOINT })
      : new AuthenticationError({ status: 401, errorCode: 40101, errorMessage, endpoint: LISTEN_ENDPOINT });
  }
  if (close.kind === 'insufficient_balance') return new InsufficientBalanceError({ status: 402, errorCode: undefined, errorMessage, endpoint: LISTEN_ENDPOINT });
  if (close.kind === 'rate_limited') return new RateLimitError({ status: 429, errorCode: 42901, errorMessage, endpoint: LISTEN_ENDPOINT });
  if (close.kind === 'bad_parameter') return new ServiceError({ status: 400, errorCode: 40001, errorMessage, endpoint: LISTEN_ENDPOINT });
  return new TransportError(`${LISTEN_ENDPOINT}: closed before it answered (${close.code}${close.reason ? `: ${close.reason}` : ''})`, 'network');
}

/** Backoff decisions, kept free of I/O so they can be tested without waiting. */
export interface BackoffPolicy {
  baseMs: number;
  capMs?: number;
}

/**
 * Delay before retry number `attempt` (0-based): full-jitter exponential backoff, but never
 * shorter than the server's Retry-After when it gave one.
 */
export function backoffDelay(
  attempt: number,
  policy: BackoffPolicy,
  retryAfterMs?: number,
  random: () => number = Math.random,
): number {
  const cap = policy.capMs ?? 20_000;
  const exp = Math.min(cap, policy.baseMs * 2 ** attempt);
  const jittered = exp / 2 + random() * (exp / 2);
  return Math.max(jittered, Math.min(retryAfterMs ?? 0, 60_000));
}

/** Waits, but wakes up early (rejecting) when the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

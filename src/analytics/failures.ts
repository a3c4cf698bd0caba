import { InsufficientBalanceError, ServiceError, TransportError } from '../service/errors.ts';

/** What to do with a job that failed: try again later, park it for a person, or give up. */
export type FailureVerdict =
  | { action: 'retry'; reason: string; retryAfterMs?: number }
  | { action: 'park'; reason: string }
  | { action: 'fail'; reason: string };

/** A step of the job failed in a way the job itself decided (a webhook answer, a missing file). */
export class AnalyticsError extends Error {
  override name = 'AnalyticsError';
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

/**
 * The one place a failure becomes a verdict. 429 and 5xx (and a network failure) clear up on
 * their own: retry with backoff. 402 will not clear until someone tops the wallet up: retrying
 * would only knock on the door, so the job is parked with the reason. Anything else (a bad
 * recording, 400, 401) needs a person too, and is failed at once.
 */
export function verdictOf(err: unknown): FailureVerdict {
  if (err instanceof InsufficientBalanceError || (err instanceof ServiceError && err.status === 402)) {
    return {
      action: 'park',
      reason: `parked: the service's wallet cannot pay for this call's analytics (${err.message}); top the balance up, then retry the job`,
    };
  }
  if (err instanceof ServiceError) {
    return err.retryable
      ? { action: 'retry', reason: err.message, retryAfterMs: err.retryAfterMs }
      : { action: 'fail', reason: err.message };
  }
  if (err instanceof TransportError) {
    return err.kind === 'aborted' ? { action: 'fail', reason: err.message } : { action: 'retry', reason: err.message };
  }
  if (err instanceof AnalyticsError) {
    return err.retryable ? { action: 'retry', reason: err.message, retryAfterMs: err.retryAfterMs } : { action: 'fail', reason: err.message };
  }
  return { action: 'fail', reason: err instanceof Error ? err.message : String(err) };
}

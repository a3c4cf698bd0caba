/**
 * The reason hiwar gives when it cancels one of its own timers. Timers are re-armed per audio
 * frame or per model token in places; `abort()` without a reason builds a DOMException, stack
 * trace included, every time (a visible share of a 100-call profile). No Node imports: the
 * model deadlines use it, and they reach the browser page through the session's failure types.
 */
export const TIMER_CANCELLED = new Error('timer cancelled');

/** Cancels a sleep started with this controller's signal, without building an error for it. */
export function cancelTimer(ctrl: AbortController | undefined): void {
  ctrl?.abort(TIMER_CANCELLED);
}

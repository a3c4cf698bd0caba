/**
 * The agent's own code (hooks, handoff hooks) runs inside the session's RxJS subscribers and
 * timers: a throw there would be an uncaught exception that ends the process and every call on
 * it. Each call goes through `guarded`, which turns a throw, sync or async, into a report.
 */

/** What a guarded call reports when the user's code threw. */
export type HookThrew = (hook: string, error: unknown) => void;

/**
 * Runs `fn` (a user hook); a sync throw or a rejected promise goes to `threw` and the result is
 * `undefined`. An async hook is not awaited here: its rejection is still caught.
 */
export function guarded<T>(hook: string, fn: () => T, threw: HookThrew): T | undefined {
  try {
    const r = fn();
    if (r instanceof Promise) r.catch((err: unknown) => threw(hook, err));
    return r;
  } catch (err) {
    threw(hook, err);
    return undefined;
  }
}

/** As `guarded`, awaited: resolves with the hook's value, or `undefined` when it threw. */
export async function guardedAsync<T>(hook: string, fn: () => T | Promise<T>, threw: HookThrew): Promise<T | undefined> {
  try {
    return await fn();
  } catch (err) {
    threw(hook, err);
    return undefined;
  }
}

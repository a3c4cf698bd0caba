/**
 * When a command that runs until stopped (`hiwar sandbox`, `worker`, `campaign start|worker`,
 * `console`) should stop: SIGTERM, SIGINT, or the npm process that started it going away. npm
 * (`npx hiwar sandbox`, `npm start`) runs a command through `sh -c` and, killed, passes its
 * SIGTERM to that shell alone, which dies without passing it on: the command kept running,
 * orphaned, holding its port. So, as `hiwar serve` does (serve-preflight.ts), an npm-started
 * command watches its parent and stops when it changes. stdin is not watched: under a terminal
 * it stays open after npm has gone, and a service manager may start a command with none.
 */
import { watchParent } from './serve-preflight.ts';

/** What a command says when the npm process that started it went away (it stops as on SIGTERM). */
export const parentGone = (command: string): string => `the npm process that started hiwar ${command} is gone`;

/** How the stop is watched; the defaults are the process's own (a test gives its own). */
export interface StopWatch {
  env?: NodeJS.ProcessEnv;
  ppid?: () => number;
  everyMs?: number;
}

/**
 * Calls `stop` once, with why (`SIGTERM`, `SIGINT` or `parentGone(command)`), at the first of
 * them; returns the end of the watch (its listeners and timer removed). A second SIGINT after
 * the first ends the process at once, as Node's default does (Ctrl-C twice).
 */
export function onStop(command: string, stop: (why: string) => void, o: StopWatch = {}): () => void {
  let done = false;
  const once = (why: string) => {
    if (done) return;
    done = true;
    off();
    stop(why);
  };
  const onTerm = () => once('SIGTERM');
  const onInt = () => once('SIGINT');
  process.once('SIGTERM', onTerm);
  process.once('SIGINT', onInt);
  const unwatch = watchParent(() => once(parentGone(command)), o.env, o.ppid, o.everyMs);
  const off = () => {
    process.off('SIGTERM', onTerm);
    process.off('SIGINT', onInt);
    unwatch();
  };
  return off;
}

/** Resolves with why the command should stop (see `onStop`). */
export function untilStopped(command: string, o: StopWatch = {}): Promise<string> {
  return new Promise((resolve) => onStop(command, resolve, o));
}

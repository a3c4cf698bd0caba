/**
 * What `hiwar serve` checks and watches around its start, outside the server itself: the ports
 * it will listen on are free before anything slow starts (the embedded sandbox voices the
 * agent's phrases first: a minute on a busy machine, then the port was found taken), and the
 * npm process that started it (`npx hiwar serve`, `npm start`) is still there while it runs.
 */
import { createServer } from 'node:net';

/**
 * Resolves once `port` on `host` could be listened on (and is let go again); rejects with the
 * listen error (EADDRINUSE, EACCES, EADDRNOTAVAIL) otherwise, which explainError turns into one
 * line. Port 0 (any free one) is not checked. Exclusive: never through a cluster primary's
 * shared handle, which would answer for another process's port.
 */
export function ensurePortFree(port: number, host: string): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

/** What `hiwar serve` says when the npm process that started it went away (it drains as on SIGTERM). */
export const PARENT_GONE = 'the npm process that started hiwar serve is gone';

/** How often the parent is looked at: a drain that starts a second late is no harm. */
export const PARENT_WATCH_MS = 1000;

/**
 * Calls `gone` once when the process that started this one goes away, if npm started it: npm
 * (npx, npm run, npm start) runs the command through `sh -c`, and when npm is killed it signals
 * that shell, which dies without passing the signal on: the server (and its workers) kept running,
 * orphaned. Its parent's pid then changes (to 1 or a subreaper). Outside npm nothing is watched:
 * `nohup hiwar serve &` is meant to outlive its shell. Returns the stop of the watch.
 */
export function watchParent(gone: () => void, env: NodeJS.ProcessEnv = process.env, ppid: () => number = () => process.ppid, everyMs = PARENT_WATCH_MS): () => void {
  if (!env.npm_lifecycle_event) return () => {};
  const first = ppid();
  const timer = setInterval(() => {
    if (ppid() === first) return;
    clearInterval(timer);
    gone();
  }, everyMs);
  // The watch alone never keeps the process up.
  timer.unref();
  return () => clearInterval(timer);
}

/**
 * Every port `hiwar serve` will listen on, in turn (the HTTP port, then the AudioSocket port),
 * each with the flag that sets it: a port found taken rejects with that flag in the error's
 * `flag`, for explainError to name (the AudioSocket port's refusal said `--port N`).
 */
export async function ensurePortsFree(host: string, ...ports: { port: number | undefined; flag: string }[]): Promise<void> {
  for (const { port, flag } of ports) {
    if (port === undefined) continue;
    await ensurePortFree(port, host).catch((err: unknown) => {
      throw Object.assign(err as Error, { flag });
    });
  }
}

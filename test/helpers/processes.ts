import { spawn } from 'node:child_process';
import { Deadline } from './deadline.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const BIN = new URL('../../bin/hiwar.js', import.meta.url).pathname;

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Any command in a child process, from `cwd`, with what it printed. Rejects once it has run
 * `timeoutMs` of the time the machine could give it (a load-scaled `Deadline`: a starved command
 * is slow, not stuck), killed.
 */
export function runCommand(command: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<Finished> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const deadline = new Deadline(timeoutMs);
    const started = Date.now();
    const timer = setInterval(() => {
      if (!deadline.expired) return;
      clearInterval(timer);
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} still running after ${timeoutMs} ms of the machine's time (${Date.now() - started} ms of wall time)\n${stdout}\n${stderr}`));
    }, Math.min(1000, timeoutMs));
    child.on('error', (err) => (clearInterval(timer), reject(err)));
    child.on('close', (code) => {
      clearInterval(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * `execFile` with its wall-time `timeout` replaced by the load-scaled one of `runCommand`:
 * resolves with what the command printed when it exits 0, rejects with its code and output
 * otherwise (from the repository root unless `cwd` is given).
 */
export async function execOk(command: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<{ stdout: string; stderr: string }> {
  const r = await runCommand(command, args, { cwd: opts.cwd ?? ROOT, env: opts.env, timeoutMs: opts.timeoutMs });
  if (r.code !== 0) throw Object.assign(new Error(`${command} ${args.join(' ')} exited ${r.code}\n${r.stdout}\n${r.stderr}`), r);
  return { stdout: r.stdout, stderr: r.stderr };
}

/**
 * Runs `node ARGS` from the repository root (or `cwd`), as a user would, and collects what it printed.
 * HIWAR_API_KEY is cleared unless `env` sets it (a key in the test's shell must not reach the
 * service). A process still running after `timeoutMs` is killed and the promise rejects with its
 * output: what the tests check is often that a command ends at all.
 */
export function runNode(args: string[], env: Record<string, string | undefined> = {}, timeoutMs = 60_000, cwd = ROOT): Promise<Finished> {
  return runCommand(process.execPath, args, { cwd, env: { ...process.env, HIWAR_API_KEY: '', ...env }, timeoutMs });
}

/** The real `hiwar` command in a child process (from `cwd`, the repository root by default). */
export const hiwar = (args: string[], env: Record<string, string | undefined> = {}, timeoutMs = 60_000, cwd = ROOT): Promise<Finished> => runNode([BIN, ...args], env, timeoutMs, cwd);

/** Whether a process with this id is still there (signal 0 checks without sending anything). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * `p`, with the process held open until it settles: for awaiting code whose own timers are
 * unref'd (as a library's watches must be), which alone would let the test's event loop empty
 * and node:test cancel the test before the first tick.
 */
export async function heldOpen<T>(p: Promise<T>): Promise<T> {
  const hold = setInterval(() => {}, 1000);
  try {
    return await p;
  } finally {
    clearInterval(hold);
  }
}

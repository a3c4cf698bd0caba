import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { Deadline } from '../helpers/deadline.ts';

const BIN = new URL('../../bin/hiwar.js', import.meta.url).pathname;

/** `hiwar serve` as its own process, its stdout and stderr read as one text. */
export interface ServeProcess {
  child: ChildProcess;
  /** What it printed so far. */
  out(): string;
  /** Waits (90 s at most) until the output matches; fails naming `what`, with the output, if it exits first. */
  until(re: RegExp, what: string): Promise<void>;
  /** Resolves with [exit code, signal]. */
  exited: Promise<unknown[]>;
}

/** Starts `hiwar serve ARGS` with the environment given. */
export function spawnServe(args: string[], env: NodeJS.ProcessEnv): ServeProcess {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return {
    child,
    out: () => out,
    exited: once(child, 'exit'),
    async until(re, what) {
      const deadline = new Deadline(90_000);
      while (!re.test(out)) {
        if (deadline.expired || child.exitCode !== null) throw new Error(`${what} not seen:\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}

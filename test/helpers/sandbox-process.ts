/**
 * The sandbox in a process of its own (`hiwar sandbox --port 0`), as a deployment has the service
 * on other machines. A test whose product part runs on the real clock (WebRTC) keeps the
 * sandbox's recognition and voicing off the CPU share of the process under test: starved
 * (scripts/starve.mjs), a sandbox in the test's process runs behind real time and the product
 * hears the caller late for the rig's sake, not its own. scripts/starve.mjs leaves this process
 * running (HIWAR_STARVE_EXEMPT): it starves the product's machine, not the service's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { ServiceClient } from '../../src/service/index.ts';
import { Deadline } from './deadline.ts';

const BIN = new URL('../../bin/hiwar.js', import.meta.url).pathname;

/** A sandbox process: its URL, generated key and a client for it. */
export interface SandboxProcess {
  url: string;
  key: string;
  client: ServiceClient;
  child: ChildProcess;
  close(): Promise<void>;
}

/** Starts `hiwar sandbox` on a free port (with `extraEnv` on top of this process's) and waits for the URL and key it prints. */
export async function runSandboxProcess(extraEnv: NodeJS.ProcessEnv = {}): Promise<SandboxProcess> {
  // Exempt from scripts/starve.mjs: the service is not on the starved machine.
  const env = { ...process.env, ...extraEnv, HIWAR_STARVE_EXEMPT: '1' };
  const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const deadline = new Deadline(60_000);
  const found = () => /serving (http:\/\/\S+)/.exec(out) && /API key: (\S+)/.exec(out);
  while (!found()) {
    if (child.exitCode !== null || deadline.expired) {
      child.kill('SIGKILL');
      throw new Error(`hiwar sandbox did not start (exit ${child.exitCode ?? 'none'}):\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const url = /serving (http:\/\/\S+)/.exec(out)![1]!;
  const key = /API key: (\S+)/.exec(out)![1]!;
  return {
    url,
    key,
    child,
    client: new ServiceClient({ apiKey: key, baseUrl: url, retryBaseMs: 5, maxRetries: 0 }),
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

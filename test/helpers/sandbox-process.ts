/**
 * The sandbox in a process of its own (`hiwar sandbox --port 0`), as a deployment has the service
 * on other machines. A test whose product part runs on the real clock (WebRTC) keeps the
 * sandbox's recognition and voicing off the CPU share of the process under test: starved
 * (scripts/starve.mjs), a sandbox in the test's process runs behind real time and the product
 * hears the caller late for the rig's sake, not its own. scripts/starve.mjs leaves this process
 * running (HIWAR_STARVE_EXEMPT): it starves the product's machine, not the service's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
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

/** Starts `hiwar sandbox` on a free port (with `args`, e.g. `--ahead-limit`, and `extraEnv` on top of this process's) and waits for the URL and key it prints. */
export async function runSandboxProcess(args: string[] = [], extraEnv: NodeJS.ProcessEnv = {}): Promise<SandboxProcess> {
  // Exempt from scripts/starve.mjs: the service is not on the starved machine.
  const env = { ...process.env, ...extraEnv, HIWAR_STARVE_EXEMPT: '1' };
  const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const deadline = new Deadline(60_000);
  // A generated key is printed; with --keys FILE, the file's first key is the client's.
  const keysFile = args.includes('--keys') ? args[args.indexOf('--keys') + 1] : undefined;
  const found = () => /serving (http:\/\/\S+)/.exec(out) && (keysFile ? /key\(s\) loaded/.exec(out) : /API key: (\S+)/.exec(out));
  while (!found()) {
    if (child.exitCode !== null || deadline.expired) {
      child.kill('SIGKILL');
      throw new Error(`hiwar sandbox did not start (exit ${child.exitCode ?? 'none'}):\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const url = /serving (http:\/\/\S+)/.exec(out)![1]!;
  const key = keysFile ? (JSON.parse(readFileSync(keysFile, 'utf8')) as { key: string }[])[0]!.key : /API key: (\S+)/.exec(out)![1]!;
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

/**
 * A key's wallet as a client sees it, for a sandbox in another process: a synthesis costing more
 * than `above` credits is refused (402) with the balance in its message, and charges nothing.
 * The key's wallet must hold less than `above`.
 */
export async function walletOf(sb: SandboxProcess, key: string, above: number): Promise<number> {
  const client = new ServiceClient({ apiKey: key, baseUrl: sb.url, maxRetries: 0 });
  try {
    // Two credits a character: this text costs more than `above`.
    await client.synthesizeWav(client.config.models.tts, { voice_id: 'ar-najdi-male-2', text: 'ا'.repeat(Math.ceil(above / 2) + 1) });
  } catch (err) {
    const m = /Available: (\d+) credits/.exec((err as Error).message);
    if (m) return Number(m[1]);
    throw err;
  }
  throw new Error(`a synthesis costing more than ${above} credits was not refused: the wallet holds more`);
}

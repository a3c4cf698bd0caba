/**
 * The telephony density rig against a real `hiwar serve --workers N` in processes of its own
 * (bench/density-serve.ts is its config): the same Twilio callers' process as the in-process rig,
 * the server's CPU, memory and run-queue wait read from /proc for the primary and every worker.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FakeServiceProcess } from './fake-service.ts';
import { callerProcess, type TelephonyRig } from './telephony-density.ts';
import { serverCommand } from './pin.ts';
import { benchScript } from './script.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function serveRig(fake: Pick<FakeServiceProcess, 'baseUrl' | 'llmBaseUrl'>, workers: number, phases: number): Promise<TelephonyRig> {
  const dir = mkdtempSync(join(tmpdir(), 'hiwar-density-'));
  const bin = fileURLToPath(new URL('../bin/hiwar.js', import.meta.url));
  const config = benchScript('density-serve');
  const env = { ...process.env, HIWAR_API_KEY: '', HIWAR_BENCH_DIR: dir, HIWAR_BENCH_FAKE_URL: fake.baseUrl, HIWAR_BENCH_FAKE_LLM: fake.llmBaseUrl };
  // With a pin in force, `hiwar serve` and the workers it forks start on the server's CPUs.
  const child = spawn(...serverCommand(process.execPath, [bin, 'serve', '--config', config, '--port', '0', '--open', '--max-calls', '10000', '--workers', String(workers)]), { env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  const up = () => /at (http:\/\/[\d.]+:\d+)/.exec(out) && (workers === 1 || /workers: \d+ processes/.test(out));
  for (let i = 0; i < 1200 && !up(); i++) {
    if (child.exitCode !== null) throw new Error(`hiwar serve exited (${child.exitCode}):\n${out}`);
    await sleep(100);
  }
  if (!up()) throw new Error(`hiwar serve did not start in 2 minutes:\n${out}`);
  const url = /at (http:\/\/[\d.]+:\d+)/.exec(out)![1]!;
  const alive = (pid: number) => existsSync(`/proc/${pid}`);
  const counts = () =>
    readdirSync(dir).flatMap((f) => {
      try {
        const c = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { pid: number; frames: number; late: number };
        return [c];
      } catch {
        return [];
      }
    });
  const sum = (k: 'frames' | 'late') => counts().reduce((n, c) => n + c[k], 0);
  const callers = callerProcess(url, phases);
  return {
    arrivals: {
      get frames() {
        return sum('frames');
      },
      get late() {
        return sum('late');
      },
    },
    // The primary (it accepts every connection and hands it on) and the live workers.
    pids: () => [child.pid!, ...counts().map((c) => c.pid).filter((p) => p !== child.pid && alive(p))],
    rigPids: callers.rigPids,
    where: `hiwar serve --workers ${workers} (processes of its own)`,
    start: callers.start,
    stats: callers.stats,
    stop: async () => {
      await callers.stop();
      // The calls end on the server once their sockets close; give them a moment.
      await sleep(2000);
    },
    close: async () => {
      callers.kill();
      child.kill('SIGTERM');
      for (let i = 0; i < 300 && child.exitCode === null && child.signalCode === null; i++) await sleep(100);
      if (child.exitCode === null) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

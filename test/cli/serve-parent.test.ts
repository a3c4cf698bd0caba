/**
 * `npx hiwar serve` runs the command as npm does: through `sh -c`, npm's child. Killing npm
 * signals that shell, which dies without passing the signal on, and the server (with its workers)
 * kept running, orphaned. Here the shell is killed outright (SIGKILL: no signal reaches node at
 * all) and the server, started with npm's environment, must notice its parent gone, drain and end.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { PARENT_GONE, watchParent } from '../../src/cli/serve-preflight.ts';
import { Deadline } from '../helpers/deadline.ts';
import { alive } from '../helpers/processes.ts';
import { runSandbox, type Running } from '../helpers/sandbox.ts';

const BIN = new URL('../../bin/hiwar.js', import.meta.url).pathname;

let sandbox: Running;
const shells: ChildProcess[] = [];
const servers: number[] = [];

before(async () => {
  sandbox = await runSandbox();
});

after(async () => {
  for (const pid of servers) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already, as it should be.
    }
  }
  for (const s of shells) if (s.exitCode === null && s.signalCode === null) s.kill('SIGKILL');
  await sandbox?.close();
});

/** `hiwar serve` under a shell, as `npx hiwar serve` runs it; the output of the shell and everything under it. */
function underShell(args: string[], npm: boolean) {
  const env: NodeJS.ProcessEnv = { ...process.env, HIWAR_LOG_LEVEL: 'info', HIWAR_API_KEY: sandbox.key, HIWAR_BASE_URL: sandbox.sandbox.url, REDIS_URL: '', HIWAR_PUBLIC_URL: '' };
  delete env.npm_lifecycle_event;
  if (npm) env.npm_lifecycle_event = 'npx';
  // `& … wait`: the shell stays node's parent (as npm's `sh -c` does) and says node's pid.
  const shell = spawn('sh', ['-c', `"${process.execPath}" "${BIN}" serve --port 0 ${args.join(' ')} & echo "server pid $!"; wait`], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  shells.push(shell);
  let out = '';
  shell.stdout!.on('data', (d) => (out += d));
  shell.stderr!.on('data', (d) => (out += d));
  // The pipes close once every process holding them (the shell, the server, its workers) has ended.
  const closed = Promise.all([once(shell.stdout!, 'close'), once(shell.stderr!, 'close')]);
  let done = false;
  void closed.then(() => (done = true));
  return {
    shell,
    out: () => out,
    done: () => done,
    async waitFor(re: RegExp, what: string, ms = 120_000): Promise<RegExpExecArray> {
      const deadline = new Deadline(ms);
      for (;;) {
        const m = re.exec(out);
        if (m) return m;
        if (deadline.expired || done) throw new Error(`${what}: not seen:\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async ended(what: string, ms = 120_000): Promise<void> {
      const deadline = new Deadline(ms);
      while (!done) {
        if (deadline.expired) throw new Error(`${what}: still running:\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
  };
}


describe('hiwar serve started by npm, whose shell is killed', () => {
  it('one process: it says its parent is gone, drains and ends', async () => {
    const s = underShell([], true);
    servers.push(Number((await s.waitFor(/server pid (\d+)/, "the server's pid"))[1]));
    await s.waitFor(/hiwar serve: agent/, 'the server to start');
    s.shell.kill('SIGKILL');
    await s.ended('the orphaned server');
    assert.ok(s.out().includes(`${PARENT_GONE}: draining (0 calls running`), s.out());
    assert.match(s.out(), /drained; bye/);
  });

  it('--workers 2: the primary drains both workers and ends with them', async () => {
    const s = underShell(['--workers', '2'], true);
    const primary = Number((await s.waitFor(/server pid (\d+)/, "the primary's pid"))[1]);
    servers.push(primary);
    const up = await s.waitFor(/workers: 2 processes .*worker 1 pid (\d+), worker 2 pid (\d+)/, 'two workers to start');
    servers.push(Number(up[1]), Number(up[2]));
    s.shell.kill('SIGKILL');
    await s.ended('the orphaned primary and its workers');
    assert.ok(s.out().includes(`${PARENT_GONE}: draining 2 workers`), s.out());
    assert.match(s.out(), /drained; bye/);
    for (const pid of [primary, Number(up[1]), Number(up[2])]) assert.equal(alive(pid) && !zombie(pid), false, `process ${pid} ended`);
  });

  it('not started by npm (nohup hiwar serve &): it outlives its shell', async () => {
    const s = underShell([], false);
    const pid = Number((await s.waitFor(/server pid (\d+)/, "the server's pid"))[1]);
    servers.push(pid);
    await s.waitFor(/hiwar serve: agent/, 'the server to start');
    s.shell.kill('SIGKILL');
    await once(s.shell, 'exit');
    // Several of the watch's periods: an npm-started server would have begun draining by now.
    await new Promise((r) => setTimeout(r, 4000));
    assert.equal(alive(pid), true, s.out());
    assert.doesNotMatch(s.out(), /draining/);
    process.kill(pid, 'SIGTERM');
    await s.ended('the server after SIGTERM');
  });
});

/** A process that ended but was not reaped yet (its parent, here init, reaps it later) counts as ended. */
function zombie(pid: number): boolean {
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

describe('watchParent', () => {
  it('calls back once when the parent pid changes, only under npm, and its stop ends the watch', async () => {
    let ppid = 100;
    let calls = 0;
    const stop = watchParent(() => calls++, { npm_lifecycle_event: 'start' }, () => ppid, 5);
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(calls, 0, 'the same parent');
    ppid = 1;
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(calls, 1, 'the parent went');
    ppid = 7;
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(calls, 1, 'once');
    stop();
    let outside = 0;
    ppid = 100;
    const none = watchParent(() => outside++, {}, () => ppid++, 5);
    await new Promise((r) => setTimeout(r, 30));
    assert.equal(outside, 0, 'not started by npm: not watched');
    none();
  });
});

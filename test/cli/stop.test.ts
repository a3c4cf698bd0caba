/**
 * Commands that run until stopped end when the npm process that started them goes away:
 * `npx hiwar sandbox` runs the command through `sh -c`, and npm, given SIGTERM, passes it to
 * that shell alone, which dies without passing it on; the sandbox kept running, orphaned,
 * holding its port. Here the shell gets the SIGTERM npm forwards, as under `npx`.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { after, test } from 'node:test';
import { onStop, parentGone } from '../../src/cli/stop.ts';
import { Deadline } from '../helpers/deadline.ts';
import { alive, heldOpen } from '../helpers/processes.ts';

const BIN = new URL('../../bin/hiwar.js', import.meta.url).pathname;
const started: ChildProcess[] = [];
const pids: number[] = [];

after(() => {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone already, as it should be.
    }
  }
  for (const s of started) if (s.exitCode === null && s.signalCode === null) s.kill('SIGKILL');
});


test('onStop: the first of SIGTERM, SIGINT and the npm parent gone, once; its listeners and watch go with it', async () => {
  const before = [process.listenerCount('SIGTERM'), process.listenerCount('SIGINT')];
  const seen: string[] = [];
  onStop('sandbox', (why) => seen.push(why));
  assert.deepEqual([process.listenerCount('SIGTERM'), process.listenerCount('SIGINT')], [before[0]! + 1, before[1]! + 1]);
  process.emit('SIGTERM');
  process.emit('SIGINT');
  assert.deepEqual(seen, ['SIGTERM']);
  assert.deepEqual([process.listenerCount('SIGTERM'), process.listenerCount('SIGINT')], before, 'a second Ctrl-C is Node\'s again: it ends the process');

  // Started by npm: the parent's pid changing (npm and its shell gone) stops it.
  let ppid = 100;
  const gone = new Promise<string>((resolve) => onStop('campaign worker', resolve, { env: { npm_lifecycle_event: 'npx' }, ppid: () => ppid, everyMs: 5 }));
  ppid = 1;
  assert.equal(await heldOpen(gone), 'the npm process that started hiwar campaign worker is gone');
  assert.deepEqual([process.listenerCount('SIGTERM'), process.listenerCount('SIGINT')], before);

  // Not started by npm (`nohup hiwar worker &`): only a signal stops it.
  const outside: string[] = [];
  const off = onStop('worker', (why) => outside.push(why), { env: {}, ppid: () => ppid++, everyMs: 5 });
  await new Promise((r) => setTimeout(r, 50));
  assert.deepEqual(outside, []);
  off();
  assert.deepEqual([process.listenerCount('SIGTERM'), process.listenerCount('SIGINT')], before);
});

test('npx hiwar sandbox: SIGTERM to npm reaches only its shell, and the sandbox stops with it', async () => {
  const env: NodeJS.ProcessEnv = { ...process.env, npm_lifecycle_event: 'npx' };
  // `& … wait`: the shell stays node's parent, as npm's `sh -c` does, and says node's pid.
  const shell = spawn('sh', ['-c', `"${process.execPath}" "${BIN}" sandbox --port 0 & echo "sandbox pid $!"; wait`], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  started.push(shell);
  let out = '';
  shell.stdout!.on('data', (d) => (out += d));
  shell.stderr!.on('data', (d) => (out += d));
  // The pipes close once every process holding them (the shell and the sandbox) has ended.
  let done = false;
  void Promise.all([once(shell.stdout!, 'close'), once(shell.stderr!, 'close')]).then(() => (done = true));
  const waitFor = async (cond: () => boolean, what: string) => {
    const deadline = new Deadline(120_000);
    while (!cond()) {
      if (deadline.expired) throw new Error(`${what}: not seen:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  await waitFor(() => /sandbox pid \d+/.test(out), "the sandbox's pid");
  const pid = Number(/sandbox pid (\d+)/.exec(out)![1]);
  pids.push(pid);
  await waitFor(() => /hiwar sandbox serving/.test(out) && /recognizes only phrases/.test(out), 'the sandbox to start');
  shell.kill('SIGTERM');
  await once(shell, 'exit');
  await waitFor(() => done, 'the orphaned sandbox to end');
  assert.ok(out.includes(`${parentGone('sandbox')}: stopping the sandbox`), out);
  assert.equal(alive(pid) && !zombie(pid), false, 'the sandbox process ended');
});

/** A process that ended but was not reaped yet (init reaps it later) counts as ended. */
function zombie(pid: number): boolean {
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

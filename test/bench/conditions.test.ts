/**
 * The benches' conditions (bench/conditions.ts): the run-queue wait of a process is read for all
 * its threads and, apart, for its event loop's thread; a worker thread's CPU counts in the first
 * and not in the second. Read from the machine's /proc (Linux).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { conditions, conditionsLine, conditionsOf, conditionsStart, gcOf, schedstat, spanLine } from '../../bench/conditions.ts';

const linux = existsSync(`/proc/${process.pid}/task`) ? {} : { skip: 'reads /proc/<pid>/task (Linux)' };

/**
 * A worker that spins until the process has used `ms` more CPU, then waits to be ended: its run
 * time is read while it is still alive (a thread that ends takes its time out of the sum).
 */
function spinInWorker(ms: number): { spun: Promise<void>; end: () => Promise<void> } {
  const w = new Worker(`const t = process.cpuUsage(); let x = 0;
    const used = () => { const u = process.cpuUsage(t); return (u.user + u.system) / 1000; };
    while (used() < ${ms}) for (let i = 0; i < 1e5; i++) x += i;
    require('node:worker_threads').parentPort.postMessage(x);
    setInterval(() => {}, 1000);`, { eval: true });
  const spun = new Promise<void>((resolve, reject) => {
    w.once('message', () => resolve());
    w.once('error', reject);
  });
  return { spun, end: () => w.terminate().then(() => undefined) };
}

test("a worker thread's CPU counts in the process's run time, not in its event loop's", linux, async () => {
  const before = schedstat()!;
  const worker = spinInWorker(300);
  await worker.spun;
  const after = schedstat()!;
  await worker.end();
  const allMs = (after.runNs - before.runNs) / 1e6;
  const loopMs = (after.loopRunNs - before.loopRunNs) / 1e6;
  // process.cpuUsage() in a worker is the whole process's: the worker ran at least until 300 ms
  // more had been used, most of it its own. The loop only waited.
  assert.ok(allMs >= 250, `all threads ran ${allMs} ms`);
  assert.ok(loopMs < allMs / 2, `the loop's thread ran ${loopMs} ms of ${allMs}`);
  assert.ok(after.loopWaitNs >= before.loopWaitNs && after.waitNs >= after.loopWaitNs);
});

/** Keeps this thread on the CPU for `ms` (the window must hold some run time to have a share). */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

test("the conditions print the event loop's own wait beside the process's", linux, () => {
  const start = conditionsStart();
  const span = conditions();
  busy(30);
  const c = conditionsOf(start, { warm: true, calls: 3, transport: 'local' });
  assert.equal(typeof c.loopWaitMs, 'number', JSON.stringify(c));
  assert.ok(c.loopWaitShare! >= 0 && c.loopWaitShare! <= 1);
  assert.match(conditionsLine(c), /run-queue wait \d+ ms \(\d+ % of runnable time(, STARVED)?; the event loop's thread \d+ ms \(\d+ %\)\)/);
  const ended = span.end();
  assert.equal(typeof ended.loopWaitMs, 'number', JSON.stringify(ended));
  assert.match(spanLine(ended), /run-queue wait \d+ ms \(\d+ %(, STARVED)?; the event loop's thread \d+ ms \(\d+ %\)\)/);
});

test('the conditions name the measured processes’ collector from their command lines', linux, async () => {
  const started = (args: string[]) => {
    const child = spawn(process.execPath, [...args, '-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    return child;
  };
  const single = started(['--single-threaded-gc']);
  const parallel = started([]);
  try {
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(gcOf([single.pid!]), 'single-threaded');
    assert.equal(gcOf([parallel.pid!]), 'parallel');
    assert.equal(gcOf([single.pid!, parallel.pid!]), 'mixed');
    assert.equal(gcOf([2 ** 22 + 7]), null, 'no such process');
    const c = conditionsOf(conditionsStart([single.pid!]), { warm: true, calls: 1, transport: 'local' });
    assert.match(conditionsLine(c), /^1 calls, local, warm process, load .*; single-threaded GC; (unpinned: )?hiwar on CPU/);
  } finally {
    single.kill();
    parallel.kill();
    await Promise.all([once(single, 'exit'), once(parallel, 'exit')]);
  }
});

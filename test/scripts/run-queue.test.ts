import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { parseStat, runnableNow, runQueueMeter } from '../../scripts/run-queue.mjs';

// Lines as the kernel writes /proc/<pid>/stat (proc(5)): pid, (name), state, … field 19 the niceness.
const line = (pid: number, name: string, state: string, nice: number) =>
  `${pid} (${name}) ${state} 1 ${pid} ${pid} 0 -1 4194560 1200 0 0 0 35 12 0 0 ${20 + nice} ${nice} 1 0 7718946 3133440 362 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0`;

test('a stat line gives its state and niceness, whatever the name holds', () => {
  assert.deepEqual(parseStat(line(31495, 'cat', 'R', 0)), { state: 'R', nice: 0 });
  assert.deepEqual(parseStat(line(7, 'node (worker) 2', 'S', 10)), { state: 'S', nice: 10 });
  assert.deepEqual(parseStat(line(8, 'x) R 1 2', 'D', -5)), { state: 'D', nice: -5 });
  assert.equal(parseStat(''), undefined);
  assert.equal(parseStat('12 (cut'), undefined);
});

test('runnable now: running or ready at niceness 0 or less, the caller and vanished processes aside', () => {
  const proc = mkdtempSync(join(tmpdir(), 'hiwar-proc-'));
  try {
    const put = (pid: number, name: string, state: string, nice: number) => {
      mkdirSync(join(proc, String(pid)));
      writeFileSync(join(proc, String(pid), 'stat'), line(pid, name, state, nice));
    };
    put(10, 'node', 'R', 0); // counted
    put(11, 'chromium', 'R', -2); // counted
    put(12, 'tsc', 'R', 10); // niced: it yields
    put(13, 'redis-server', 'S', 0); // asleep
    put(14, 'runner', 'R', 0); // the caller itself
    mkdirSync(join(proc, '15')); // exited between the listing and the read
    mkdirSync(join(proc, 'self'));
    writeFileSync(join(proc, 'loadavg'), '1.0 1.0 1.0 2/300 15');
    assert.equal(runnableNow({ proc, self: 14 }), 2);
  } finally {
    rmSync(proc, { recursive: true, force: true });
  }
});

test('the meter is the mean of the last readings', () => {
  const readings = [6, 0, 0, 0, 0, 0, 3];
  const meter = runQueueMeter({ window: 5, read: () => readings.shift()! });
  assert.equal(meter(), 6);
  assert.equal(meter(), 3);
  for (let k = 0; k < 3; k++) meter();
  assert.equal(meter(), 0, 'the burst of 6 has left the window');
  assert.equal(meter(), 0.6);
});

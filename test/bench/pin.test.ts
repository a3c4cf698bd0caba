/**
 * The benches' CPU isolation (bench/pin.ts): `pin=` parsed, the split chosen from the CPUs a
 * machine offers, taskset's argv; then, on a machine with two CPUs or more, that a child started
 * with a pin really runs there (its `Cpus_allowed_list`, every thread), that a running process
 * moves with all its threads, and that a forked child keeps its IPC channel under taskset.
 */
import assert from 'node:assert/strict';
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { affinityLine, conditionsOf, conditionsStart, rigLine } from '../../bench/conditions.ts';
import { affinityOf, busyNote, chooseSplit, formatCpuList, machine, parseCpuList, parsePin, pinArg, pinProcess, planPin, refusePin, tasksetPidArgv, tasksetSpawnArgv } from '../../bench/pin.ts';

test('pin= parses auto (the default), off and <server cpus>/<rig cpus>; bad values say what is expected', () => {
  assert.deepEqual(parsePin(undefined), { mode: 'auto' });
  assert.deepEqual(parsePin('auto'), { mode: 'auto' });
  assert.deepEqual(parsePin('off'), { mode: 'off' });
  assert.deepEqual(parsePin('1/0'), { mode: 'cpus', server: [1], rig: [0] });
  assert.deepEqual(parsePin('2-3/0,1'), { mode: 'cpus', server: [2, 3], rig: [0, 1] });
  for (const bad of ['on', '1', '/0', '1/', 'a/0', '1/0/2', '3-1/0']) assert.throws(() => parsePin(bad), /pin= is auto .*off .*<server cpus>\/<rig cpus>/, bad);
  assert.throws(() => parsePin('0-1/1'), /CPU 1 is both the server's and the rig's/);
});

test('a bench with nothing to pin refuses pin= with its reason instead of ignoring it', () => {
  assert.doesNotThrow(() => refusePin(undefined, 'amd', 'one process'));
  assert.throws(() => refusePin('1/0', 'amd', 'one process on the audio\'s own timeline'), /amd takes no pin=: one process on the audio's own timeline/);
});

test('CPU lists read and write as Linux prints them', () => {
  assert.deepEqual(parseCpuList('0-2,5'), [0, 1, 2, 5]);
  assert.deepEqual(parseCpuList('3,1,1'), [1, 3]);
  assert.equal(formatCpuList([5, 0, 2, 1]), '0-2,5');
  assert.equal(formatCpuList([1]), '1');
  assert.equal(formatCpuList(parseCpuList('0-3,6-7,9')), '0-3,6-7,9');
  assert.throws(() => parseCpuList('0-'), /not a CPU list/);
});

test('the automatic split: the server on the last CPU(s), the rig keeps at least one; none on one CPU', () => {
  assert.equal(chooseSplit([0]), undefined);
  assert.deepEqual(chooseSplit([0, 1]), { server: [1], rig: [0] });
  assert.deepEqual(chooseSplit([0, 1, 2, 3]), { server: [3], rig: [0, 1, 2] });
  assert.deepEqual(chooseSplit([0, 1, 2, 3], 2), { server: [2, 3], rig: [0, 1] });
  // A bench started under taskset splits what it was given.
  assert.deepEqual(chooseSplit([4, 6, 5]), { server: [6], rig: [4, 5] });
  assert.equal(chooseSplit([0, 1], 2), undefined, 'two server processes on two CPUs leave nothing for the rig');
  assert.throws(() => chooseSplit([0, 1], 0), /whole number/);
});

test('the plan: pinned with its split printed, or unpinned with the reason in one line', () => {
  const two = { cpus: [0, 1], taskset: true };
  const four = { cpus: [0, 1, 2, 3], taskset: true };
  const auto = planPin({ mode: 'auto' }, four);
  assert.equal(auto.pinned, true);
  assert.deepEqual([auto.server, auto.rig], [[3], [0, 1, 2]]);
  assert.match(auto.note, /hiwar on CPU 3, the rig \(callers, fake service\) on CPU 0-2 \(pin=auto; pin=off/);
  assert.equal(pinArg(auto), 'pin=3/0-2');
  // Two CPUs: a rig of one measured worse than sharing, so auto shares them and says how to split.
  const autoTwo = planPin({ mode: 'auto' }, two);
  assert.equal(autoTwo.pinned, false);
  assert.match(autoTwo.note, /unpinned, pin=auto leaves the rig 1 CPU of 0-1, .*pin=1\/0 splits them/);

  const off = planPin({ mode: 'off' }, two);
  assert.equal(off.pinned, false);
  assert.deepEqual([off.server, off.rig], [[0, 1], [0, 1]]);
  assert.match(off.note, /unpinned, as asked \(pin=off\): .*share CPU 0-1/);
  assert.equal(pinArg(off), 'pin=off');

  assert.match(planPin({ mode: 'auto' }, { cpus: [0], taskset: true }).note, /unpinned, one CPU only \(0\)/);
  assert.match(planPin({ mode: 'auto' }, { cpus: [0, 1], taskset: false }).note, /unpinned, no taskset/);
  assert.match(planPin({ mode: 'auto' }, two, 2).note, /2 server processes leave no CPU of 0-1 for the rig/);
  assert.equal(planPin({ mode: 'auto' }, { cpus: [0, 1, 2, 3], taskset: true }, 2).server.length, 2);
  assert.equal(planPin({ mode: 'auto' }, { cpus: [0, 1, 2], taskset: true }, 2).pinned, false, 'a rig of one CPU');

  const explicit = planPin({ mode: 'cpus', server: [0], rig: [1] }, two);
  assert.deepEqual([explicit.pinned, explicit.server, explicit.rig], [true, [0], [1]]);
  assert.match(explicit.note, /\(pin=0\/1\)/);
  assert.throws(() => planPin({ mode: 'cpus', server: [0], rig: [1] }, { cpus: [0, 1], taskset: false }), /needs taskset/);
});

test('the pin line warns when other work loads the machine (load at or above its CPUs)', () => {
  assert.equal(busyNote(1.9, 2, true), '');
  assert.match(busyNote(7.5, 2, true), /; load 7\.50 on 2 CPUs: other work shares hiwar's CPU, which it cannot leave, so these figures are the machine's/);
  assert.match(busyNote(2, 2, false), /other work shares every CPU/);
});

test("taskset's argv: a child started on a list, a running process moved with all its threads", () => {
  assert.deepEqual(tasksetSpawnArgv([2, 3], '/usr/bin/node', ['a.js', '--x']), ['taskset', ['-c', '2-3', '/usr/bin/node', 'a.js', '--x']]);
  assert.deepEqual(tasksetPidArgv([0], 4242), ['-a', '-p', '-c', '0', '4242']);
});

test('a conditions line names the CPUs each side had and the rig\'s own wait', () => {
  assert.equal(affinityLine({ pinned: true, server: '1', rig: '0' }), 'hiwar on CPU 1, rig on CPU 0 (pinned)');
  assert.equal(affinityLine({ pinned: false, server: '0-1', rig: null }), 'unpinned: hiwar on CPU 0-1');
  assert.match(rigLine({ runQueueWaitMs: 900, runQueueWaitShare: 0.3, starved: true }), /900 ms \(30 %\): RIG STARVED/);
  assert.equal(rigLine({ runQueueWaitMs: 12, runQueueWaitShare: 0.01, starved: false }), 'rig run-queue wait 12 ms (1 %)');
});

// ——— on the machine ———

const children: ChildProcess[] = [];
const dir = mkdtempSync(join(tmpdir(), 'hiwar-pin-'));
after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

/** A node child that stays up (a timer) until killed, with its threads started. */
const idleNode = (command: string, args: string[]) => {
  const c = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(c);
  return new Promise<ChildProcess>((resolve, reject) => {
    c.stdout!.once('data', () => resolve(c));
    c.once('exit', (code) => reject(new Error(`child exited (${code})`)));
  });
};
const IDLE = ['-e', 'process.stdout.write("up\\n"); setInterval(() => {}, 1000)'];

const m = machine();
const split = chooseSplit(m.cpus);
// The one check that needs two CPUs and taskset (the pure parts above run everywhere).
const onMachine = split && m.taskset ? {} : { skip: `needs two CPUs and taskset (this machine: CPU ${formatCpuList(m.cpus)}, taskset ${m.taskset ? 'yes' : 'no'})` };

test('a child started with a pin runs on those CPUs, every thread; a running one moves with all its threads', onMachine, async () => {
  const { server, rig } = split!;
  const child = await idleNode(...tasksetSpawnArgv(rig, process.execPath, IDLE));
  // taskset execs node: the pid is node's, and V8's and libuv's threads started under the pin.
  assert.deepEqual(affinityOf([child.pid!]), rig);
  pinProcess(child.pid!, server);
  assert.deepEqual(affinityOf([child.pid!]), server, 'every thread moved (taskset -a)');
  // The conditions read it from /proc, not from a plan.
  const c = conditionsOf(conditionsStart([child.pid!], [process.pid]), { warm: false, calls: 0, transport: 'none' });
  assert.equal(c.affinity.server, formatCpuList(server));
  assert.equal(c.affinity.rig, formatCpuList(affinityOf([process.pid])!));
  assert.equal(typeof c.rig?.starved, 'boolean');
  child.kill();
});

test('a forked child under taskset (the callers\' process) keeps its IPC channel', onMachine, async () => {
  const { rig } = split!;
  const script = join(dir, 'echo.mjs');
  writeFileSync(script, 'process.on("message", (m) => process.send({ got: m, pid: process.pid }));\n');
  const [execPath, execArgv] = tasksetSpawnArgv(rig, process.execPath, []);
  const child = fork(script, [], { execPath, execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.push(child);
  const reply = await new Promise<{ got: string; pid: number }>((resolve, reject) => {
    child.once('message', (r) => resolve(r as { got: string; pid: number }));
    child.once('exit', (code) => reject(new Error(`child exited (${code})`)));
    child.send('ping');
  });
  assert.equal(reply.got, 'ping');
  assert.equal(reply.pid, child.pid, 'taskset exec\'d node in place: the pid the bench holds is the callers\'');
  assert.deepEqual(affinityOf([child.pid!]), rig);
  child.disconnect();
});

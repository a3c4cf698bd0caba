#!/usr/bin/env node
// Runs a command starved of CPU as on a heavily loaded machine, without loading the machine:
// the command and every process under it run ON ms out of every ON + OFF ms (SIGSTOP, SIGCONT).
// The default, 5 of 55 ms, gives it about 9 % of a core, what a process gets at load 22 on two
// cores. The load average does not rise, so the tests' load-scaled waits (test/helpers/
// deadline.ts) are told the slowdown through HIWAR_TEST_MIN_SLOWDOWN.
//
//   node scripts/starve.mjs npm test -- test/analytics/in-process.test.ts
//   ON=10 OFF=40 node scripts/starve.mjs npm test -- FILE…
//
// A process started with HIWAR_STARVE_EXEMPT=1 (and all under it) is left to run: a test's
// stand-in for the remote service. Used to find what breaks under load (docs/testing.md,
// "Stable under load").
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const on = Number(process.env.ON ?? 5);
const off = Number(process.env.OFF ?? 50);
const [cmd, ...args] = process.argv.slice(2);
if (!cmd || !(on > 0) || !(off >= 0)) {
  console.error('usage: [ON=ms] [OFF=ms] node scripts/starve.mjs COMMAND [ARG…]');
  process.exit(2);
}
const env = { ...process.env, HIWAR_TEST_MIN_SLOWDOWN: String((on + off) / on) };
const child = spawn(cmd, args, { stdio: 'inherit', env });

/** The command's process and all its descendants (from /proc), found again now and then. */
function tree() {
  const kids = new Map();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!kids.has(ppid)) kids.set(ppid, []);
      kids.get(ppid).push(Number(d));
    } catch {} // gone meanwhile
  }
  const out = [child.pid];
  for (let i = 0; i < out.length; i++) out.push(...(kids.get(out[i]) ?? []).filter((p) => !exempt(p)));
  return out;
}

/**
 * A process started with HIWAR_STARVE_EXEMPT=1 in its environment runs freely, with all under
 * it: a test's stand-in for the remote service (test/helpers/sandbox-process.ts), which in a
 * deployment runs on its own machines, not on the starved one. Only a yes is kept: a child seen
 * between its fork and its exec still shows its parent's environment, and a no kept from then
 * starved the service for the whole run.
 */
const exempted = new Set();
function exempt(pid) {
  if (exempted.has(pid)) return true;
  let env = '';
  try {
    env = readFileSync(`/proc/${pid}/environ`, 'latin1');
  } catch {} // gone meanwhile
  if (!env.split('\0').includes('HIWAR_STARVE_EXEMPT=1')) return false;
  exempted.add(pid);
  // It may have been stopped while it still looked like its parent.
  try {
    process.kill(pid, 'SIGCONT');
  } catch {} // exited
  return true;
}
let pids = [child.pid];
let stopped = false;
let done = false;
let ticks = 0;
const signal = (s) => {
  for (const p of pids) {
    try {
      process.kill(p, s);
    } catch {} // exited
  }
};
const tick = () => {
  if (done) return;
  if (!stopped && ticks++ % 4 === 0) pids = tree();
  signal(stopped ? 'SIGCONT' : 'SIGSTOP');
  stopped = !stopped;
  setTimeout(tick, stopped ? off : on);
};
setTimeout(tick, on);
const finish = () => {
  done = true;
  pids = tree();
  signal('SIGCONT');
};
for (const s of ['SIGINT', 'SIGTERM']) {
  process.on(s, () => {
    finish();
    signal(s);
  });
}
child.on('exit', (code, sig) => {
  finish();
  process.exit(code ?? (sig ? 1 : 0));
});

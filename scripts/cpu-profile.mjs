#!/usr/bin/env node
// Where a run's CPU goes, across every Node process it starts (docs/testing.md, "Where the CPU
// goes"). Two steps:
//
//   node scripts/cpu-profile.mjs record DIR -- npm test -- FILE…   (or any command)
//   node scripts/cpu-profile.mjs report DIR [--top 40] [--interval-us 1000]
//
// `record` runs the command with every Node process under it (the runner, each test file, every
// `hiwar` or example child that inherits the environment) profiled by V8's sampling profiler
// (scripts/cpu-profile-hook.mjs, loaded through NODE_OPTIONS: Node 20 does not take `--cpu-prof`
// there), one `.cpuprofile` per process in DIR. Processes started with an environment of their
// own (the package test's blank project), browsers and espeak-ng are not profiled.
//
// `report` adds up the self time of every profile: by kind of process, by package
// (node_modules/<name>), by our own modules (src/<dir>, transports/<dir>, test/<dir>…), by
// Node's internals, and the top functions (a profile counts its samples times its sampling
// interval: the hook's say theirs, `--interval-us` gives it for others, default 1000 as
// `node --cpu-prof` samples); plus the time spent loading modules (importing,
// linking and running modules' top level). A frame of V8's own without a file (a builtin such as
// JSON.parse or a regular expression) counts for the nearest caller that has one. CPU time is
// the figure to compare between runs: the wall time changes with the load, the CPU far less.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { summarize } from './cpu-profile-summary.mjs';

const [mode, dir, ...rest] = process.argv.slice(2);
if (mode === 'record' && dir && rest[0] === '--' && rest.length > 1) {
  const out = resolve(dir);
  mkdirSync(out, { recursive: true });
  const hook = fileURLToPath(new URL('./cpu-profile-hook.mjs', import.meta.url));
  const env = { ...process.env, HIWAR_CPU_PROFILE_DIR: out, NODE_OPTIONS: [process.env.NODE_OPTIONS, `--import=${hook}`].filter(Boolean).join(' ') };
  const child = spawn(rest[1], rest.slice(2), { stdio: 'inherit', env });
  child.on('exit', (code, signal) => {
    process.stderr.write(`cpu-profile: profiles in ${out} (node scripts/cpu-profile.mjs report ${dir})\n`);
    process.exitCode = code ?? (signal ? 1 : 0);
  });
} else if (mode === 'report' && dir) {
  const option = (name) => (rest.includes(name) ? Number(rest[rest.indexOf(name) + 1]) : undefined);
  const top = option('--top') ?? 40;
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
  const profiles = files.map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')));
  process.stdout.write(summarize(profiles, { top, intervalUs: option('--interval-us') }));
} else {
  process.stderr.write('usage: node scripts/cpu-profile.mjs record DIR -- COMMAND [ARG…]\n       node scripts/cpu-profile.mjs report DIR [--top N] [--interval-us N]\n');
  process.exitCode = 2;
}

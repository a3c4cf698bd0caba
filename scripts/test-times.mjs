#!/usr/bin/env node
// `npm run test:times`: each test file's wall time in the last full `npm test` (written by
// scripts/test.mjs to node_modules/.cache/hiwar/test-times.json), slowest first, with its lane.
// `npm run test:times -- --save` makes those times the schedule (scripts/test-times.json): the
// order each lane starts its files in. A file's lane is kept as the schedule has it (a new file is
// heavy); move a file to the light lane by hand there (docs/testing.md says which belong).
// Times taken on a loaded machine are all longer, but keep their order.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
const LAST = join(ROOT, 'node_modules/.cache/hiwar/test-times.json');
let last;
try {
  last = JSON.parse(readFileSync(LAST, 'utf8'));
} catch {
  console.error(`test-times: no ${LAST} yet: run the whole suite first (npm test)`);
  process.exit(1);
}
const sum = last.files.reduce((n, f) => n + f.s, 0);
console.log(`last full run: ${last.wallS} s wall, ${sum.toFixed(0)} s of file time, ${last.files.length} files`);
const cpuSum = last.files.reduce((n, f) => n + (f.cpuS ?? 0), 0);
if (cpuSum) console.log(`CPU (user + system) of the files: ${cpuSum.toFixed(0)} s`);
console.log('   wall     CPU  lane');
for (const f of last.files) console.log(`${f.s.toFixed(1).padStart(7)} ${(f.cpuS === undefined ? '-' : f.cpuS.toFixed(1)).padStart(7)}  ${f.lane.padEnd(5)}  ${String(f.tests).padStart(3)} tests${f.failed ? '  FAILED' : ''}  ${f.file}`);
if (process.argv.includes('--save')) {
  let old = {};
  try {
    old = JSON.parse(readFileSync(join(ROOT, 'scripts/test-times.json'), 'utf8'));
  } catch {
    // no schedule yet: every file heavy
  }
  const files = [...last.files].sort((a, b) => a.file.localeCompare(b.file));
  const schedule = Object.fromEntries(files.map((f) => [f.file, { s: f.s, ...(f.cpuS === undefined ? {} : { cpu: f.cpuS }), lane: old[f.file]?.lane ?? 'heavy' }]));
  writeFileSync(join(ROOT, 'scripts/test-times.json'), JSON.stringify(schedule, null, 2) + '\n');
  console.log('saved as the schedule: scripts/test-times.json');
}

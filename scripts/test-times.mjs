#!/usr/bin/env node
// `npm run test:times`: each test file's wall time in the last full `npm test` (written by
// scripts/test.mjs to node_modules/.cache/hiwar/test-times.json), slowest first, with its lane.
// `npm run test:times -- --save` makes those times the schedule (scripts/test-times.json): the
// order the heavy lane starts files in, and which files go to the light lane (docs/testing.md).
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
for (const f of last.files) console.log(`${f.s.toFixed(1).padStart(7)}  ${f.lane.padEnd(5)}  ${String(f.tests).padStart(3)} tests${f.failed ? '  FAILED' : ''}  ${f.file}`);
if (process.argv.includes('--save')) {
  const schedule = Object.fromEntries([...last.files].sort((a, b) => a.file.localeCompare(b.file)).map((f) => [f.file, f.s]));
  writeFileSync(join(ROOT, 'scripts/test-times.json'), JSON.stringify(schedule, null, 2) + '\n');
  console.log('saved as the schedule: scripts/test-times.json');
}

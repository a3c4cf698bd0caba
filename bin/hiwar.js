#!/usr/bin/env node
// The installed package runs its compiled JavaScript (dist/) on plain Node. In a clone of the
// repository (the sources are there, and the package never ships them) it runs the sources
// through tsx, so a change needs no build.
import { existsSync } from 'node:fs';

const sources = new URL('../src/cli/main.ts', import.meta.url);
let main;
if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import(sources.href));
} else {
  ({ main } = await import('../dist/src/cli/main.js'));
}
process.exitCode = await main(process.argv.slice(2));

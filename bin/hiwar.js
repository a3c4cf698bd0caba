#!/usr/bin/env node
// The installed package runs its compiled JavaScript (dist/) on plain Node. In a clone of the
// repository (the sources are there, and the package never ships them) it runs the sources
// through tsx, so a change needs no build; in the compiled tree `npm test` runs (scripts/test-build.mjs),
// the compiled modules beside it.
import { existsSync } from 'node:fs';

const sources = new URL('../src/cli/main.ts', import.meta.url);
const compiled = new URL('../src/cli/main.js', import.meta.url);
let main;
if (existsSync(compiled)) {
  ({ main } = await import(compiled.href));
} else if (existsSync(sources)) {
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import(sources.href));
} else {
  ({ main } = await import('../dist/src/cli/main.js'));
}
process.exitCode = await main(process.argv.slice(2));

import { fileURLToPath } from 'node:url';

/**
 * Node's arguments that run `npm run bench -- ARGS` as this test runs: the compiled tree's
 * `bench/run.js` on plain Node under `npm test` (its children compiled too, bench/script.ts), the
 * sources through tsx when the test file runs from the sources.
 */
export function benchRunArgs(...args: string[]): string[] {
  const compiled = !import.meta.url.endsWith('.ts');
  const run = fileURLToPath(new URL(`../../bench/run.${compiled ? 'js' : 'ts'}`, import.meta.url));
  return compiled ? [run, ...args] : ['--import', 'tsx', run, ...args];
}

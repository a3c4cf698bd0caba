import { benchScript, SCRIPT_LOADER } from '../../bench/script.ts';

/**
 * Node's arguments that run `npm run bench -- ARGS` as this test runs: the compiled tree's
 * `bench/run.js` on plain Node under `npm test` (its children compiled too), the sources through
 * tsx when the test file runs from the sources (bench/script.ts tells which).
 */
export function benchRunArgs(...args: string[]): string[] {
  return [...SCRIPT_LOADER, benchScript('run'), ...args];
}

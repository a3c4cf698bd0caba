/**
 * The bench's own scripts as this copy of it runs: the `.ts` sources through tsx (`npm run
 * bench`), or compiled `.js` on plain Node (the test suite's compiled tree), where loading tsx in
 * each child process would only cost CPU.
 */
import { fileURLToPath } from 'node:url';

const compiled = !import.meta.url.endsWith('.ts');

/** Node's arguments that load a bench script: tsx for the sources, none for compiled ones. */
export const SCRIPT_LOADER: readonly string[] = compiled ? [] : ['--import', 'tsx'];

/** The path of `bench/<name>` as this copy runs it (`.ts` or `.js`). */
export function benchScript(name: string): string {
  return fileURLToPath(new URL(`./${name}.${compiled ? 'js' : 'ts'}`, import.meta.url));
}

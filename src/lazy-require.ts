// A package hiwar uses in only some calls, loaded by the first call that needs it instead of by
// `import 'hiwar'` (docs/testing.md, "Figures: start-up": each package costs every process that
// imports hiwar its files' reading and compiling). For CommonJS packages: `require` gives the very
// module object `import x from 'pkg'` would, so what a user imports and what hiwar loads are one.
import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

/** A function returning the CommonJS package `specifier`, loaded on its first call. */
export function lazyRequire<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= load(specifier) as T);
}

// zod for hiwar's own few schemas, loaded the first time one is needed instead of by
// `import 'hiwar'` (95 modules, about a sixth of that import's CPU; docs/testing.md, "Figures:
// start-up"): a program that never converts or builds a tool does not pay for it. Synchronous,
// because `callTools()` is. It is the ES module a user's `import { z } from 'zod'` gets, the
// same instance: Node 20.19 and later `require` an ES module into the one module map. An older
// Node 20 cannot (nor resolve one before 20.6), and gets zod's CommonJS build, which works on the
// same schemas (zod reads a schema's definition, not its class).
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

type Zod = typeof import('zod');
const load = createRequire(import.meta.url);
let zod: Zod | undefined;

/** The `zod` module, loaded on first use. */
export function loadZod(): Zod {
  if (zod) return zod;
  try {
    zod = load(fileURLToPath(import.meta.resolve('zod'))) as Zod;
  } catch (err) {
    if ((err as { code?: string }).code !== 'ERR_REQUIRE_ESM' && typeof import.meta.resolve === 'function') throw err;
    zod = load('zod') as Zod;
  }
  return zod;
}

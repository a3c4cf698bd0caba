/** Writes the compiled tree of `root` into `out` (scripts/test-build.mjs); resolves to how many modules were compiled. */
export function buildTestTree(root: string, out: string): Promise<number>;

/** One TypeScript module as the compiled tree holds it: its JavaScript (relative `.ts` import and export specifiers ending in `.js`) and its source map. */
export function compileModule(source: string, file: string, mapName: string): Promise<{ code: string; map: string }>;

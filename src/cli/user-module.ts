import { existsSync, readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { firstLine } from './explain.ts';
import { syntaxErrorPlace } from './syntax-error.ts';

const TS = new Set(['.ts', '.mts', '.cts']);

/** A user's module as the CLI sees it: its default export (CommonJS unwrapped) and its named exports. */
export interface UserModule {
  default?: unknown;
  named: Record<string, unknown>;
}

/**
 * Loads a user's `.ts`/`.js` module (an agent, a server config). TypeScript always goes through
 * tsx's `tsImport`, whether hiwar runs from its sources or compiled, so a file loads the same way
 * in both; its imports resolve from the user's own project. A CommonJS module's exports arrive
 * as `default` (with its `default` inside): unwrapped here. A failure is thrown as an Error whose
 * message is one line, with the missing package or the CommonJS fix named.
 */
export async function importUserModule(file: string, owner: 'agent' | 'config'): Promise<UserModule> {
  const ext = extname(file);
  let mod: Record<string, unknown>;
  try {
    const url = pathToFileURL(file).href;
    mod = TS.has(ext) ? await (await import('tsx/esm/api')).tsImport(url, import.meta.url) : await import(url);
  } catch (err) {
    const missing = /Cannot find (?:package|module) '([^']+)'/.exec(firstLine(err))?.[1];
    const install = missing && !missing.startsWith('.') && !missing.startsWith('/') ? ` (install it in the ${owner}'s project: npm install ${missing})` : '';
    // A .js file's syntax error named neither file nor line (Node's ES module loader tells neither).
    const place = TS.has(ext) ? undefined : syntaxErrorPlace(err, file);
    const fault = compileError(err) ?? (place ? `${firstLine(err)} (${place})` : firstLine(err));
    throw new Error(`could not load ${file}: ${fault}${install}${commonJsHint(file, ext, owner)}`);
  }
  const outer = mod.default as { default?: unknown; __esModule?: boolean } | undefined;
  const cjs = outer !== null && typeof outer === 'object' && ('__esModule' in outer || 'default' in outer);
  const named = cjs ? { ...(outer as Record<string, unknown>) } : { ...mod };
  return { default: cjs ? outer.default : mod.default, named };
}

/**
 * esbuild (under tsx) reports a file it cannot compile as `Transform failed with 1 error:` and, on
 * the lines after, `FILE:LINE:COL: ERROR: TEXT`: the first line alone named no file, line or fault.
 * Said as `TEXT (FILE:LINE:COL)`, the first fault only (the others follow from it, usually).
 */
export function compileError(err: unknown): string | undefined {
  const lines = String((err as Error)?.message ?? err).split('\n');
  if (!/^Transform failed with \d+ errors?:/.test(lines[0] ?? '')) return undefined;
  const fault = lines.slice(1).map((l) => /^(.+:\d+:\d+): ERROR: (.+)$/.exec(l.trim())).find((m) => m);
  return fault ? `${fault[2]} (${fault[1]})` : undefined;
}

/**
 * A `.ts` file in a CommonJS package is compiled to `require` calls, and hiwar is an ES module:
 * a load can fail ("Cannot require() ES Module … in a cycle" and the like). Said as the fix.
 */
function commonJsHint(file: string, ext: string, owner: string): string {
  if (ext !== '.ts' && ext !== '.js') return '';
  for (let d = dirname(file); ; d = dirname(d)) {
    const pkg = join(d, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { type?: string }).type === 'module') return '';
      } catch {
        return '';
      }
      return ` (the ${owner}'s package ${pkg} is CommonJS: add "type": "module" to it, or name the file .mts/.mjs)`;
    }
    if (dirname(d) === d) return ` (no package.json above the ${owner}: it is loaded as CommonJS; add one with "type": "module", or name the file .mts/.mjs)`;
  }
}

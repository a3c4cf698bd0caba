import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, extname, resolve } from 'node:path';

/** How many of a module's own files are checked for where its syntax error is, at most. */
const MAX_FILES = 50;
const JS = new Set(['.js', '.mjs']);

/**
 * Where a JavaScript module's syntax error is, as `FILE:LINE:COL`, or undefined when it cannot
 * be told. Node names the place in a CommonJS file's stack but not in an ES module's (`import()`
 * rejects with `SyntaxError: Unexpected identifier 'x'` and nothing else): then `file` and the
 * files it imports by relative path are checked one by one, as ES modules, by `node --check` (the
 * same parser), and the first whose fault is the same message is the one. Only after a load failed.
 */
export function syntaxErrorPlace(err: unknown, file: string): string | undefined {
  if ((err as Error)?.name !== 'SyntaxError') return undefined;
  const stack = String((err as Error).stack ?? '');
  // CommonJS: `FILE:LINE\n<the line>\n<carets>\n\nSyntaxError: …`.
  const cjs = /^(\/[^\n]*|[A-Za-z]:\\[^\n]*):(\d+)\n([^\n]*)\n( *)\^/.exec(stack);
  if (cjs) return `${cjs[1]}:${cjs[2]}:${cjs[4]!.length + 1}`;
  const seen = new Set<string>();
  const queue = [resolve(file)];
  while (queue.length && seen.size < MAX_FILES) {
    const next = queue.shift()!;
    if (seen.has(next) || !JS.has(extname(next)) || !existsSync(next)) continue;
    seen.add(next);
    const source = readFileSync(next, 'utf8');
    const fault = checked(source);
    if (fault?.message === (err as Error).message) return `${next}:${fault.line}:${fault.column}`;
    for (const m of source.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) queue.push(resolve(dirname(next), m[1]!));
  }
  return undefined;
}

/** `source`'s syntax error as an ES module, from `node --check` on it (its first line says `[stdin]:LINE`, then the line and carets). */
function checked(source: string): { message: string; line: number; column: number } | undefined {
  const r = spawnSync(process.execPath, ['--input-type=module', '--check'], { input: source, encoding: 'utf8', timeout: 10_000 });
  if (r.status === 0 || typeof r.stderr !== 'string') return undefined;
  const m = /^\[stdin\]:(\d+)\n[^\n]*\n( *)\^[^\n]*\n\nSyntaxError: ([^\n]*)/.exec(r.stderr);
  return m ? { line: Number(m[1]), column: m[2]!.length + 1, message: m[3]! } : undefined;
}

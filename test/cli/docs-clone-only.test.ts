import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { docPages } from '../helpers/snippets.ts';

/**
 * A command in the README or docs/ that runs a file the package does not ship (examples/…) works
 * only in a clone of the repository: its section must say so before it (or on the same line), or
 * a reader in their own project meets "no such file" (`hiwar sandbox --keys examples/…`).
 */
const ROOT = new URL('../..', import.meta.url).pathname;
const shipped: string[] = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] }).files;
const inPackage = (path: string) => shipped.some((f) => path.startsWith(f.replace(/\/$/, '')));
const COMMAND = /(?:npx tsx|node(?: --import tsx --test)?|--keys|--phrasebook)\s+(examples\/[\w./-]+)/g;

test('every command that runs a file from examples/ says it works in a clone of the repository', () => {
  const unsaid: string[] = [];
  for (const page of docPages(ROOT)) {
    const md = readFileSync(join(ROOT, page), 'utf8');
    for (const m of md.matchAll(COMMAND)) {
      if (inPackage(m[1]!)) continue;
      const lineEnd = md.indexOf('\n', m.index!);
      const sectionStart = Math.max(0, md.lastIndexOf('\n#', m.index!));
      const around = md.slice(sectionStart, lineEnd < 0 ? undefined : lineEnd);
      if (!/\bclone\b/i.test(around)) unsaid.push(`${page}:${md.slice(0, m.index!).split('\n').length}: ${m[0]}`);
    }
  }
  assert.deepEqual(unsaid, []);
});

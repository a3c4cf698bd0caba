import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the guide's pages are on this machine. The package ships docs/ (the guide) beside dist/,
 * so a message naming `docs/<page>.md` names a file the reader has: the same path in the
 * repository, in an installed package (node_modules/hiwar/docs/…), and under /docs/ on
 * `hiwar serve --docs`.
 */
let root: string | undefined;

/**
 * The hiwar package's own folder (the one whose package.json is hiwar's): found by walking up
 * from this module, which lies at src/ in the repository and the test tree, at dist/src/ when
 * installed.
 */
export function packageRoot(): string {
  if (root) return root;
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'hiwar') return (root = dir);
    if (dirname(dir) === dir) throw new Error(`hiwar's package.json was not found above ${fileURLToPath(import.meta.url)}`);
  }
}

/** The full path of a page of the guide, given as `docs/<page>.md` (with an optional `#section`). */
export function docPath(ref: `docs/${string}`): string {
  return join(packageRoot(), ref);
}

/** The folder of the guide's pages on this machine (its contents: docs/README.md). */
export function docsDir(): string {
  return join(packageRoot(), 'docs');
}

/**
 * What a help text ends with when it names `docs/…` pages: where they are on this machine, and
 * how to read them in a browser (nothing for a text that names none).
 */
export function docsHelpLine(usage: string): string {
  if (!/\bdocs\/[a-z]/.test(usage)) return '';
  return `\nThe docs/… pages named here are hiwar's guide, in ${docsDir()} on this machine
(it starts at docs/README.md); hiwar serve --docs serves it to a browser at /docs.\n`;
}

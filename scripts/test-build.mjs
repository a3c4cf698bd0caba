// The compiled tree `npm test` runs (docs/testing.md): the repository's TypeScript (sources,
// tests, examples, benches) transformed once per run by esbuild, as tsx would transform each
// module in each of the suite's ~250 processes, so the test files and the `hiwar` processes
// they start run on plain Node without a loader thread (about 1 s of CPU less per process).
//
// The tree mirrors the repository file for file under one new directory inside it (so that
// node_modules resolves as from the repository): every `.ts` module becomes a `.js` module
// beside it with its source map (`.js.map`), its relative `.ts` imports rewritten to `.js` (as
// `npm run build` does; scripts/ts-specifiers.mjs); every other file, the `.ts` files included, is a link to the
// repository's own (fixtures, docs, and whatever a test runs through tsx in a child process),
// but `.js`/`.mjs`/`.cjs` files are copied
// (bin/hiwar.js picks the compiled CLI from where it lies). package.json's `hiwar-source`
// condition points at the compiled modules, and the web page's script and font are built into
// place as `npm run build` does, since compiled code serves them from beside itself.
import { transform } from 'esbuild';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { rewriteTsSpecifiers } from './ts-specifiers.mjs';

/** Top-level entries of the repository the tree leaves out: not part of what tests read. */
const SKIP = new Set(['.git', 'node_modules', 'dist', 'out', '.tmp']);
/**
 * Each module's source map in a file beside it (`x.js.map`), without the sources' text (the
 * `.ts` file is linked beside it): under `--enable-source-maps` Node walks every character of
 * each module it loads to index its lines, and an inline map with the sources made a module
 * nearly four times as long (that walk was 3 % of the suite's CPU, docs/testing.md).
 */
const SOURCE_MAP = { sourcemap: 'external', sourcesContent: false };
/** The compiler settings tsx would take from tsconfig.json that change what esbuild emits. */
const TSCONFIG = { compilerOptions: { target: 'ES2022', verbatimModuleSyntax: true, useDefineForClassFields: true } };

/**
 * One TypeScript module as the tree holds it: its JavaScript, relative `.ts` import and export
 * specifiers ending in `.js` (only those: a `.ts` in a string, a template or a comment stays),
 * and the source map that JavaScript names as `mapName`.
 */
export async function compileModule(source, file, mapName) {
  const { code, map } = await transform(source, { loader: 'ts', format: 'esm', target: 'node20', ...SOURCE_MAP, sourcefile: file, tsconfigRaw: TSCONFIG });
  return { code: `${rewriteTsSpecifiers(code)}//# sourceMappingURL=${mapName}\n`, map };
}

const walk = (root, dir = root) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    if (dir === root && SKIP.has(d.name)) return [];
    return d.isDirectory() ? walk(root, path) : [path];
  });

/**
 * Writes the compiled tree of `root` into `out` (a new, empty directory inside `root`).
 * Returns how many modules were compiled.
 */
export async function buildTestTree(root, out) {
  const files = walk(root);
  let compiled = 0;
  await Promise.all(
    files.map(async (file) => {
      const rel = relative(root, file);
      const dst = join(out, rel);
      await mkdir(dirname(dst), { recursive: true });
      if (/\.[cm]?js$/.test(file)) return copyFileSync(file, dst);
      symlinkSync(file, dst);
      if (!file.endsWith('.ts') || file.endsWith('.d.ts') || rel === 'package.json') return;
      const js = dst.replace(/\.ts$/, '.js');
      const { code, map } = await compileModule(await readFile(file, 'utf8'), file, `${basename(js)}.map`);
      await writeFile(`${js}.map`, map);
      await writeFile(js, code);
      compiled++;
    }),
  );
  // The package's own name resolves to the compiled modules (tests, examples, users' projects linked to the tree).
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  for (const entry of Object.values(pkg.exports)) {
    if (typeof entry === 'object' && entry['hiwar-source']) entry['hiwar-source'] = entry['hiwar-source'].replace(/\.ts$/, '.js');
  }
  // The walk linked the repository's package.json here: replace the link, never write through it.
  rmSync(join(out, 'package.json'), { force: true });
  writeFileSync(join(out, 'package.json'), JSON.stringify(pkg, null, 2));
  // Tests that name a dependency's files by path (a worker binary, a package to link) find them here too.
  symlinkSync(join(root, 'node_modules'), join(out, 'node_modules'), 'dir');
  // The web page's script and font, where the compiled page module serves them from (as in dist/).
  const page = join(out, 'transports/webrtc/page');
  mkdirSync(page, { recursive: true });
  const bundle = await import(join(out, 'transports/webrtc/page-bundle.js'));
  await bundle.bundlePage(join(page, 'app.js'));
  copyFileSync(bundle.fontSource(), join(page, 'font.woff2'));
  // The call review page's script, likewise.
  await (await import(join(out, 'src/review/bundle.js'))).bundleReviewScript(join(out, 'src/review/page/review.js'));
  // The live calls page's script, likewise.
  await (await import(join(out, 'src/observability/live-bundle.js'))).bundleLivePage(join(out, 'src/observability/live-page/app.js'));
  return compiled;
}

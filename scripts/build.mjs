#!/usr/bin/env node
// `npm run build` (and `prepack`): the package as users install it, in dist/.
// 1. tsc (tsconfig.build.json), TypeScript 7's native compiler (the dev dependency `typescript-7`;
//    the same output as 5.9's but for quotes and the order of a union's members): ESM JavaScript, declarations and source maps, relative `.ts`
//    imports rewritten to `.js`;
// 2. the declarations' own relative `.ts` specifiers rewritten to `.js` (tsc leaves some as
//    written, and a consumer's compiler refuses `.ts` specifiers without allowImportingTsExtensions);
// 3. the files the code reads at run time: every non-TypeScript file beside the sources (models,
//    JSON, the web page's HTML and CSS), the page's font and its script, the call review page's script and the live calls page's
//    script bundled for browsers (so the package needs neither esbuild nor mediasoup-client).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rewriteTsSpecifiers } from './ts-specifiers.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = join(root, 'dist');
const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
const walk = (dir) => readdirSync(dir).flatMap((n) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
const copy = (from, to) => {
  mkdirSync(dirname(to), { recursive: true });
  copyFileSync(from, to);
};

// `npm pack` shows nothing else while this runs (minutes on a busy machine): each step says what
// it does before it starts and how long it took, on stderr (npm pack --json keeps stdout for JSON).
const began = performance.now();
const seconds = (from) => `${Math.round((performance.now() - from) / 1000)} s`;
const STEPS = 3;
let stepNo = 0;
let stepStart = began;
const step = (what) => {
  if (stepNo) console.error(`build: ${stepNo}/${STEPS} done in ${seconds(stepStart)}`);
  stepStart = performance.now();
  console.error(`build: ${++stepNo}/${STEPS} ${what}…`);
};

rmSync(dist, { recursive: true, force: true });
// HIWAR_BUILD_NO_CHECK=1: emit without type-checking (tsc --noCheck, about 40 % of the build's CPU),
// for a caller that type-checks the same sources itself: npm test's package test, whose run has
// its own `tsc --noEmit` of the project. The output is the same (union members' order aside).
const noCheck = process.env.HIWAR_BUILD_NO_CHECK === '1' ? ['--noCheck'] : [];
step(`compiling src/, transports/ and agents/ into dist/ with tsc${noCheck.length ? ' (no type check)' : ', type-checking them'}: the longest step, a minute or more on a busy machine`);
run(process.execPath, [join(root, 'node_modules/typescript-7/bin/tsc'), '-p', 'tsconfig.build.json', ...noCheck]);

step("rewriting the declarations' .ts specifiers, copying the assets beside the sources");
let rewritten = 0;
for (const file of walk(dist).filter((f) => f.endsWith('.d.ts'))) {
  const text = readFileSync(file, 'utf8');
  const fixed = rewriteTsSpecifiers(text);
  if (fixed !== text) (rewritten++, writeFileSync(file, fixed));
}

// Every file beside the sources that is not TypeScript ships (models, their licences, JSON,
// the page's HTML and CSS), but the page's own compiler settings.
const assets = ['src', 'transports', 'agents'].flatMap((d) => walk(join(root, d))).filter((f) => !f.endsWith('.ts') && !f.endsWith('/tsconfig.json'));
for (const file of assets) copy(file, join(dist, relative(root, file)));
step('bundling the web call page, the call review page and the live calls page for browsers (esbuild)');
const pageOut = join(dist, 'transports/webrtc/page');
run(process.execPath, [
  '--import', 'tsx', '--input-type=module', '-e',
  `const m = await import(${JSON.stringify(join(root, 'transports/webrtc/page-bundle.ts'))});
   await m.bundlePage(${JSON.stringify(join(pageOut, 'app.js'))});
   (await import('node:fs')).copyFileSync(m.fontSource(), ${JSON.stringify(join(pageOut, 'font.woff2'))});
   await (await import(${JSON.stringify(join(root, 'src/review/bundle.ts'))})).bundleReviewScript(${JSON.stringify(join(dist, 'src/review/page/review.js'))});
   await (await import(${JSON.stringify(join(root, 'src/observability/live-bundle.ts'))})).bundleLivePage(${JSON.stringify(join(dist, 'src/observability/live-page/app.js'))});`,
]);
console.error(`build: ${stepNo}/${STEPS} done in ${seconds(stepStart)}`);
console.error(`build: dist/ written (${walk(dist).length} files; ${rewritten} declaration files' specifiers rewritten) in ${seconds(began)}`);

import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/** The page's stylesheet and script, read once per process. */
let assets: Promise<{ css: string; script: string }> | undefined;

/**
 * The review page's stylesheet and script. The script is prebuilt into the package by
 * `npm run build` (page/review.js) and bundled on demand from page/main.ts in a clone, as the
 * WebRTC call page's is: compiled code (dist/, the test tree) reads the prebuilt file.
 */
export function reviewAssets(): Promise<{ css: string; script: string }> {
  assets ??= Promise.all([
    readFile(here('./page/review.css'), 'utf8'),
    import.meta.url.endsWith('.ts') ? bundleReviewScript().then((b) => Buffer.from(b).toString('utf8')) : readFile(here('./page/review.js'), 'utf8'),
  ])
    .then(([css, script]) => ({ css, script }))
    .catch((err: unknown) => {
      assets = undefined; // try again next time
      throw err;
    });
  return assets;
}

/** Bundles page/main.ts for browsers as one classic script to inline (also the build's step). */
export async function bundleReviewScript(outfile?: string): Promise<Uint8Array> {
  const esbuild = await import('esbuild');
  const out = await esbuild.build({
    entryPoints: [here('./page/main.ts')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: ['chrome100', 'firefox100', 'safari15'],
    minify: true,
    write: false,
    logLevel: 'silent',
  });
  const code = out.outputFiles[0]!.contents;
  if (outfile) await writeFile(outfile, code);
  return code;
}

import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { bundleForBrowser, LazyAssets, type PageAsset } from '../server/browser-assets.ts';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/** Bundles `live-page/main.ts` for browsers (the build's step too: `outfile` is then written). */
export function bundleLivePage(outfile?: string): Promise<Uint8Array> {
  return bundleForBrowser(here('./live-page/main.ts'), outfile);
}

/** The script: bundled when running the sources, prebuilt (`live-page/app.js`, `npm run build`) in the package. */
async function script(): Promise<Buffer> {
  if (!import.meta.url.endsWith('.ts')) return readFile(here('./live-page/app.js'));
  return Buffer.from(await bundleLivePage());
}

/** The live calls page's files (`/calls/live`, its script and style sheet), read on first use. */
export function livePageAssets(): LazyAssets {
  return new LazyAssets(
    async () =>
      new Map<string, PageAsset>([
        ['/calls/live', { body: await readFile(here('./live-page/index.html')), type: 'text/html; charset=utf-8' }],
        ['/calls/live/app.js', { body: await script(), type: 'text/javascript; charset=utf-8' }],
        ['/calls/live/app.css', { body: await readFile(here('./live-page/app.css')), type: 'text/css; charset=utf-8' }],
      ]),
  );
}

import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { bundleForBrowser, LazyAssets, type PageAsset } from '../../src/server/browser-assets.ts';

export type { PageAsset };

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/**
 * The page's icon, inline (no asset file to ship): the letter ح on the page's green. Browsers ask
 * for /favicon.ico whatever the page says; answering it keeps a 404 out of every call's console.
 */
export const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#0f7b4d"/>' +
  '<text x="32" y="44" font-size="38" text-anchor="middle" fill="#fff" font-family="serif">ح</text></svg>';

/**
 * The web page's files. The script is bundled from `page/main.ts` with esbuild on first request
 * (mediasoup-client comes from node_modules: no CDN, works offline) and kept in memory; the
 * Arabic font is served from the @fontsource package.
 */
export class PageAssets extends LazyAssets {
  constructor() {
    super(build);
  }
}

/** The Arabic font, from @fontsource in a clone; `npm run build` copies it into the package. */
export const fontSource = (): string => createRequire(import.meta.url).resolve('@fontsource/noto-naskh-arabic/files/noto-naskh-arabic-arabic-400-normal.woff2');

/** The page's script: prebuilt into the package by `npm run build`, bundled on demand from the sources. */
async function script(): Promise<Buffer> {
  if (!import.meta.url.endsWith('.ts')) return readFile(here('./page/app.js'));
  return Buffer.from(await bundlePage());
}

/** Bundles `page/main.ts` for browsers (also the build's step for the package). */
export function bundlePage(outfile?: string): Promise<Uint8Array> {
  return bundleForBrowser(here('./page/main.ts'), outfile, { 'process.env.NODE_ENV': '"production"' });
}

async function build(): Promise<Map<string, PageAsset>> {
  const font = await readFile(import.meta.url.endsWith('.ts') ? fontSource() : here('./page/font.woff2'));
  return new Map<string, PageAsset>([
    ['/', { body: await readFile(here('./page/index.html')), type: 'text/html; charset=utf-8' }],
    ['/webrtc/app.js', { body: await script(), type: 'text/javascript; charset=utf-8' }],
    ['/webrtc/app.css', { body: await readFile(here('./page/app.css')), type: 'text/css; charset=utf-8' }],
    ['/webrtc/font.woff2', { body: font, type: 'font/woff2' }],
    ['/favicon.ico', { body: Buffer.from(FAVICON_SVG), type: 'image/svg+xml' }],
  ]);
}

import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

/** One file of the live calls page. */
export interface LiveAsset {
  body: Buffer;
  type: string;
}

/**
 * The live calls page's files, read once. The script is bundled from `live-page/main.ts` with
 * esbuild when running the sources, and read prebuilt (`live-page/app.js`, written by
 * `npm run build`) in the package, which ships without esbuild.
 */
export class LivePageAssets {
  private assets: Promise<Map<string, LiveAsset>> | undefined;

  /** The asset at `path` (`/calls/live`, `/calls/live/app.js`, `/calls/live/app.css`), if it is one. */
  get(path: string): Promise<LiveAsset | undefined> {
    this.assets ??= load().catch((err) => {
      this.assets = undefined; // try again on the next request
      throw err;
    });
    return this.assets.then((m) => m.get(path));
  }
}

/** Bundles `live-page/main.ts` for browsers (the build's step too: `outfile` is then written). */
export async function bundleLivePage(outfile?: string): Promise<Uint8Array> {
  const esbuild = await import('esbuild');
  const out = await esbuild.build({
    entryPoints: [here('./live-page/main.ts')],
    bundle: true,
    format: 'esm',
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

async function script(): Promise<Buffer> {
  if (!import.meta.url.endsWith('.ts')) return readFile(here('./live-page/app.js'));
  return Buffer.from(await bundleLivePage());
}

async function load(): Promise<Map<string, LiveAsset>> {
  return new Map<string, LiveAsset>([
    ['/calls/live', { body: await readFile(here('./live-page/index.html')), type: 'text/html; charset=utf-8' }],
    ['/calls/live/app.js', { body: await script(), type: 'text/javascript; charset=utf-8' }],
    ['/calls/live/app.css', { body: await readFile(here('./live-page/app.css')), type: 'text/css; charset=utf-8' }],
  ]);
}

import { writeFile } from 'node:fs/promises';

/** One file a page of the server serves. */
export interface PageAsset {
  body: Buffer;
  type: string;
}

/**
 * A page's files, loaded on the first request and kept in memory; a load that fails is tried
 * again on the next request.
 */
export class LazyAssets {
  private assets: Promise<Map<string, PageAsset>> | undefined;

  constructor(private readonly load: () => Promise<Map<string, PageAsset>>) {}

  /** The asset served at `path`, if it is one. */
  get(path: string): Promise<PageAsset | undefined> {
    this.assets ??= this.load().catch((err) => {
      this.assets = undefined;
      throw err;
    });
    return this.assets.then((m) => m.get(path));
  }
}

/**
 * Bundles a page's TypeScript entry for browsers with esbuild (a development dependency: the
 * package ships the bundles prebuilt by `npm run build`); written to `outfile` when given.
 */
export async function bundleForBrowser(entry: string, outfile?: string, define: Record<string, string> = {}): Promise<Uint8Array> {
  const esbuild = await import('esbuild');
  const out = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['chrome100', 'firefox100', 'safari15'],
    minify: true,
    write: false,
    logLevel: 'silent',
    define,
  });
  const code = out.outputFiles[0]!.contents;
  if (outfile) await writeFile(outfile, code);
  return code;
}

import { existsSync } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CreateAgentServerOptions } from '../server/create.ts';
import { CliError } from './args.ts';
import { firstLine } from './explain.ts';

/** Keys a config module may hold: `createAgentServer`'s options (see docs/server.md). */
const KNOWN = new Set<keyof CreateAgentServerOptions>([
  'agent', 'agentFor', 'client', 'sandbox', 'plugins', 'providerHooks', 'open', 'mediaToken', 'tokens', 'port', 'host', 'publicUrl',
  'maxCalls', 'metrics', 'probes', 'logger', 'llm', 'clock', 'onCallEnded', 'admission', 'health', 'deferReady', 'wrapSessions', 'onTransportEnded',
]);

/** Whether this code itself runs as TypeScript (under tsx), so `import()` of a `.ts` module works as is. */
const RUNS_TYPESCRIPT = /\.[cm]?ts$/.test(new URL(import.meta.url).pathname);

/**
 * `hiwar serve --config FILE`: the module's default export (an object of `createAgentServer`'s
 * options, or a function returning one). A `.ts` module is loaded with tsx's `tsImport` when the
 * CLI runs compiled JavaScript; under tsx it is imported directly.
 */
export async function loadServeConfig(path: string): Promise<CreateAgentServerOptions> {
  const file = resolve(path);
  if (!existsSync(file)) throw new CliError(`--config: no file at ${path}`);
  const ext = extname(file);
  if (!['.ts', '.mts', '.js', '.mjs'].includes(ext)) throw new CliError(`--config: ${path} is not a .ts or .js module`);
  const url = pathToFileURL(file).href;
  let mod: { default?: unknown };
  try {
    if ((ext === '.ts' || ext === '.mts') && !RUNS_TYPESCRIPT) {
      const { tsImport } = await import('tsx/esm/api');
      mod = (await tsImport(url, import.meta.url)) as { default?: unknown };
    } else mod = (await import(url)) as { default?: unknown };
  } catch (err) {
    const message = firstLine(err);
    // A .ts file outside an ES-module package is compiled as CommonJS, which cannot import ES modules while being imported.
    const hint = ext === '.ts' && /require\(\)( of)? ES Module|ERR_REQUIRE/.test(message) ? ` (it was loaded as CommonJS: name it ${basename(file, '.ts')}.mts, or set "type": "module" in its package.json)` : '';
    throw new CliError(`--config: could not load ${path}: ${message}${hint}`);
  }
  let config = mod.default;
  // tsx's tsImport (the compiled CLI, as installed) loads a .ts file of a CommonJS package as
  // CommonJS where a direct import fails: its `export default` arrives one level down. The same
  // clear line as the failed import, whichever way hiwar runs.
  if (ext === '.ts' && config && typeof config === 'object' && Object.keys(config).join() === 'default') {
    throw new CliError(`--config: could not load ${path}: its default export came through CommonJS (it was loaded as CommonJS: name it ${basename(file, '.ts')}.mts, or set "type": "module" in its package.json)`);
  }
  if (typeof config === 'function') config = await (config as () => unknown)();
  if (!config || typeof config !== 'object' || Array.isArray(config)) {
    throw new CliError(`--config: ${path} must default-export an object of the server's options (see docs/server.md)`);
  }
  const unknown = Object.keys(config).filter((k) => !KNOWN.has(k as keyof CreateAgentServerOptions));
  if (unknown.length) throw new CliError(`--config: ${path} has options the server does not know: ${unknown.join(', ')} (see docs/server.md)`);
  return config as CreateAgentServerOptions;
}

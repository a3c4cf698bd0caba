/**
 * Where the commands that start an embedded sandbox (`hiwar demo`, `console`, `serve`, `call`,
 * `campaign`, `sandbox`) and `createAgentServer`'s own keep the lines it voices between runs: a
 * start voices every phrase the recognizer is taught in every catalogue voice (a minute on a busy
 * machine), and the next start with the same phrases reads them back in seconds. `startSandbox`
 * and `hiwar/testing` keep them in memory only unless told; these keep them on disk by default,
 * bounded (engines/render-cache.ts, line-dir.ts).
 */
import { join } from 'node:path';
import { hiwarCacheDir } from '../cache-dir.ts';
import { lineDirOf } from './line-dir.ts';

/**
 * The directory of voiced lines for the CLI and `createAgentServer`: HIWAR_SANDBOX_RENDER_CACHE when set (`off`: none, memory
 * only), else `voiced-lines` in hiwar's cache (`hiwarCacheDir`). Undefined without a home directory.
 */
export function voicedLinesDir(env: NodeJS.ProcessEnv = process.env, home?: string): string | undefined {
  const own = env.HIWAR_SANDBOX_RENDER_CACHE;
  // Set (even to `off`), it decides alone: `off` is no directory, not the default one.
  if (own) return lineDirOf(own);
  const cache = hiwarCacheDir(env, home);
  return cache ? join(cache, 'voiced-lines') : undefined;
}

/** Points the embedded sandbox's render cache at the CLI's directory; returns it (undefined: memory only). */
export async function keepVoicedLines(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const { RENDER_CACHE_DEFAULTS } = await import('./engines/render-cache.ts');
  RENDER_CACHE_DEFAULTS.dir = voicedLinesDir(env);
  return RENDER_CACHE_DEFAULTS.dir;
}

/**
 * `createAgentServer`'s embedded sandbox keeps its voiced lines where `hiwar serve`'s does: in
 * `voicedLines` when given (false: memory only), else, unless the process chose already (the
 * variable set, or `RENDER_CACHE_DEFAULTS.dir` set in code), in `voicedLinesDir()`. The render
 * cache is the process's: this sets it for every sandbox the process runs.
 */
export async function serverVoicedLines(voicedLines: string | false | undefined, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const { RENDER_CACHE_DEFAULTS } = await import('./engines/render-cache.ts');
  if (voicedLines !== undefined) RENDER_CACHE_DEFAULTS.dir = voicedLines || undefined;
  else if (RENDER_CACHE_DEFAULTS.dir === undefined && !env.HIWAR_SANDBOX_RENDER_CACHE) RENDER_CACHE_DEFAULTS.dir = voicedLinesDir(env);
  return RENDER_CACHE_DEFAULTS.dir;
}

/**
 * Where the commands that start an embedded sandbox (`hiwar demo`, `console`, `serve`, `call`,
 * `campaign`, `sandbox`) keep the lines it voices between runs: a start voices every phrase the
 * recognizer is taught in every catalogue voice (a minute on a busy machine), and the next start
 * with the same phrases reads them back in seconds. The library keeps them in memory only unless
 * told; the CLI keeps them on disk by default, bounded (engines/render-cache.ts, line-dir.ts).
 */
import { join } from 'node:path';
import { hiwarCacheDir } from '../cache-dir.ts';
import { lineDirOf } from '../sandbox/line-dir.ts';

/**
 * The directory of voiced lines for the CLI: HIWAR_SANDBOX_RENDER_CACHE when set (`off`: none, memory
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
  const { RENDER_CACHE_DEFAULTS } = await import('../sandbox/engines/render-cache.ts');
  RENDER_CACHE_DEFAULTS.dir = voicedLinesDir(env);
  return RENDER_CACHE_DEFAULTS.dir;
}

/**
 * Where the commands that start an embedded sandbox (`hiwar demo`, `console`, `serve`, `call`,
 * `campaign`, `sandbox`) keep the lines it voices between runs: a start voices every phrase the
 * recognizer is taught in every catalogue voice (a minute on a busy machine), and the next start
 * with the same phrases reads them back in seconds. The library keeps them in memory only unless
 * told; the CLI keeps them on disk by default, bounded (engines/render-cache.ts, line-dir.ts).
 */
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { lineDirOf } from '../sandbox/line-dir.ts';

/**
 * The directory of voiced lines for the CLI: HIWAR_SANDBOX_RENDER_CACHE when set (`off`: none, memory
 * only), else `voiced-lines` in hiwar's cache: HIWAR_CACHE, else `$XDG_CACHE_HOME/hiwar` (an
 * absolute path, as the XDG base directory spec asks), else `~/.cache/hiwar` (where
 * scripts/setup.sh keeps mediasoup's worker too). Undefined without a home directory.
 */
export function voicedLinesDir(env: NodeJS.ProcessEnv = process.env, home: string = safeHome()): string | undefined {
  const own = env.HIWAR_SANDBOX_RENDER_CACHE;
  // Set (even to `off`), it decides alone: `off` is no directory, not the default one.
  if (own) return lineDirOf(own);
  const xdg = env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? join(env.XDG_CACHE_HOME, 'hiwar') : undefined;
  const cache = env.HIWAR_CACHE || xdg || (home ? join(home, '.cache', 'hiwar') : undefined);
  return cache ? join(cache, 'voiced-lines') : undefined;
}

/** Points the embedded sandbox's render cache at the CLI's directory; returns it (undefined: memory only). */
export async function keepVoicedLines(env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  const { RENDER_CACHE_DEFAULTS } = await import('../sandbox/engines/render-cache.ts');
  RENDER_CACHE_DEFAULTS.dir = voicedLinesDir(env);
  return RENDER_CACHE_DEFAULTS.dir;
}

function safeHome(): string {
  try {
    return homedir();
  } catch {
    return '';
  }
}

import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';

/**
 * hiwar's cache directory (kept voiced lines, the mediasoup worker scripts/setup.sh builds):
 * HIWAR_CACHE, else `$XDG_CACHE_HOME/hiwar` (an absolute path, as the XDG base directory spec
 * asks), else `~/.cache/hiwar`. Undefined without a home directory. scripts/setup.sh picks the
 * same one.
 */
export function hiwarCacheDir(env: NodeJS.ProcessEnv = process.env, home: string = safeHome()): string | undefined {
  const xdg = env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? join(env.XDG_CACHE_HOME, 'hiwar') : undefined;
  return env.HIWAR_CACHE || xdg || (home ? join(home, '.cache', 'hiwar') : undefined);
}

function safeHome(): string {
  try {
    return homedir();
  } catch {
    return '';
  }
}

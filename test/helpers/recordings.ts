import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder of real recordings (docs/sandbox.md#real-recordings-for-the-recognizer-bench):
 * `HIWAR_AUDIO_DIR`, else a `shared/audio` folder beside the repository or one of its parents,
 * found by walking up from this file, so a test or a bench finds it whether it runs from the
 * sources, from a git worktree or from the compiled tree under `.tmp/`. Undefined
 * when there is none (a fresh clone).
 */
export function recordingsDir(): string | undefined {
  if (process.env.HIWAR_AUDIO_DIR) return process.env.HIWAR_AUDIO_DIR;
  return sharedAudioAbove(dirname(fileURLToPath(import.meta.url)));
}

/** The first `shared/audio` folder in `start` or a folder above it, walking up to the root. */
export function sharedAudioAbove(start: string): string | undefined {
  for (let dir = start; ; dir = dirname(dir)) {
    const candidate = join(dir, 'shared', 'audio');
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

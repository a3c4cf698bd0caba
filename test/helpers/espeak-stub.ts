/**
 * A stand-in for espeak-ng on a child process's PATH: it answers `--version` (the real one's
 * answer, or `version`) and refuses to voice anything, so the child can only say lines kept in a
 * shared directory, and the kept lines' keys (src/sandbox/engines/espeak-version.ts) see the
 * espeak-ng they are told.
 */
import { accessSync, chmodSync, constants, mkdtempSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** A new directory under `parent` holding the stand-in `espeak-ng`; put it alone on the PATH. */
export function espeakStub(parent: string, version?: string): string {
  const dir = mkdtempSync(join(parent, 'espeak-stub-'));
  const answer = version === undefined ? `exec ${JSON.stringify(realEspeak())} --version` : `printf '%s\\n' ${JSON.stringify(version)}; exit 0`;
  writeFileSync(join(dir, 'espeak-ng'), `#!/bin/sh\nif [ "$1" = --version ]; then ${answer}; fi\necho 'espeak-ng stand-in: voicing refused' >&2\nexit 3\n`);
  chmodSync(join(dir, 'espeak-ng'), 0o755);
  return dir;
}

function realEspeak(): string {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const file = join(dir, 'espeak-ng');
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not in this directory
    }
  }
  throw new Error('espeak-ng is not on the PATH (apt-get install espeak-ng)');
}

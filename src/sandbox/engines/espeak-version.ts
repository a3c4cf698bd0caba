/**
 * Which espeak-ng voices the sandbox's lines: its `--version` line (the version and where its
 * data lies) and a digest of the data files that shape an Arabic voicing. The kept voiced lines
 * and words (render-cache.ts) carry it in their keys, so after an upgrade of espeak-ng or its
 * data a machine starts a fresh set instead of serving the old voicing's audio.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The data files read, beside the version: phonemes, intonation and the Arabic dictionary (2 MB or so, read once). */
const DATA_FILES = ['phondata', 'phonindex', 'phontab', 'intonations', 'ar_dict'];

let once: Promise<string> | undefined;

/** The fingerprint of the espeak-ng on the PATH, read at the first call of the process and kept. */
export function espeakFingerprint(): Promise<string> {
  return (once ??= readEspeakFingerprint());
}

/**
 * The fingerprint read now (16 hex digits), with `env`'s PATH. An espeak-ng that does not answer
 * has one too (it voices nothing, but a directory's lines can still be read back).
 */
export async function readEspeakFingerprint(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const version = await new Promise<string>((resolve) =>
    execFile('espeak-ng', ['--version'], { env, timeout: 10_000 }, (err, stdout) => resolve(err ? 'no espeak-ng' : stdout.trim())),
  );
  const data = /Data at:\s*(.+)$/m.exec(version)?.[1]?.trim();
  const hash = createHash('sha256').update(version);
  for (const name of DATA_FILES) {
    const bytes = data ? await readFile(join(data, name)).catch(() => undefined) : undefined;
    hash.update(`\0${name}\0${bytes ? createHash('sha256').update(bytes).digest('hex') : 'missing'}`);
  }
  return hash.digest('hex').slice(0, 16);
}

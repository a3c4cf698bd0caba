/**
 * The bound of the sandbox's directory of voiced lines (engines/render-cache.ts writes one file
 * per line there and one per word espeak-ng voiced, engines/mel-cache.ts one of features per line
 * learnt; all count): past `maxBytes` the least recently used files go, so a directory the CLI keeps
 * by default in the user's cache never grows without end (a long `hiwar serve` voices every
 * reply, each a new line when it names a balance or a date). A line read from the directory gets
 * its modification time renewed (`touchLine`), so "least recently used" is the oldest mtime.
 *
 * Several processes may share the directory: each counts what it wrote and looks at the whole
 * directory again once that passes a sixteenth of the bound, so the directory exceeds the bound
 * by at most that much per process between two looks. Removing a line another process is about
 * to read only makes it voice the line anew.
 */
import { readdir, stat, unlink, utimes } from 'node:fs/promises';
import { join } from 'node:path';

/** The directory HIWAR_SANDBOX_RENDER_CACHE names: none when unset, empty or `off`. */
export function lineDirOf(value: string | undefined): string | undefined {
  return value && value !== 'off' ? value : undefined;
}

/** How the directory is kept within its bound. */
export const LINE_DIR_DEFAULTS = {
  /** A pruned directory keeps at most this share of the bound, so that pruning is not redone at every write. */
  keepShare: 0.75,
  /** A process looks at the whole directory again once it has written this share of the bound. */
  lookEvery: 1 / 16,
  /** A `.partial` file older than this was left by a process that died while writing: removed. */
  partialAgeMs: 10 * 60_000,
};

/** Per directory: bytes this process wrote since it last looked (absent: never looked). */
const written = new Map<string, number>();

/** Counts a line just written to `dir`, and prunes the directory when it may have passed `maxBytes`. */
export async function lineWritten(dir: string, bytes: number, maxBytes: number): Promise<void> {
  const since = (written.get(dir) ?? Infinity) + bytes;
  if (since < maxBytes * LINE_DIR_DEFAULTS.lookEvery) {
    written.set(dir, since);
    return;
  }
  written.set(dir, 0);
  await pruneLineDir(dir, maxBytes);
}

/** Marks a line read from the directory as used now; a line gone meanwhile is no matter. */
export async function touchLine(file: string): Promise<void> {
  const now = new Date();
  await utimes(file, now, now).catch(() => {});
}

/**
 * Removes the least recently used lines of `dir` while it holds more than `maxBytes`, down to
 * `keepShare` of it, and any `.partial` file a dead writer left. Returns what it removed and what
 * the lines it kept weigh. A file that vanished meanwhile (another process pruned it) is skipped.
 */
export async function pruneLineDir(dir: string, maxBytes: number, now = Date.now()): Promise<{ removed: number; bytes: number }> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return { removed: 0, bytes: 0 };
  }
  const lines: { file: string; size: number; used: number }[] = [];
  let removed = 0;
  for (const name of names) {
    const file = join(dir, name);
    const s = await stat(file).catch(() => undefined);
    if (!s?.isFile()) continue;
    if (name.endsWith('.partial')) {
      if (now - s.mtimeMs > LINE_DIR_DEFAULTS.partialAgeMs && (await remove(file))) removed++;
    } else if (name.endsWith('.line') || name.endsWith('.mel') || name.endsWith('.word')) {
      lines.push({ file, size: s.size, used: s.mtimeMs });
    }
  }
  let bytes = lines.reduce((sum, l) => sum + l.size, 0);
  if (bytes <= maxBytes) return { removed, bytes };
  lines.sort((a, b) => a.used - b.used);
  for (const line of lines) {
    if (bytes <= maxBytes * LINE_DIR_DEFAULTS.keepShare) break;
    if (await remove(line.file)) removed++;
    bytes -= line.size;
  }
  return { removed, bytes };
}

async function remove(file: string): Promise<boolean> {
  return unlink(file).then(
    () => true,
    () => false,
  );
}

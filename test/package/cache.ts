// The package test's shared work: the packed tarball and the blank projects it is installed into,
// made once for all of test/package/'s files of a run (npm test gives each run its own directory)
// instead of once per file. A directory per key, filled by whichever process needs it
// first while holding a lock; the others wait for it (docs/testing.md, "The package test").
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * What the build reads besides the `files` package.json ships: dist/ is made from these, so
 * they stand for it (dist/ itself may be stale or missing until `npm pack` builds it).
 */
const BUILD_INPUTS = ['package.json', 'package-lock.json', 'scripts/build.mjs', 'tsconfig.json', 'tsconfig.build.json', 'src', 'transports', 'agents'];
/** The file that marks a directory complete: one without it is never used. */
const DONE = '.complete';
/** A directory's stamp of last use: keys unused this long are removed when a new one is made. */
const USED = '.used';
const STALE_MS = 60 * 60_000;
/** A lock directory whose holder has not written its pid after this long was left by a crash. */
const PIDLESS_MS = 10_000;

/**
 * Every file that goes into the tarball or into the build that makes its dist/, as paths from
 * `root`, sorted: package.json's `files` (but dist/), the sources and build scripts, the lockfile.
 */
export function packageInputs(root: string): string[] {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { files?: string[] };
  const shipped = (pkg.files ?? []).map((f) => f.replace(/\/+$/, '')).filter((f) => f !== 'dist' && !f.startsWith('dist/'));
  const walk = (rel: string): string[] => {
    const path = join(root, rel);
    if (!existsSync(path)) return [];
    if (!statSync(path).isDirectory()) return [rel];
    return readdirSync(path, { withFileTypes: true }).filter((e) => e.name !== 'node_modules').flatMap((e) => (e.isDirectory() || e.isFile() ? walk(`${rel}/${e.name}`) : []));
  };
  return [...new Set([...BUILD_INPUTS, ...shipped].flatMap(walk))].sort();
}

/** The cache key of the package as `root` holds it now: a hash of every input's path and bytes. */
export function packageKey(root: string): string {
  const hash = createHash('sha256');
  for (const rel of packageInputs(root)) hash.update(`${rel}\0`).update(readFileSync(join(root, rel))).update('\0');
  return hash.digest('hex').slice(0, 16);
}

/** Whether the process that wrote `lock`'s pid has ended (or never wrote it, long ago). */
function holderGone(lock: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(lock, 'pid'), 'utf8'));
  } catch {
    try {
      return Date.now() - statSync(lock).mtimeMs > PIDLESS_MS;
    } catch {
      return false; // released meanwhile: the next attempt takes it
    }
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * `dir`, filled by `fill` once: the first caller takes `dir.lock` (a directory, made atomically)
 * and fills `dir` (emptied first: a fill that failed or was killed leaves no complete directory);
 * callers meanwhile, in this process or another, wait for the lock and then use what it made.
 * A lock whose process has died is taken over. `fill`'s failure rejects this caller only; the
 * next caller fills again.
 */
export async function fillOnce(dir: string, fill: (dir: string) => Promise<void>, pollMs = 250): Promise<string> {
  const done = join(dir, DONE);
  const lock = `${dir}.lock`;
  const stamp = () => {
    const now = new Date();
    try {
      utimesSync(join(dir, USED), now, now);
    } catch {
      writeFileSync(join(dir, USED), '');
    }
  };
  if (existsSync(done)) return (stamp(), dir);
  mkdirSync(join(dir, '..'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (existsSync(done)) return (stamp(), dir);
    if (holderGone(lock)) rmSync(lock, { recursive: true, force: true });
    else await sleep(pollMs);
  }
  try {
    if (existsSync(done)) return (stamp(), dir); // filled while this caller waited
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    await fill(dir);
    writeFileSync(done, new Date().toISOString());
    stamp();
    return dir;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Removes the keys under `parent` but `keep` that nobody has used for an hour and no lock holds. */
export function pruneStale(parent: string, keep: string): void {
  if (!existsSync(parent)) return;
  for (const name of readdirSync(parent)) {
    const path = join(parent, name);
    if (name === keep || !statSync(path).isDirectory()) continue;
    const stages = readdirSync(path);
    if (stages.some((n) => n.endsWith('.lock'))) continue;
    const used = [path, ...stages.map((n) => join(path, n, USED))];
    const last = Math.max(...used.map((p) => (existsSync(p) ? statSync(p).mtimeMs : 0)));
    if (Date.now() - last > STALE_MS) rmSync(path, { recursive: true, force: true });
  }
}

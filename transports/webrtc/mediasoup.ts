/**
 * mediasoup is an optional dependency: its C++ worker is built at install time and may be
 * missing. Everything that needs it loads it through here, so a missing package or worker
 * becomes one clear reason ("WebRTC is off: …") instead of a crash at import.
 */
import { access, constants, readdir, readFile, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type * as Mediasoup from 'mediasoup';
import { importOptional } from '../../src/optional.ts';
import { docPath } from '../../src/docs-path.ts';
import { hiwarCacheDir } from '../../src/cache-dir.ts';

export type { types as ms } from 'mediasoup';
export type MediasoupModule = typeof Mediasoup;

/** Whether mediasoup loads here: its module and version, or the reason it does not. */
export type WebRtcAvailability = { available: true; mediasoup: MediasoupModule; version: string } | { available: false; reason: string };

let cached: Promise<WebRtcAvailability> | undefined;

async function probe(): Promise<WebRtcAvailability> {
  let mod: MediasoupModule;
  try {
    mod = (await importOptional('mediasoup', () => import('mediasoup'))) as MediasoupModule;
  } catch (err) {
    return { available: false, reason: (err as Error).message.split('\n')[0]! };
  }
  const missing = await missingWorker(mod.version, process.env.MEDIASOUP_WORKER_BIN || mod.workerBin);
  return missing ? { available: false, reason: missing } : { available: true, mediasoup: mod, version: mod.version };
}

/** Whether WebRTC can run here, and mediasoup when it can. Probed once per process. */
export function webrtcAvailability(): Promise<WebRtcAvailability> {
  cached ??= probe();
  return cached;
}

/** mediasoup, or an error that says why WebRTC is off. */
export async function requireMediasoup(): Promise<MediasoupModule> {
  const a = await webrtcAvailability();
  if (!a.available) throw new Error(`WebRTC is off: ${a.reason}`);
  return a.mediasoup;
}

/**
 * What `webrtcAvailability()` checks but loading mediasoup (about a third of a second of CPU, its
 * ~260 modules): its version and whether its worker binary is there and runnable, found where
 * mediasoup itself looks (`MEDIASOUP_WORKER_BIN`, else `worker/out/Release/mediasoup-worker` in
 * its package; `Debug` with `MEDIASOUP_BUILDTYPE=Debug`). For a server that loads mediasoup with
 * its first browser call and still says at its start whether WebRTC can run.
 */
export async function mediasoupInstalled(): Promise<{ available: true; version: string } | { available: false; reason: string }> {
  let root: string;
  let version: string;
  try {
    root = join(dirname(createRequire(import.meta.url).resolve('mediasoup')), '..', '..');
    version = (JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  } catch (err) {
    return { available: false, reason: `mediasoup cannot be found: ${(err as Error).message.split('\n')[0]}` };
  }
  const missing = await missingWorker(version, process.env.MEDIASOUP_WORKER_BIN || join(root, 'worker', 'out', process.env.MEDIASOUP_BUILDTYPE === 'Debug' ? 'Debug' : 'Release', 'mediasoup-worker'));
  return missing ? { available: false, reason: missing } : { available: true, version };
}

/** Why the worker binary at `bin` cannot run, or undefined when it can. */
async function missingWorker(version: string, bin: string): Promise<string | undefined> {
  try {
    await access(bin, constants.X_OK);
    return undefined;
  } catch {
    const cached = await cachedWorker(version);
    const reuse = cached ? `a worker built for ${version} by a clone's scripts/setup.sh is at ${cached}: set MEDIASOUP_WORKER_BIN=${cached}, or ` : '';
    return `mediasoup ${version} is installed but its worker binary is missing (${bin}); ${reuse}rebuild it as ${docPath('docs/webrtc.md')} says`;
  }
}

/**
 * A worker for this mediasoup version that a clone's scripts/setup.sh built and kept in hiwar's
 * cache (`hiwarCacheDir`: `mediasoup-worker-VERSION-KIT`). A newcomer who set
 * up a clone and then installed mediasoup in a project of their own (whose install skips the
 * build when told of it) had one on the disk and no word of it: rebuilding takes minutes.
 */
async function cachedWorker(version: string): Promise<string | undefined> {
  const dir = hiwarCacheDir();
  if (!dir) return undefined;
  try {
    for (const name of (await readdir(dir)).sort()) {
      if (!name.startsWith(`mediasoup-worker-${version}-`)) continue;
      const path = join(dir, name);
      const runnable = await access(path, constants.X_OK).then(async () => (await stat(path)).isFile(), () => false);
      if (runnable) return path;
    }
  } catch {
    // no cache directory, or no home
  }
  return undefined;
}

/** `hiwar serve`'s start-up line for WebRTC that runs: the version, when the workers start, and the token route's state. */
export function webrtcOnLine(version: string, workers: string, open: boolean, secret: string | undefined): string {
  return `WebRTC is on (mediasoup ${version}, ${workers}): call page at /, room tokens at POST /webrtc/token${secret ? '' : open ? ' (OPEN: --open and no HIWAR_WEBRTC_SECRET)' : ' (closed: set HIWAR_WEBRTC_SECRET to issue them)'}`;
}

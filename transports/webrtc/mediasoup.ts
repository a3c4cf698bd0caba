/**
 * mediasoup is an optional dependency: its C++ worker is built at install time and may be
 * missing. Everything that needs it loads it through here, so a missing package or worker
 * becomes one clear reason ("WebRTC is off: …") instead of a crash at import.
 */
import { access, constants } from 'node:fs/promises';
import type * as Mediasoup from 'mediasoup';
import { importOptional } from '../../src/optional.ts';
import { docPath } from '../../src/docs-path.ts';

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
  const bin = process.env.MEDIASOUP_WORKER_BIN || mod.workerBin;
  try {
    await access(bin, constants.X_OK);
  } catch {
    return { available: false, reason: `mediasoup ${mod.version} is installed but its worker binary is missing (${bin}); rebuild it as ${docPath('docs/webrtc.md')} says` };
  }
  return { available: true, mediasoup: mod, version: mod.version };
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

import { missingPackages, requireOptional } from '../optional.ts';
import type { Logger } from '../session/logger.ts';
import type { CallHost, ServerPlugin } from '../server/types.ts';
import type { RoomHosts } from '../../transports/webrtc/index.ts';
import { firstLine } from './explain.ts';

/** What `hiwar serve` mounts for WebRTC (the plugin, when it runs here) and its one summary line. */
export interface ServeWebRtc {
  plugin?: ServerPlugin;
  message: string;
}

/**
 * WebRTC for `hiwar serve`, which is optional: when its native parts (mediasoup's worker, the
 * Opus codec) are missing or do not load, the server carries on for telephony and says why.
 *
 * The Opus binding is loaded with `require` before the transport is imported. Node 20 reports a
 * CommonJS module that throws while an ES module imports it statically twice: as the import's
 * rejection and again as an unhandled rejection (nodejs/node#51603), which ends the process when
 * it comes before serve has installed its handler (in cluster mode it always did). A `require`
 * that throws is an ordinary exception, and a binding that loaded is then shared by the import.
 */
export async function loadWebRtc(opts: {
  host: CallHost;
  logger: Logger;
  open: boolean;
  rooms?: RoomHosts;
  tokens?: { signingKey: string };
  /** What the embedded sandbox's recognizer knows, listed on the call page. */
  phrases?: readonly string[];
  /** When the mediasoup workers start (`--webrtc-start`). */
  start?: 'first-use' | 'eager';
}): Promise<ServeWebRtc> {
  // Both packages are named at once: a user who installs one should not meet the other next.
  const missing = missingPackages('WebRTC', ['mediasoup', '@discordjs/opus'], 'docs/webrtc.md');
  if (missing) return { message: `WebRTC is off: ${missing}` };
  try {
    requireOptional('@discordjs/opus');
  } catch (err) {
    return { message: `WebRTC is off: the Opus codec (@discordjs/opus) did not load: ${firstLine(err)}` };
  }
  return import('../../transports/webrtc/index.ts').then(
    ({ webrtcForServe }) => webrtcForServe(opts),
    (err: unknown) => ({ message: `WebRTC is off: ${firstLine(err)}` }),
  );
}


import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { missingPackages, requireOptional } from '../optional.ts';
import type { Logger } from '../session/logger.ts';
import type { CallHost, ServerPlugin } from '../server/types.ts';
import type { RoomHosts } from '../../transports/webrtc/index.ts';
import { mediasoupInstalled, webrtcOnLine } from '../../transports/webrtc/mediasoup.ts';
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
 *
 * `start: 'first-use'` (the default): the transport and mediasoup are loaded, and the workers
 * started, by the first request for the call page, a room token or the signaling socket; what the
 * start-up line says is checked without loading them (mediasoup's version and worker binary).
 */
export async function loadWebRtc(opts: {
  host: CallHost;
  logger: Logger;
  open: boolean;
  rooms?: RoomHosts;
  tokens?: { signingKey: string };
  /** What the embedded sandbox's recognizer knows, listed on the call page (a function: what it knows now). */
  phrases?: readonly string[] | (() => readonly string[]);
  /** When mediasoup is loaded and its workers start (`--webrtc-start`). */
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
  const transport = () => import('../../transports/webrtc/index.ts');
  if (opts.start === 'eager') {
    return transport().then(
      ({ webrtcForServe }) => webrtcForServe(opts),
      (err: unknown) => ({ message: `WebRTC is off: ${firstLine(err)}` }),
    );
  }
  const installed = await mediasoupInstalled();
  if (!installed.available) return { message: `WebRTC is off: ${installed.reason}` };
  const plugin = loadedOnFirstUse(async () => (await transport()).createWebRtcPlugin(opts), opts.logger);
  return { plugin, message: webrtcOnLine(installed.version, 'loaded with the first browser call', opts.open, process.env.HIWAR_WEBRTC_SECRET) };
}

/** The paths of the WebRTC plugin (`createWebRtcPlugin`): its page, its routes and its socket. */
const webrtcPath = (path: string) => path === '/' || path === '/index.html' || path === '/favicon.ico' || path.startsWith('/webrtc/');

/**
 * A plugin standing for the one `make` gives, made by the first request on its paths (a failed
 * make is said and tried again by the next request). Nothing of it is loaded before.
 */
function loadedOnFirstUse(make: () => Promise<ServerPlugin>, logger: Logger): ServerPlugin {
  let made: Promise<ServerPlugin> | undefined;
  const get = () => {
    made ??= make().catch((err: unknown) => {
      made = undefined;
      logger.error({ err: firstLine(err) }, 'WebRTC did not load');
      throw err;
    });
    return made;
  };
  return {
    name: 'webrtc',
    async handleRequest(req: IncomingMessage, res: ServerResponse, url: URL) {
      if (!webrtcPath(url.pathname)) return false;
      let plugin: ServerPlugin;
      try {
        plugin = await get();
      } catch (err) {
        res.writeHead(503, { 'content-type': 'application/json', 'cache-control': 'no-store' });
        res.end(JSON.stringify({ error: `WebRTC did not load: ${firstLine(err)}` }));
        return true;
      }
      return (await plugin.handleRequest?.(req, res, url)) ?? false;
    },
    handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL) {
      if (url.pathname !== '/webrtc/ws') return false;
      // The page's socket waits for the plugin: nothing comes on it before the handshake's answer.
      const drop = () => socket.destroy();
      socket.on('error', drop);
      get().then(
        (plugin) => {
          socket.off('error', drop);
          if (!socket.destroyed && !plugin.handleUpgrade?.(req, socket, head, url)) socket.destroy();
        },
        drop,
      );
      return true;
    },
    async close() {
      const plugin = await made?.catch(() => undefined);
      await plugin?.close?.();
    },
  };
}

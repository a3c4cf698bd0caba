/**
 * The TCP server Asterisk's AudioSocket connects to (`hiwar serve --audiosocket-port 9092`). Each
 * connection is one call: bytes are cut into frames, parsed by `AudioSocketConnection`, and run
 * through the same `MediaConnection` / `MediaStreamTransport` as every WebSocket platform, with
 * a lead of about one frame (Asterisk plays what it gets as it gets it).
 *
 * AudioSocket carries no credentials, only the call UUID, so who may connect is decided by the
 * peer address: loopback only unless `allow` lists addresses or subnets (the Asterisk hosts).
 */
import { BlockList, createServer, isIPv4, type Server, type Socket } from 'node:net';
import type { CallHost, ServerPlugin } from '../../src/server/types.ts';
import type { Logger } from '../../src/session/logger.ts';
import { AudioSocketConnection, audiosocket } from './audiosocket.ts';
import { FrameReader } from './audiosocket-frames.ts';
import { MediaConnection } from './connection.ts';
import type { MediaStreamOptions, PlatformHooks } from './media-stream.ts';

/** Options of the AudioSocket TCP server: port, address and allowed peers. */
export interface AudioSocketServerOptions {
  port: number;
  /** Address to bind. @default '127.0.0.1' */
  host?: string;
  /**
   * Peers allowed to connect: addresses (`10.0.0.5`) or subnets (`10.0.0.0/8`, `fd00::/8`).
   * Anyone else is disconnected at once, before a call starts.
   * @default ['127.0.0.0/8', '::1'] (this machine only)
   */
  allow?: string[];
  /**
   * Agent audio Asterisk may hold ahead of what it plays. AudioSocket has no jitter buffer of its
   * own toward the caller, so this is about one 20 ms frame plus timer slack.
   * @default 40
   */
  leadMs?: number;
  /** A connection that starts no call (its UUID frame, then audio) within this time is closed. @default 10000 */
  startTimeoutMs?: number;
  media?: MediaStreamOptions;
  hooks?: PlatformHooks;
  logger?: Logger;
}

export const AUDIOSOCKET_SERVER_DEFAULTS = { host: '127.0.0.1', allow: ['127.0.0.0/8', '::1'], leadMs: 40, startTimeoutMs: 10_000 };

/** Builds the allow-list of peer addresses and subnets. */
export function allowList(entries: string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [addr, bits] = entry.trim().split('/');
    if (!addr) continue;
    const family = isIPv4(addr) ? 'ipv4' : 'ipv6';
    if (bits === undefined) list.addAddress(addr, family);
    else {
      const prefix = Number(bits);
      if (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 'ipv4' ? 32 : 128)) throw new Error(`bad subnet in AudioSocket allow list: ${entry}`);
      list.addSubnet(addr, prefix, family);
    }
  }
  return list;
}

/** Whether a peer address (as `socket.remoteAddress` gives it) is on the list. */
export function peerAllowed(list: BlockList, remote: string | undefined): boolean {
  if (!remote) return false;
  const v4 = remote.startsWith('::ffff:') ? remote.slice(7) : remote;
  return isIPv4(v4) ? list.check(v4, 'ipv4') : list.check(v4, 'ipv6');
}

export interface AudioSocketServer extends ServerPlugin {
  readonly port: number;
  connections(): number;
  close(): Promise<void>;
}

/** Starts an AudioSocket (Asterisk) TCP server whose calls the host runs. */
export async function startAudioSocketServer(callHost: CallHost, opts: AudioSocketServerOptions): Promise<AudioSocketServer> {
  const o = { ...AUDIOSOCKET_SERVER_DEFAULTS, ...opts };
  const allowed = allowList(o.allow);
  const live = new Set<Socket>();

  const server: Server = createServer((socket) => {
    if (callHost.draining || !peerAllowed(allowed, socket.remoteAddress)) {
      o.logger?.warn({ provider: 'audiosocket', peer: socket.remoteAddress, draining: callHost.draining }, 'AudioSocket connection refused');
      socket.destroy();
      return;
    }
    // Until its first audio the connection holds a call's place, as a media WebSocket does.
    const hold = callHost.hold ? callHost.hold({ provider: 'audiosocket' }) : { release() {} };
    if (!hold) {
      o.logger?.warn({ provider: 'audiosocket', peer: socket.remoteAddress }, 'AudioSocket connection refused: the server is full');
      socket.destroy();
      return;
    }
    live.add(socket);
    socket.setNoDelay(true);
    const reader = new FrameReader();
    const parser = audiosocket.open({ url: new URL('tcp://audiosocket/'), headers: {} }) as AudioSocketConnection;
    const conn = new MediaConnection({
      provider: 'audiosocket',
      conn: parser,
      sink: {
        send: (m) => {
          if (!socket.destroyed && socket.writable && 'binary' in m) socket.write(m.binary);
        },
        close: () => socket.end(),
      },
      host: callHost,
      media: { ...o.media, leadMs: o.leadMs },
      hooks: o.hooks,
      logger: o.logger,
      hold,
    });
    const startTimer = setTimeout(() => {
      if (!parser.started) {
        // A call starts at the first audio after the UUID frame: audio without a UUID first is not "no audio".
        o.logger?.warn({ provider: 'audiosocket', peer: socket.remoteAddress }, `AudioSocket connection started no call within ${o.startTimeoutMs / 1000} s (it must send the UUID frame, 0x01, then audio); closing`);
        socket.destroy();
      }
    }, o.startTimeoutMs);
    socket.on('data', (chunk: Buffer) => {
      for (const frame of reader.push(chunk)) conn.receive({ binary: frame });
    });
    socket.on('error', (err) => o.logger?.debug({ provider: 'audiosocket', err: err.message }, 'AudioSocket socket error'));
    socket.on('close', (hadError) => {
      clearTimeout(startTimer);
      hold.release();
      live.delete(socket);
      conn.closed(hadError ? 'connection broken' : 'normal');
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  return {
    name: 'audiosocket',
    port: typeof address === 'object' && address ? address.port : o.port,
    connections: () => live.size,
    async close() {
      for (const s of live) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * `hiwar serve --audiosocket-port N`: the AudioSocket server on the serve command's address.
 * Peers beyond this machine are listed in `HIWAR_AUDIOSOCKET_ALLOW` (comma-separated addresses or
 * subnets of the Asterisk hosts): AudioSocket carries no token, so the media token cannot apply.
 */
export function listenAudioSocket(callHost: CallHost, o: { port: number; host: string; logger?: Logger; hooks?: PlatformHooks; media?: MediaStreamOptions }): Promise<AudioSocketServer> {
  const extra = (process.env.HIWAR_AUDIOSOCKET_ALLOW ?? '').split(',').map((a) => a.trim()).filter(Boolean);
  return startAudioSocketServer(callHost, { ...o, allow: [...AUDIOSOCKET_SERVER_DEFAULTS.allow, ...extra] });
}

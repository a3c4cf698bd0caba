/**
 * WebRTC calls for `hiwar serve`: a web page at `/`, room tokens for the user's backend, and
 * signaling over a WebSocket; media goes through mediasoup, and the agent joins each room as a
 * participant. Mount the plugin returned by `createWebRtcPlugin` on the server.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { networkInterfaces } from 'node:os';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { RateLimiter, type RateLimitOptions } from '../../src/server/limits.ts';
import type { CallHost, ServerPlugin } from '../../src/server/types.ts';
import { createLogger, type Logger } from '../../src/session/logger.ts';
import type { AgentParticipantOptions } from './agent-participant.ts';
import { webrtcAvailability, webrtcOnLine, type ms } from './mediasoup.ts';
import type { PacketClockOptions } from './packet-clock.ts';
import { SenderPool, type SenderPoolOptions } from './sender-thread.ts';
import { PageAssets } from './page-bundle.ts';
import { Room } from './room.ts';
import { MAX_MESSAGE_BYTES, serveSignaling } from './signaling.ts';
import { RoomTokens, type PeerRole, type TokenOptions } from './tokens.ts';
import { WorkerPool, type WorkerPoolOptions } from './worker-pool.ts';

export { webrtcAvailability, type WebRtcAvailability } from './mediasoup.ts';
export { RoomTokens, TokenError, type PeerRole, type RoomGrant } from './tokens.ts';

/** Options of `createWebRtcPlugin`: the call host, secrets, mediasoup workers, addresses and the page. */
export interface WebRtcOptions {
  /** Runs the agent's session for each room (the server's session manager). */
  host: CallHost;
  /**
   * Secret your backend presents (`Authorization: Bearer …`) to `POST /webrtc/token`. Unset, the
   * route is closed unless `open` is true. Not the service key: that one never leaves the server.
   * @default process.env.HIWAR_WEBRTC_SECRET
   */
  apiSecret?: string;
  /**
   * Development only (`hiwar serve --open`): `POST /webrtc/token` answers without `apiSecret`,
   * and anyone who reaches the server may start a call in a new room of their own. Not open, no
   * secret: the route refuses every request (403) and says which secret to set. Never inferred
   * from the bind address. @default false
   */
  open?: boolean;
  /**
   * Requests to `POST /webrtc/token` one client address may make (checked before the secret, so
   * it slows guessing too); beyond it, 429 with `Retry-After`. Behind a proxy every request
   * comes from the proxy's address: raise it there, or limit at the proxy. @default WEBRTC_DEFAULTS.tokenRate
   */
  tokenRate?: RateLimitOptions;
  tokens?: TokenOptions;
  workers?: WorkerPoolOptions;
  /** Address mediasoup listens on for media. @default '0.0.0.0' */
  listenIp?: string;
  /**
   * Address put in ICE candidates (the server's public IP or name behind NAT).
   * @default process.env.HIWAR_WEBRTC_ANNOUNCED_ADDRESS, else the first non-internal IPv4, else 127.0.0.1
   */
  announcedAddress?: string;
  agent?: AgentParticipantOptions;
  /** Supervisors that may join one room. @default 3 */
  maxSupervisors?: number;
  /** Serve the web page at `/`. @default true */
  servePage?: boolean;
  /**
   * When the mediasoup workers and the agents' sender thread start. `first-use`: with the first
   * browser call (a room token issued, the call page fetched, or a join), so a server that takes
   * telephony only never starts them; the first call waits for them if nothing came before its
   * join (docs/webrtc.md#when-the-media-workers-start). `eager`: before the plugin is returned,
   * and a worker that cannot start turns WebRTC off at once.
   * @default WEBRTC_DEFAULTS.start ('first-use')
   */
  start?: 'first-use' | 'eager';
  /**
   * The phrases an offline recognizer (the embedded sandbox) knows, listed on the page so a
   * visitor knows what to say (`GET /webrtc/phrases`). Empty with the real service. A function is
   * asked at each request: an embedded sandbox learns the phrases of an agent chosen for a call
   * (`agentFor`) or reached by a handoff while the server runs, and the page asks again once its call starts.
   * @default []
   */
  phrases?: readonly string[] | (() => readonly string[]);
  /** The agents' packet clock (it runs in the sender threads). */
  clock?: PacketClockOptions;
  /** The threads that encode and send the agents' audio (see docs/webrtc.md, "Density"). */
  senders?: Omit<SenderPoolOptions, 'clock' | 'onFailure'>;
  logger?: Logger;
  /**
   * Cluster mode: where rooms are hosted. A join for a room another server hosts is answered with
   * a redirect to it; rooms made here are recorded, and forgotten when they close.
   */
  rooms?: RoomHosts;
}

/** The cluster's record of which server hosts each room (see src/cluster/rooms.ts). */
export interface RoomHosts {
  /** The hosting server's address (http[s]://host:port) when it is another one. */
  elsewhere(room: string): Promise<string | undefined>;
  /** Forgets that this instance hosts the room. */
  release(room: string): Promise<void>;
}

/** Defaults of the WebRTC plugin: listen on every address, three supervisors a room, serve the page, rate-limit the token route. */
export const WEBRTC_DEFAULTS = {
  listenIp: '0.0.0.0',
  maxSupervisors: 3,
  servePage: true,
  /** The mediasoup workers and the sender thread start with the first browser call, not with the server. */
  start: 'first-use',
  /** Per client address on `POST /webrtc/token`: 20 at once, then one a second. */
  tokenRate: { burst: 20, perMinute: 60 },
} as const;

/** Worker resources as mediasoup's dump APIs report them (for leak checks and `/webrtc/status`). */
export interface WebRtcResources {
  workers: number;
  routers: number;
  transports: number;
  producers: number;
  consumers: number;
}

export interface WebRtcPlugin extends ServerPlugin {
  /** Rooms open now. */
  readonly rooms: number;
  /** The sender threads that carry the agents' packet clock, encoders and RTP sends. */
  readonly senders: SenderPool;
  /** The mediasoup workers (for resource usage and dumps); none before they start (`WebRtcOptions.start`). */
  readonly workers: readonly ms.Worker[];
  /** Starts the mediasoup workers and the sender thread now if they have not started (once; a failed start is tried again by the next call). */
  startMedia(): Promise<void>;
  /** What mediasoup's workers hold (for leak checks and `/webrtc/status`). */
  resources(): Promise<WebRtcResources>;
}

const ROOM_ID = /^[A-Za-z0-9_-]{1,64}$/;

function defaultAnnounced(): string {
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return '127.0.0.1';
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

async function readJson(req: IncomingMessage, limit = 16 * 1024): Promise<unknown> {
  let size = 0;
  const parts: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new Error('body too large');
    parts.push(chunk as Buffer);
  }
  const text = Buffer.concat(parts).toString();
  return text ? JSON.parse(text) : {};
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  res.end(JSON.stringify(body));
}

/**
 * Returns the plugin; its mediasoup workers start with the first browser call, or here with
 * `start: 'eager'`. Throws "WebRTC is off: …" when mediasoup or its worker binary is missing (or,
 * eager, a worker does not start); check `webrtcAvailability()` first to say so and carry on without it.
 *
 * @example
 * const voice = await createAgentServer({
 *   agent,
 *   plugins: [async (ctx) => createWebRtcPlugin({ host: ctx.host, open: ctx.open })], // apiSecret: HIWAR_WEBRTC_SECRET
 * });
 */
export async function createWebRtcPlugin(opts: WebRtcOptions): Promise<WebRtcPlugin> {
  const log = opts.logger ?? createLogger();
  const availability = await webrtcAvailability();
  if (!availability.available) throw new Error(`WebRTC is off: ${availability.reason}`);
  const rooms = new Map<string, Promise<Room>>();
  const senders = new SenderPool({
    ...opts.senders,
    clock: opts.clock,
    onFailure: (err) => log.error({ err: err.message }, 'an agent audio sender thread failed; its calls end'),
  });
  // The workers (a process each) and the sender thread: about a third of a second of CPU, which a
  // server that never takes a browser call need not pay (docs/webrtc.md#when-the-media-workers-start).
  let pool: WorkerPool | undefined;
  let starting: Promise<WorkerPool> | undefined;
  const startMedia = (): Promise<WorkerPool> => {
    starting ??= WorkerPool.create(opts.workers, (worker, error) => {
      log.error({ pid: worker.pid, err: error.message }, 'mediasoup worker died; its rooms are closed');
    }).then((made) => {
      if (closing) {
        made.close();
        throw new Error('the server is shutting down');
      }
      pool = made;
      senders.warm();
      return made;
    });
    // A start that failed is tried again by the next call, and said once per attempt.
    starting.catch((err: Error) => {
      starting = undefined;
      if (!closing) log.error({ err: err.message }, 'the mediasoup workers did not start');
    });
    return starting;
  };
  /** A browser call is coming (a token, the page): its workers start now rather than at its join. */
  const expectCall = () => void startMedia().catch(() => {});
  let closing = false;
  if ((opts.start ?? WEBRTC_DEFAULTS.start) === 'eager') await startMedia();
  const tokens = new RoomTokens(opts.tokens);
  const apiSecret = opts.apiSecret ?? process.env.HIWAR_WEBRTC_SECRET;
  const listenInfos: ms.TransportListenInfo[] = (['udp', 'tcp'] as const).map((protocol) => ({
    protocol,
    ip: opts.listenIp ?? WEBRTC_DEFAULTS.listenIp,
    announcedAddress: opts.announcedAddress ?? process.env.HIWAR_WEBRTC_ANNOUNCED_ADDRESS ?? defaultAnnounced(),
  }));
  const page = new PageAssets();
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  const logFn = (msg: string, fields: Record<string, unknown> = {}) => log.warn(fields, msg);

  const roomCtx = {
    host: opts.host,
    senders,
    listenInfos,
    agent: opts.agent ?? {},
    maxSupervisors: opts.maxSupervisors ?? WEBRTC_DEFAULTS.maxSupervisors,
    log: logFn,
  };

  const room = (id: string): Promise<Room> => {
    let r = rooms.get(id);
    if (!r) {
      r = startMedia()
        .then((workers) => workers.createRouter([{ kind: 'audio', mimeType: 'audio/opus', clockRate: 48_000, channels: 2 }]))
        .then((router) => {
          const made = new Room(id, router, roomCtx, (gone) => {
            if (rooms.get(gone.id) === r) rooms.delete(gone.id);
            if (!rooms.has(gone.id)) void opts.rooms?.release(gone.id).catch((err: Error) => log.warn({ err: err.message }, 'could not forget a closed room in the cluster'));
          });
          router.observer.once('close', () => void made.close('the media server closed the room'));
          return made;
        });
      r.catch(() => rooms.delete(id));
      rooms.set(id, r);
    }
    return r.then((existing) => (existing.isClosed ? (rooms.delete(id), room(id)) : existing));
  };

  const tokenRate = new RateLimiter(opts.tokenRate ?? WEBRTC_DEFAULTS.tokenRate);

  async function issueToken(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const wait = tokenRate.take(req.socket.remoteAddress);
    if (wait) {
      res.setHeader('retry-after', String(wait));
      return json(res, 429, { error: `too many token requests from this address; retry in ${wait} s` });
    }
    if (!apiSecret && opts.open !== true) return json(res, 403, { error: 'room tokens need a backend secret (set HIWAR_WEBRTC_SECRET and send Authorization: Bearer <secret>), or start the server with --open for development' });
    if (apiSecret) {
      const auth = req.headers.authorization ?? '';
      if (!auth.startsWith('Bearer ') || !sameSecret(auth.slice(7), apiSecret)) return json(res, 401, { error: 'a valid Authorization: Bearer <secret> is required' });
    }
    if (opts.host.draining || closing) return json(res, 503, { error: 'the server is draining; try another' });
    let body: { room?: unknown; role?: unknown; parameters?: unknown };
    try {
      body = (await readJson(req)) as typeof body;
    } catch (err) {
      return json(res, 400, { error: `bad body: ${(err as Error).message}` });
    }
    const role: PeerRole = body.role === 'supervisor' ? 'supervisor' : 'caller';
    if (body.role !== undefined && body.role !== 'caller' && body.role !== 'supervisor') return json(res, 400, { error: 'role must be caller or supervisor' });
    if (body.room !== undefined && (typeof body.room !== 'string' || !ROOM_ID.test(body.room))) return json(res, 400, { error: 'room must be 1-64 letters, digits, - or _' });
    // An open server hands out only callers' tokens for new rooms: nobody can listen in on a call.
    if (!apiSecret && (role === 'supervisor' || body.room !== undefined)) return json(res, 403, { error: 'choosing a room or a supervisor role needs the server secret' });
    const parameters: Record<string, string> = {};
    if (body.parameters !== undefined) {
      if (typeof body.parameters !== 'object' || body.parameters === null) return json(res, 400, { error: 'parameters must be an object of strings' });
      for (const [k, v] of Object.entries(body.parameters)) if (typeof v === 'string' && Object.keys(parameters).length < 32) parameters[k] = v.slice(0, 512);
    }
    const roomId = (body.room as string | undefined) ?? randomBytes(9).toString('base64url');
    const { token, expiresAt } = tokens.issue(roomId, role, parameters);
    expectCall();
    json(res, 200, { token, room: roomId, role, expiresAt: new Date(expiresAt).toISOString(), joinUrl: `${opts.host.publicUrl(req)}/?token=${encodeURIComponent(token)}` });
  }

  const plugin: WebRtcPlugin = {
    name: 'webrtc',
    senders,
    get workers() {
      return pool?.all ?? [];
    },
    async startMedia() {
      await startMedia();
    },
    get rooms() {
      return rooms.size;
    },

    async handleRequest(req, res, url) {
      const path = url.pathname;
      if (path === '/webrtc/token') {
        if (req.method !== 'POST') return json(res, 405, { error: 'use POST' }), true;
        await issueToken(req, res);
        return true;
      }
      if (path === '/webrtc/phrases' && req.method === 'GET') {
        json(res, 200, { phrases: typeof opts.phrases === 'function' ? opts.phrases() : (opts.phrases ?? []) });
        return true;
      }
      if (path === '/webrtc/status' && req.method === 'GET') {
        json(res, 200, { webrtc: 'on', mediasoup: availability.version, workers: pool?.size ?? 0, rooms: rooms.size });
        return true;
      }
      if (!(opts.servePage ?? WEBRTC_DEFAULTS.servePage) || req.method !== 'GET') return false;
      if (path !== '/' && path !== '/index.html' && path !== '/favicon.ico' && !path.startsWith('/webrtc/')) return false;
      const asset = await page.get(path === '/index.html' ? '/' : path);
      if (!asset) return false;
      // The call page: a call is likely to follow.
      if (asset.type.startsWith('text/html')) expectCall();
      res.writeHead(200, { 'content-type': asset.type, 'content-length': asset.body.length, 'cache-control': 'no-cache' });
      res.end(asset.body);
      return true;
    },

    handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL) {
      if (url.pathname !== '/webrtc/ws') return false;
      if (closing) {
        socket.destroy();
        return true;
      }
      wss.handleUpgrade(req, socket, head, (ws) =>
        serveSignaling(ws, {
          redeem: (t) => tokens.redeem(t),
          verify: (t) => tokens.verify(t),
          elsewhere: opts.rooms && ((id) => opts.rooms!.elsewhere(id)),
          room,
          log: logFn,
        }),
      );
      return true;
    },

    async resources() {
      const out: WebRtcResources = { workers: pool?.size ?? 0, routers: 0, transports: 0, producers: 0, consumers: 0 };
      for (const w of pool?.all ?? []) {
        const wd = await w.dump();
        out.routers += wd.routerIds.length;
      }
      for (const router of pool?.routers ?? []) {
        const rd = await router.dump().catch(() => undefined);
        if (!rd) continue;
        out.transports += rd.transportIds.length;
        out.producers += rd.mapProducerIdConsumerIds.length;
        out.consumers += rd.mapConsumerIdProducerId.length;
      }
      return out;
    },

    async close() {
      closing = true;
      for (const c of wss.clients) c.close(1001, 'server closing');
      await Promise.all([...rooms.values()].map(async (r) => (await r.catch(() => undefined))?.close('the server is shutting down')));
      await starting?.catch(() => {});
      pool?.close();
      await senders.close();
    },
  };
  return plugin;
}

/**
 * For `hiwar serve`: the plugin when WebRTC can run here, and in any case one line to print
 * ("on: page at /, …" or "off: <reason>"). A missing mediasoup or a worker that will not start
 * turns WebRTC off; it never stops the server.
 */
export async function webrtcForServe(opts: WebRtcOptions): Promise<{ plugin?: WebRtcPlugin; message: string }> {
  const a = await webrtcAvailability();
  if (!a.available) return { message: `WebRTC is off: ${a.reason}` };
  try {
    const plugin = await createWebRtcPlugin(opts);
    const secret = opts.apiSecret ?? process.env.HIWAR_WEBRTC_SECRET;
    return {
      plugin,
      message: webrtcOnLine(a.version, plugin.workers.length ? `${plugin.workers.length} workers` : 'its workers start with the first browser call', opts.open === true, secret),
    };
  } catch (err) {
    return { message: `WebRTC is off: ${(err as Error).message.replace(/^WebRTC is off: /, '')}` };
  }
}

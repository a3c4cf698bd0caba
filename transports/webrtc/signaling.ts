import type { WebSocket } from 'ws';
import { z } from 'zod';
import type { ms } from './mediasoup.ts';
import type { Notification, ResponseMessage } from './protocol.ts';
import { RoomError, type Peer, type Room } from './room.ts';
import { TokenError, type RoomGrant } from './tokens.ts';

const request = z.discriminatedUnion('method', [
  z.object({ id: z.number().int(), method: z.literal('join'), data: z.object({ token: z.string().min(1).max(4096) }) }),
  z.object({ id: z.number().int(), method: z.literal('ready'), data: z.object({ rtpCapabilities: z.record(z.string(), z.unknown()) }) }),
  z.object({ id: z.number().int(), method: z.literal('createTransport'), data: z.object({ direction: z.enum(['send', 'recv']) }) }),
  z.object({ id: z.number().int(), method: z.literal('connectTransport'), data: z.object({ transportId: z.string(), dtlsParameters: z.record(z.string(), z.unknown()) }) }),
  z.object({
    id: z.number().int(),
    method: z.literal('produce'),
    data: z.object({ transportId: z.string(), kind: z.literal('audio'), rtpParameters: z.record(z.string(), z.unknown()) }),
  }),
  z.object({ id: z.number().int(), method: z.literal('resumeConsumer'), data: z.object({ consumerId: z.string() }) }),
  z.object({ id: z.number().int(), method: z.literal('takeover'), data: z.object({}).passthrough() }),
  z.object({ id: z.number().int(), method: z.literal('leave'), data: z.object({}).passthrough() }),
]);

type Request = z.infer<typeof request>;

/** What one signaling connection needs from the plugin. */
export interface SignalingContext {
  /** Checks and spends a token (throws `TokenError`). */
  redeem(token: string): RoomGrant;
  /** Checks a token without spending it. */
  verify(token: string): RoomGrant;
  /** In a cluster: the address of the server hosting `room` when it is not this one. */
  elsewhere?(room: string): Promise<string | undefined>;
  /** The room named by a grant, made on first use. */
  room(id: string): Promise<Room>;
  log(msg: string, fields?: Record<string, unknown>): void;
}

/** A join for a room another server of the cluster hosts: answered with where to go. */
class Redirect extends Error {
  constructor(readonly url: string) {
    super('the room is hosted by another server');
  }
}

/** Largest signaling message a page may send (SDP-sized JSON; anything bigger is hostile). */
export const MAX_MESSAGE_BYTES = 64 * 1024;

/**
 * One browser's signaling socket: the first request must spend a room token, then the page sets
 * up its transports and media through the room. A bad request gets an error response and the
 * connection lives on; a closed socket removes the peer and everything it had in the router.
 */
export function serveSignaling(ws: WebSocket, ctx: SignalingContext): void {
  let joined: { room: Room; peer: Peer } | undefined;
  let queue = Promise.resolve();
  const send = (m: ResponseMessage | Notification) => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(m));
  };

  const handle = async (req: Request): Promise<unknown> => {
    if (req.method === 'join') {
      if (joined) throw new RoomError('already joined');
      const away = ctx.elsewhere && (await ctx.elsewhere(ctx.verify(req.data.token).room));
      if (away) throw new Redirect(`${away.replace(/^http/, 'ws')}/webrtc/ws`);
      const grant = ctx.redeem(req.data.token);
      const room = await ctx.room(grant.room);
      const peer = room.addPeer(grant.role, grant.parameters, send);
      joined = { room, peer };
      return { peerId: peer.id, room: room.id, role: peer.role, routerRtpCapabilities: room.router.rtpCapabilities };
    }
    if (!joined) throw new RoomError('join first');
    const { room, peer } = joined;
    switch (req.method) {
      case 'ready':
        await room.ready(peer, req.data.rtpCapabilities as ms.RtpCapabilities);
        return {};
      case 'createTransport':
        return room.createTransport(peer, req.data.direction);
      case 'connectTransport':
        await room.connectTransport(peer, req.data.transportId, req.data.dtlsParameters as ms.DtlsParameters);
        return {};
      case 'produce':
        return { producerId: await room.produce(peer, req.data.transportId, req.data.rtpParameters as ms.RtpParameters) };
      case 'resumeConsumer':
        await room.resumeConsumer(peer, req.data.consumerId);
        return {};
      case 'takeover':
        room.takeover(peer);
        return {};
      case 'leave':
        joined = undefined;
        await room.removePeer(peer);
        return {};
    }
  };

  ws.on('message', (raw, isBinary) => {
    const text = isBinary ? '' : raw.toString();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const id = typeof (parsed as { id?: unknown })?.id === 'number' ? (parsed as { id: number }).id : 0;
    const checked = request.safeParse(parsed);
    if (!checked.success) {
      send({ id, ok: false, error: `bad request: ${checked.error.issues[0]?.message ?? 'not a signaling message'}` });
      return;
    }
    // One request at a time per peer: mediasoup-client relies on the order it asked in.
    queue = queue.then(async () => {
      try {
        send({ id, ok: true, data: await handle(checked.data) });
      } catch (err) {
        if (err instanceof Redirect) return send({ id, ok: false, error: err.message, redirect: err.url });
        const known = err instanceof RoomError || err instanceof TokenError;
        if (!known) ctx.log('signaling request failed', { method: checked.data.method, err: (err as Error).message });
        send({ id, ok: false, error: known ? (err as Error).message : `${checked.data.method} failed: ${(err as Error).message}` });
      }
    });
  });

  ws.on('close', () => {
    queue = queue.then(async () => {
      if (joined) await joined.room.removePeer(joined.peer).catch(() => {});
      joined = undefined;
    });
  });
  ws.on('error', () => ws.terminate());
}

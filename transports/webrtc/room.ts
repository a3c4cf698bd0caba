import { randomUUID } from 'node:crypto';
import type { CallHost, CallOutcome } from '../../src/server/types.ts';
import type { CallInfo } from '../../src/transport/types.ts';
import { AgentParticipant, type AgentParticipantOptions } from './agent-participant.ts';
import type { ms } from './mediasoup.ts';
import type { SenderPool } from './sender-thread.ts';
import { CALL_EVENT_TYPES, type CallEvent, type Notification, type PeerRole, type SourceLabel, type TransportParams } from './protocol.ts';

/** What a room needs from the plugin that owns it. */
export interface RoomContext {
  host: CallHost;
  senders: SenderPool;
  listenInfos: ms.TransportListenInfo[];
  agent: AgentParticipantOptions;
  /** Supervisors allowed in one room. */
  maxSupervisors: number;
  log(msg: string, fields?: Record<string, unknown>): void;
}

export interface Peer {
  readonly id: string;
  readonly role: PeerRole;
  readonly parameters: Record<string, string>;
  notify(n: Notification): void;
  transports: Map<string, ms.WebRtcTransport>;
  recv?: ms.WebRtcTransport;
  producer?: ms.Producer;
  consumers: Map<string, ms.Consumer>;
  /** Producers this peer consumes (or is being set up to), so none is consumed twice. */
  consuming: Set<string>;
  rtpCapabilities?: ms.RtpCapabilities;
}

export class RoomError extends Error {}

/**
 * One web call: a router, the people in it (one caller, optional supervisors), and the agent
 * once the caller's microphone arrives. Who hears whom: the caller hears the agent and any
 * supervisor who took over; a supervisor hears everyone. Closing the room closes the router,
 * which frees every transport, producer and consumer in the worker.
 */
export class Room {
  readonly peers = new Map<string, Peer>();
  private agent: AgentParticipant | undefined;
  private call: Promise<CallOutcome | undefined> | undefined;
  private takenOver = false;
  private closed = false;

  constructor(
    readonly id: string,
    readonly router: ms.Router,
    private readonly ctx: RoomContext,
    private readonly onEmpty: (room: Room) => void,
  ) {}

  get isClosed(): boolean {
    return this.closed;
  }

  get hasAgent(): boolean {
    return !!this.agent;
  }

  addPeer(role: PeerRole, parameters: Record<string, string>, notify: (n: Notification) => void): Peer {
    if (this.closed) throw new RoomError('this call has ended');
    const peers = [...this.peers.values()];
    if (role === 'caller' && peers.some((p) => p.role === 'caller')) throw new RoomError('this room already has a caller');
    if (role === 'supervisor' && peers.filter((p) => p.role === 'supervisor').length >= this.ctx.maxSupervisors) throw new RoomError('this room has no place for another supervisor');
    const peer: Peer = { id: randomUUID(), role, parameters, notify, transports: new Map(), consumers: new Map(), consuming: new Set() };
    this.peers.set(peer.id, peer);
    this.announcePeers();
    return peer;
  }

  async createTransport(peer: Peer, direction: 'send' | 'recv'): Promise<TransportParams> {
    const t = await this.router.createWebRtcTransport({ listenInfos: this.ctx.listenInfos, enableUdp: true, enableTcp: true, preferUdp: true, appData: { direction } });
    peer.transports.set(t.id, t);
    if (direction === 'recv') peer.recv = t;
    return { id: t.id, iceParameters: t.iceParameters, iceCandidates: t.iceCandidates, dtlsParameters: t.dtlsParameters };
  }

  private transportOf(peer: Peer, id: string): ms.WebRtcTransport {
    const t = peer.transports.get(id);
    if (!t) throw new RoomError(`unknown transport ${id}`);
    return t;
  }

  async connectTransport(peer: Peer, transportId: string, dtlsParameters: ms.DtlsParameters): Promise<void> {
    await this.transportOf(peer, transportId).connect({ dtlsParameters });
  }

  async produce(peer: Peer, transportId: string, rtpParameters: ms.RtpParameters): Promise<string> {
    if (peer.producer) throw new RoomError('this peer already sends audio');
    if (peer.role === 'supervisor' && !this.takenOver) throw new RoomError('a supervisor speaks only after taking the call over');
    const producer = await this.transportOf(peer, transportId).produce({ kind: 'audio', rtpParameters, appData: { source: peer.role } });
    peer.producer = producer;
    for (const other of this.peers.values()) if (other !== peer && this.hears(other, peer.role)) await this.consume(other, producer, peer.role);
    if (peer.role === 'caller' && !this.takenOver) await this.startAgent(peer, producer);
    return producer.id;
  }

  /** The browser's device is loaded: it gets a consumer for everything it should hear. */
  async ready(peer: Peer, rtpCapabilities: ms.RtpCapabilities): Promise<void> {
    peer.rtpCapabilities = rtpCapabilities;
    for (const other of this.peers.values()) if (other !== peer && other.producer && this.hears(peer, other.role)) await this.consume(peer, other.producer, other.role);
    if (this.agent && this.hears(peer, 'agent')) await this.consume(peer, this.agent.producer, 'agent');
  }

  async resumeConsumer(peer: Peer, consumerId: string): Promise<void> {
    const c = peer.consumers.get(consumerId);
    if (!c) throw new RoomError(`unknown consumer ${consumerId}`);
    await c.resume();
  }

  /** A supervisor takes the call: the agent leaves the floor; the supervisor may now speak. */
  takeover(peer: Peer): void {
    if (peer.role !== 'supervisor') throw new RoomError('only a supervisor can take the call over');
    this.takenOver = true;
    this.agent?.leave('a supervisor took the call over');
  }

  private hears(listener: Peer, source: SourceLabel): boolean {
    if (listener.role === 'supervisor') return true;
    return source !== 'caller';
  }

  private async consume(listener: Peer, producer: ms.Producer, source: SourceLabel): Promise<void> {
    if (!listener.recv || !listener.rtpCapabilities || listener.consuming.has(producer.id)) return;
    if (!this.router.canConsume({ producerId: producer.id, rtpCapabilities: listener.rtpCapabilities })) return;
    listener.consuming.add(producer.id);
    const consumer = await listener.recv.consume({ producerId: producer.id, rtpCapabilities: listener.rtpCapabilities, paused: true });
    listener.consumers.set(consumer.id, consumer);
    consumer.on('producerclose', () => {
      listener.consumers.delete(consumer.id);
      listener.consuming.delete(producer.id);
      listener.notify({ notification: 'consumerClosed', data: { consumerId: consumer.id } });
    });
    consumer.on('transportclose', () => listener.consumers.delete(consumer.id));
    listener.notify({ notification: 'newConsumer', data: { id: consumer.id, producerId: producer.id, kind: 'audio', rtpParameters: consumer.rtpParameters, source } });
  }

  private async startAgent(caller: Peer, producer: ms.Producer): Promise<void> {
    const info: CallInfo = { callId: `${this.id}:${caller.id}`, provider: 'webrtc', streamId: producer.id, direction: 'inbound', parameters: { room: this.id, ...caller.parameters } };
    const agent = await AgentParticipant.join(this.router, producer.id, info, this.ctx.senders, (reason) => this.agentHungUp(reason), this.ctx.agent);
    this.agent = agent;
    for (const p of this.peers.values()) if (this.hears(p, 'agent')) await this.consume(p, agent.producer, 'agent');
    this.announcePeers();
    this.call = this.ctx.host
      .runCall(agent, {
        onEvent: (e) => {
          if (CALL_EVENT_TYPES.has(e.type)) this.broadcast({ notification: 'call', data: e as CallEvent });
        },
      })
      .catch((err: Error) => {
        this.ctx.log('call failed', { room: this.id, err: err.message });
        this.broadcast({ notification: 'agentLeft', data: { reason: err.name === 'CallRefused' ? `refused: ${err.message}` : 'the agent could not start' } });
        return undefined;
      });
    void this.call.then(async (outcome) => {
      if (this.agent !== agent) return;
      this.agent = undefined;
      await agent.close();
      if (outcome) this.broadcast({ notification: 'agentLeft', data: { reason: this.takenOver ? 'a supervisor took the call over' : outcome } });
      this.announcePeers();
      // Nobody left to talk to: a caller alone with no agent and no supervisor is told the call ended.
      if (!this.takenOver && ![...this.peers.values()].some((p) => p.role === 'supervisor')) await this.close('the call has ended');
    });
  }

  private agentHungUp(reason: string): void {
    this.agent?.leave(reason);
  }

  private broadcast(n: Notification): void {
    for (const p of this.peers.values()) p.notify(n);
  }

  private announcePeers(): void {
    const peers = [...this.peers.values()];
    this.broadcast({
      notification: 'peers',
      data: { caller: peers.some((p) => p.role === 'caller'), supervisors: peers.filter((p) => p.role === 'supervisor').length, agent: !!this.agent },
    });
  }

  /** A peer left (or its socket dropped): its transports close, and with them its media. */
  async removePeer(peer: Peer): Promise<void> {
    if (!this.peers.delete(peer.id)) return;
    for (const t of peer.transports.values()) t.close();
    peer.transports.clear();
    peer.consumers.clear();
    if (peer.role === 'caller') this.agent?.leave('caller left');
    this.announcePeers();
    if (!this.peers.size) {
      await this.call;
      await this.close('everyone left');
    }
  }

  /** Ends the room: the agent's call ends, every peer is told, the router and all in it close. */
  async close(reason: string): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const agent = this.agent;
    this.agent = undefined;
    agent?.leave(reason);
    this.broadcast({ notification: 'roomClosed', data: { reason } });
    await this.call;
    await agent?.close();
    for (const p of this.peers.values()) for (const t of p.transports.values()) t.close();
    this.peers.clear();
    this.router.close();
    this.onEmpty(this);
  }
}

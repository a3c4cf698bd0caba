/**
 * The signaling protocol between the page and the server, over one WebSocket per peer
 * (`/webrtc/ws`). Requests carry an `id` and get one response with the same id; the server also
 * sends notifications. Types only: the browser bundle imports this file too.
 */
import type { SessionEvent } from '../../src/session/events.ts';

/** A caller talks with the agent; a supervisor listens to both and may take the call over. */
export type PeerRole = 'caller' | 'supervisor';

/** Who a media stream in the room belongs to. */
export type SourceLabel = 'agent' | 'caller' | 'supervisor';

export interface TransportParams {
  id: string;
  iceParameters: unknown;
  iceCandidates: unknown[];
  dtlsParameters: unknown;
}

export interface Requests {
  /**
   * First message: spends the room token. In a cluster, a room hosted by another server answers
   * an error with `redirect` (that server's signaling URL, to join there with the same token).
   */
  join: { req: { token: string }; res: { peerId: string; room: string; role: PeerRole; routerRtpCapabilities: unknown } };
  /** The browser's capabilities, once its device is loaded; consumers follow as notifications. */
  ready: { req: { rtpCapabilities: unknown }; res: Record<string, never> };
  createTransport: { req: { direction: 'send' | 'recv' }; res: TransportParams };
  connectTransport: { req: { transportId: string; dtlsParameters: unknown }; res: Record<string, never> };
  produce: { req: { transportId: string; kind: 'audio'; rtpParameters: unknown }; res: { producerId: string } };
  resumeConsumer: { req: { consumerId: string }; res: Record<string, never> };
  /** A supervisor takes the call from the agent; the agent leaves the floor. */
  takeover: { req: Record<string, never>; res: Record<string, never> };
  leave: { req: Record<string, never>; res: Record<string, never> };
}

export type RequestMethod = keyof Requests;

export interface RequestMessage<M extends RequestMethod = RequestMethod> {
  id: number;
  method: M;
  data: Requests[M]['req'];
}

export type ResponseMessage = { id: number; ok: true; data: unknown } | { id: number; ok: false; error: string; redirect?: string };

/** What the page shows of the agent's session (no tool payloads, no internal errors). */
export type CallEvent = Extract<
  SessionEvent,
  { type: 'state' | 'transcript' | 'user_turn' | 'agent_chunk' | 'agent_turn' | 'interruption' | 'metrics' }
>;

export type Notification =
  | { notification: 'newConsumer'; data: { id: string; producerId: string; kind: 'audio'; rtpParameters: unknown; source: SourceLabel } }
  | { notification: 'consumerClosed'; data: { consumerId: string } }
  | { notification: 'call'; data: CallEvent }
  | { notification: 'peers'; data: { caller: boolean; supervisors: number; agent: boolean } }
  /** The agent left the floor (hung up, failed, or a supervisor took over). */
  | { notification: 'agentLeft'; data: { reason: string } }
  | { notification: 'roomClosed'; data: { reason: string } };

export const CALL_EVENT_TYPES: ReadonlySet<string> = new Set(['state', 'transcript', 'user_turn', 'agent_chunk', 'agent_turn', 'interruption', 'metrics']);

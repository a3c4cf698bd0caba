/**
 * What `hiwar serve` offers to the adapters that bring calls in (telephony routes, WebRTC rooms).
 * The server in `src/server/` knows nothing of providers: the CLI mounts each adapter's plugin,
 * and an adapter turns its connections into `Transport`s and hands them to the `CallHost`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { SessionEvent } from '../session/events.ts';
import type { Transport } from '../transport/types.ts';

/** How a call ended, for metrics and logs. */
export type CallOutcome = 'completed' | 'caller-hangup' | 'agent-hangup' | 'transferred' | 'failed' | 'refused';

/** What an adapter may want to follow of the session it hands a call to (captions on a web page). */
export interface CallObserver {
  /** Every event of the call's session, as it happens. */
  onEvent?(event: SessionEvent): void;
}

/** The server's side, as an adapter sees it. */
export interface CallHost {
  /**
   * Runs one agent session on the transport until the call ends. Throws `CallRefused` when the
   * server is draining or full; the adapter then tells the platform (busy, close).
   */
  runCall(transport: Transport, observer?: CallObserver): Promise<CallOutcome>;
  /** True once SIGTERM arrived: adapters stop issuing new stream URLs and tokens. */
  readonly draining: boolean;
  /** The address the server is reached at from outside (for webhook answers), e.g. https://host. */
  publicUrl(req: IncomingMessage): string;
  /**
   * Holds a call's place for a connection that has not started its call yet (no platform `start`),
   * so that pending connections count against the server's call limit. Undefined when the server
   * is full or draining. `release()` before `runCall`, or when the connection goes without a call.
   */
  hold?(): { release(): void } | undefined;
}

export class CallRefused extends Error {
  constructor(readonly reason: 'draining' | 'full' | 'busy') {
    super(`call refused: ${reason}`);
    this.name = 'CallRefused';
  }
}

/** One adapter mounted on the server. Each handler returns true when the request was its own. */
export interface ServerPlugin {
  readonly name: string;
  handleRequest?(req: IncomingMessage, res: ServerResponse, url: URL): boolean | Promise<boolean>;
  handleUpgrade?(req: IncomingMessage, socket: Duplex, head: Buffer, url: URL): boolean;
  /** Stops taking new connections and frees what the plugin holds (after calls drained). */
  close?(): Promise<void>;
}

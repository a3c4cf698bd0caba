import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';

/** How the model requests of one `OpenAiLlm` are made ahead of the turns that send them. */
export const PRIMED_REQUEST_DEFAULTS = {
  /** A ready request not used within this long is dropped (its connection closed). */
  idleMs: 30_000,
  /** Ready requests kept at most (one per call in flight is what a server needs). */
  max: 64,
};

/** What a ready request is made with: node:http's options, without the body's length. */
export interface RequestTarget {
  https: boolean;
  options: http.RequestOptions;
}

interface Ready {
  req: http.ClientRequest;
  timer: NodeJS.Timeout;
  onError: () => void;
  onSocket: (s: Socket) => void;
}

/**
 * Model requests made ahead, on kept-alive connections, so that a turn's request is written the
 * moment its body is ready. node:http makes a request (0.2 ms of cold code on a turn's path, once
 * a second per call) and hands it its pooled socket only on the next tick, behind everything else
 * the turn's handler does first (0.14 ms at the median; docs/history/performance-rounds.md, the
 * fifth round). A ready request has its socket already: `end(body)` writes at once.
 *
 * A request is made ready only on a connection the pool has free (after a response ended), so
 * priming never opens a connection: it keeps one that node:http would have kept idle anyway.
 * Until used, its socket does not hold the process open, an error or a close from the server
 * drops it silently (the turn then makes its request as before), and it is dropped after
 * `idleMs`.
 */
export class PrimedRequests {
  private readonly ready: Ready[] = [];
  private readonly o: typeof PRIMED_REQUEST_DEFAULTS;

  constructor(
    private readonly target: RequestTarget,
    private readonly headers: http.OutgoingHttpHeaders,
    opts: Partial<typeof PRIMED_REQUEST_DEFAULTS> = {},
  ) {
    this.o = { ...PRIMED_REQUEST_DEFAULTS, ...opts };
  }

  /** Ready requests held now. */
  get size(): number {
    return this.ready.length;
  }

  /** A ready request (its headers set, its body not), or undefined: make one the usual way. */
  take(): http.ClientRequest | undefined {
    for (let r = this.ready.pop(); r; r = this.ready.pop()) {
      clearTimeout(r.timer);
      // Its connection closed and the news not yet handled: dropped (its error listener stays).
      if (r.req.destroyed || r.req.socket?.destroyed) {
        r.req.destroy();
        continue;
      }
      r.req.removeListener('error', r.onError);
      r.req.removeListener('socket', r.onSocket);
      // Held open again while it is in use, as node:http does for a socket it hands out.
      r.req.socket?.ref();
      return r.req;
    }
    return undefined;
  }

  /**
   * After the response on `socket` ended: on the next turn of the loop (node:http puts the socket
   * back in its pool on a tick after the end), a request is made ready if the socket is free.
   */
  primeAfter(socket: Socket | null): void {
    if (socket) setImmediate(() => this.prime(socket));
  }

  private prime(socket: Socket): void {
    if (this.ready.length >= this.o.max) return;
    const agent = (this.target.options.agent ?? (this.target.https ? https.globalAgent : http.globalAgent)) as http.Agent;
    // Only a connection the pool keeps idle: priming never opens one.
    if (!Object.values(agent.freeSockets).some((free) => free?.includes(socket))) return;
    const request = this.target.https ? https.request : http.request;
    const req = request({ ...this.target.options, method: 'POST', headers: { ...this.headers } });
    const drop = () => {
      clearTimeout(r.timer);
      const i = this.ready.indexOf(r);
      if (i >= 0) this.ready.splice(i, 1);
      req.destroy();
    };
    // Unused, it must neither keep the process alive nor fail anyone: the server closing the
    // idle connection only drops it.
    const r: Ready = { req, timer: setTimeout(drop, this.o.idleMs).unref(), onError: drop, onSocket: (s) => s.unref() };
    req.on('error', r.onError);
    req.on('socket', r.onSocket);
    this.ready.push(r);
  }

  /** Drops every ready request. */
  close(): void {
    for (const r of this.ready.splice(0)) {
      clearTimeout(r.timer);
      r.req.destroy();
    }
  }
}

import { WebSocket } from 'ws';
import type { Notification, RequestMethod, Requests, ResponseMessage } from '../../transports/webrtc/protocol.ts';
import { Deadline } from './deadline.ts';

/** The page's side of the signaling protocol, in Node: for werift peers in tests and the bench. */
export class SignalingClient {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly listeners = new Set<(n: Notification) => void>();
  readonly notifications: Notification[] = [];
  readonly closed: Promise<void>;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (raw) => {
      const msg = JSON.parse(raw.toString()) as ResponseMessage | Notification;
      if ('notification' in msg) {
        this.notifications.push(msg);
        for (const l of this.listeners) l(msg);
        return;
      }
      const p = this.pending.get(msg.id);
      this.pending.delete(msg.id);
      if (msg.ok) p?.resolve(msg.data);
      else p?.reject(new Error(msg.error));
    });
    this.closed = new Promise((resolve) =>
      ws.on('close', () => {
        for (const p of this.pending.values()) p.reject(new Error('signaling closed'));
        resolve();
      }),
    );
  }

  static async connect(baseUrl: string): Promise<SignalingClient> {
    const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/webrtc/ws`);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new SignalingClient(ws);
  }

  request<M extends RequestMethod>(method: M, data: Requests[M]['req']): Promise<Requests[M]['res']> {
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ id, method, data }));
    return new Promise((resolve, reject) => this.pending.set(id, { resolve: resolve as (v: unknown) => void, reject }));
  }

  /** Sends raw text, for tests of malformed input. */
  sendRaw(text: string): void {
    this.ws.send(text);
  }

  on(listener: (n: Notification) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The next notification of a kind (or one already received that matches), within `timeoutMs`
   * of the time the machine could give (load-scaled, test/helpers/deadline.ts).
   */
  waitFor<K extends Notification['notification']>(kind: K, match: (n: Extract<Notification, { notification: K }>) => boolean = () => true, timeoutMs = 30_000): Promise<Extract<Notification, { notification: K }>> {
    const seen = this.notifications.find((n): n is Extract<Notification, { notification: K }> => n.notification === kind && match(n as Extract<Notification, { notification: K }>));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const deadline = new Deadline(timeoutMs);
      const check = () => {
        if (!deadline.expired) return void (timer = setTimeout(check, 250));
        off();
        reject(new Error(`no ${kind} notification within ${timeoutMs} ms (load-scaled)`));
      };
      let timer = setTimeout(check, 250);
      const off = this.on((n) => {
        if (n.notification === kind && match(n as Extract<Notification, { notification: K }>)) {
          clearTimeout(timer);
          off();
          resolve(n as Extract<Notification, { notification: K }>);
        }
      });
    });
  }

  close(): void {
    this.ws.close();
  }
}

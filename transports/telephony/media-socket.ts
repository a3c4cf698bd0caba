/**
 * The server side of a media WebSocket (RFC 6455): the opening handshake, whole messages in and
 * out, ping answered, the closing handshake. The media route's only WebSocket: a platform sends
 * 50 messages a second per call on it, and `ws`'s reader made about 1.2 KB of garbage of each
 * (ws-reader.ts). Text and binary messages, no extension, no subprotocol but the platform's own.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { validCloseCode, WS_CLOSE, WsFrameReader } from './ws-reader.ts';

/** Limits of a media socket. */
export const MEDIA_SOCKET_DEFAULTS = {
  /** The largest message taken; a larger one closes the socket with 1009. */
  maxPayload: 1 << 20,
  /** After hiwar's close frame, how long the peer has to answer before the socket is cut. */
  closeTimeoutMs: 5000,
};

/** What a media socket tells its owner. */
export interface MediaSocketEvents {
  /** A whole message; `data` may be a view of the socket's chunk: read it before returning. */
  message(data: Buffer, binary: boolean): void;
  /** The socket is gone: the peer's close code, 1005 when its close frame had none, 1006 with no close frame. */
  close(code: number): void;
  /** The peer broke the protocol, or the socket failed (the close follows). */
  error(err: Error): void;
}

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const KEY = /^[+/0-9A-Za-z]{22}==$/;

/**
 * Answers a WebSocket upgrade request on `socket` with 101, choosing the first of `subprotocols`
 * the client offered. A request that is not a valid version-13 upgrade gets 400 and the socket
 * is destroyed: undefined. Nothing is read until `start`.
 */
export function acceptMediaSocket(req: IncomingMessage, socket: Duplex, subprotocols: readonly string[] = [], limits: Partial<typeof MEDIA_SOCKET_DEFAULTS> = {}): MediaSocket | undefined {
  const key = req.headers['sec-websocket-key'];
  const upgrade = String(req.headers.upgrade ?? '').toLowerCase();
  if (req.method !== 'GET' || upgrade !== 'websocket' || typeof key !== 'string' || !KEY.test(key) || req.headers['sec-websocket-version'] !== '13') {
    socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Type: text/plain\r\n\r\nnot a WebSocket upgrade (version 13)\n');
    socket.destroy();
    return undefined;
  }
  const offered = String(req.headers['sec-websocket-protocol'] ?? '')
    .split(',')
    .map((p) => p.trim());
  const protocol = subprotocols.find((p) => offered.includes(p));
  const accept = createHash('sha1').update(key + GUID).digest('base64');
  socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n${protocol ? `Sec-WebSocket-Protocol: ${protocol}\r\n` : ''}\r\n`);
  return new MediaSocket(socket, { ...MEDIA_SOCKET_DEFAULTS, ...limits });
}

export class MediaSocket {
  private state: 'open' | 'closing' | 'closed' = 'open';
  private peerCode: number | undefined;
  private closeTimer: NodeJS.Timeout | undefined;
  private events: MediaSocketEvents | undefined;

  constructor(
    private readonly socket: Duplex,
    private readonly limits: typeof MEDIA_SOCKET_DEFAULTS,
  ) {}

  /** Starts reading: `head` (what came with the upgrade request) first, then the socket. */
  start(events: MediaSocketEvents, head: Buffer): void {
    const socket = this.socket;
    this.events = events;
    const reader = new WsFrameReader(
      {
        message: (data, binary) => {
          if (this.state === 'open') events.message(data, binary);
        },
        ping: (data) => this.frame(0xa, data),
        closeFrame: (code, _reason) => this.peerClosed(code),
        fail: (code, reason) => {
          events.error(new Error(`WebSocket protocol error: ${reason}`));
          this.close(code, '');
        },
      },
      this.limits.maxPayload,
    );
    (socket as { setNoDelay?(on: boolean): void }).setNoDelay?.(true);
    (socket as { setTimeout?(ms: number): void }).setTimeout?.(0);
    if (head.length) reader.push(Buffer.from(head));
    socket.on('data', (chunk: Buffer) => reader.push(chunk));
    socket.on('end', () => socket.end());
    socket.on('error', (err: Error) => events.error(err));
    socket.on('close', () => this.gone());
    if (socket.destroyed) this.gone();
  }

  /** Open: messages may be sent (no close frame sent or received). */
  get isOpen(): boolean {
    return this.state === 'open';
  }

  /** Sends one message in a single frame (one write: header and payload in one buffer). */
  send(data: string | Uint8Array, binary: boolean): void {
    if (this.state !== 'open') return;
    this.frame(binary ? 0x2 : 0x1, data);
  }

  /** Starts the closing handshake: a close frame, then the peer's answer or, after `closeTimeoutMs`, the cut. */
  close(code: number = WS_CLOSE.normal, reason = ''): void {
    if (this.state !== 'open') return;
    this.state = 'closing';
    this.sendClose(code, reason);
    if (this.peerCode !== undefined) return void this.socket.end();
    this.closeTimer = setTimeout(() => this.socket.destroy(), this.limits.closeTimeoutMs);
    this.closeTimer.unref();
  }

  /** Cuts the connection without a closing handshake. */
  terminate(): void {
    this.socket.destroy();
  }

  private peerClosed(code: number): void {
    this.peerCode = code;
    if (this.state === 'open') {
      // Answered with the peer's own code (none when it gave none), then the TCP connection ends.
      this.state = 'closing';
      this.sendClose(validCloseCode(code) ? code : undefined, '');
    }
    this.socket.end();
  }

  private sendClose(code: number | undefined, reason: string): void {
    if (code === undefined) return this.frame(0x8, new Uint8Array(0));
    const text = Buffer.from(reason.slice(0, 123));
    const body = Buffer.allocUnsafe(2 + Math.min(text.length, 123));
    body.writeUInt16BE(code, 0);
    text.copy(body, 2, 0, body.length - 2);
    this.frame(0x8, body);
  }

  private frame(opcode: number, data: string | Uint8Array): void {
    if (this.socket.destroyed || !this.socket.writable) return;
    const len = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength;
    const head = len < 126 ? 2 : len < 65536 ? 4 : 10;
    const out = Buffer.allocUnsafe(head + len);
    out[0] = 0x80 | opcode;
    if (head === 2) out[1] = len;
    else if (head === 4) {
      out[1] = 126;
      out.writeUInt16BE(len, 2);
    } else {
      out[1] = 127;
      out.writeUInt32BE(0, 2);
      out.writeUInt32BE(len, 6);
    }
    if (typeof data === 'string') out.write(data, head, 'utf8');
    else out.set(data, head);
    this.socket.write(out);
  }

  private gone(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    clearTimeout(this.closeTimer);
    this.events?.close(this.peerCode ?? 1006);
  }
}

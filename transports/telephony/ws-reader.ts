/**
 * The frames a WebSocket client sends a server (RFC 6455, section 5), read in place from the
 * socket's chunks: the media route's read side. `ws` made several buffer objects for every
 * message (one per header field it consumed, its fragment list, its stream machinery), about
 * 1.2 KB of garbage for each 20 ms media message; this reader makes one view per message and
 * unmasks into the chunk itself. No extension is negotiated, so any RSV bit is an error.
 */
import { isUtf8 } from 'node:buffer';

/** What the reader tells its socket. */
export interface WsReaderSink {
  /** A whole message (text is valid UTF-8). `data` is a view of the socket's chunk: read it before returning. */
  message(data: Buffer, binary: boolean): void;
  ping(data: Buffer): void;
  /** The peer's close frame: its code (1005 when it gave none) and reason. */
  closeFrame(code: number, reason: string): void;
  /** The peer broke the protocol: the socket closes with this code. Nothing more is read. */
  fail(code: number, reason: string): void;
}

/** Close codes (RFC 6455 7.4.1). */
export const WS_CLOSE = { normal: 1000, noStatus: 1005, protocolError: 1002, invalidData: 1007, tooBig: 1009 } as const;

const OP_CONTINUATION = 0;
const OP_TEXT = 1;
const OP_BINARY = 2;
const OP_CLOSE = 8;
const OP_PING = 9;
const OP_PONG = 10;

/** A close code a peer may send (RFC 6455 7.4, and the registry's 1012–1014). */
export const validCloseCode = (code: number) => (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999);

export class WsFrameReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes needed before parsing can go on (a header, or a header and its payload). */
  private need = 2;
  private fragments: Buffer[] = [];
  private fragmentBytes = 0;
  private fragmentBinary = false;
  private failed = false;

  constructor(
    private readonly sink: WsReaderSink,
    private readonly maxPayload: number,
  ) {}

  /** Reads one chunk from the socket. */
  push(chunk: Buffer): void {
    if (this.failed) return;
    let buf = chunk;
    // Most chunks hold whole frames: read in place, with no list of pieces made.
    if (this.pendingBytes) {
      this.pending.push(chunk);
      this.pendingBytes += chunk.length;
      if (this.pendingBytes < this.need) return;
      buf = Buffer.concat(this.pending, this.pendingBytes);
      this.pending = [];
      this.pendingBytes = 0;
    } else if (chunk.length < this.need) {
      this.pending.push(chunk);
      this.pendingBytes = chunk.length;
      return;
    }
    const at = this.frames(buf);
    if (at < buf.length && !this.failed) {
      this.pending.push(buf.subarray(at));
      this.pendingBytes = buf.length - at;
    }
  }

  /** Reads every whole frame in `buf`; returns where the first incomplete one starts. */
  private frames(buf: Buffer): number {
    let at = 0;
    while (!this.failed) {
      const left = buf.length - at;
      this.need = 2;
      if (left < 2) return at;
      const b0 = buf[at]!;
      const b1 = buf[at + 1]!;
      const fin = (b0 & 0x80) !== 0;
      const op = b0 & 0x0f;
      if (b0 & 0x70) return this.error(WS_CLOSE.protocolError, 'RSV bits set with no extension');
      if (!(b1 & 0x80)) return this.error(WS_CLOSE.protocolError, 'a client frame must be masked');
      const control = op >= OP_CLOSE;
      if (control ? op > OP_PONG : op > OP_BINARY) return this.error(WS_CLOSE.protocolError, `unknown opcode ${op}`);
      if (control && !fin) return this.error(WS_CLOSE.protocolError, 'a fragmented control frame');
      if (op === OP_CONTINUATION && !this.fragments.length) return this.error(WS_CLOSE.protocolError, 'a continuation with no message to continue');
      if ((op === OP_TEXT || op === OP_BINARY) && this.fragments.length) return this.error(WS_CLOSE.protocolError, 'a new message inside a fragmented one');
      let len = b1 & 0x7f;
      let head = 2;
      if (len === 126) {
        if (left < 4) return (this.need = 4), at;
        len = buf.readUInt16BE(at + 2);
        head = 4;
      } else if (len === 127) {
        if (left < 10) return (this.need = 10), at;
        // Anything above 2^32 is far above any limit: only the low word can be read as a length.
        if (buf.readUInt32BE(at + 2) !== 0) return this.error(WS_CLOSE.tooBig, 'a message over the size limit');
        len = buf.readUInt32BE(at + 6);
        head = 10;
      }
      if (control && len > 125) return this.error(WS_CLOSE.protocolError, 'a control frame over 125 bytes');
      if (!control && this.fragmentBytes + len > this.maxPayload) return this.error(WS_CLOSE.tooBig, 'a message over the size limit');
      const start = at + head + 4;
      if (left < head + 4 + len) return (this.need = head + 4 + len), at;
      for (let i = 0, m = at + head; i < len; i++) buf[start + i]! ^= buf[m + (i & 3)]!;
      at = start + len;
      this.frame(op, fin, buf.subarray(start, at));
    }
    return at;
  }

  private frame(op: number, fin: boolean, payload: Buffer): void {
    if (op === OP_PING) return this.sink.ping(payload);
    if (op === OP_PONG) return;
    if (op === OP_CLOSE) return this.close(payload);
    if (fin && op !== OP_CONTINUATION) return this.deliver(payload, op === OP_BINARY);
    // A fragment: copied, since the chunk it is in may be reused by the next read.
    if (op !== OP_CONTINUATION) this.fragmentBinary = op === OP_BINARY;
    this.fragments.push(Buffer.from(payload));
    this.fragmentBytes += payload.length;
    if (!fin) return;
    const whole = Buffer.concat(this.fragments, this.fragmentBytes);
    this.fragments = [];
    this.fragmentBytes = 0;
    this.deliver(whole, this.fragmentBinary);
  }

  private deliver(data: Buffer, binary: boolean): void {
    if (!binary && !isUtf8(data)) return void this.error(WS_CLOSE.invalidData, 'a text message that is not UTF-8');
    this.sink.message(data, binary);
  }

  private close(payload: Buffer): void {
    if (payload.length === 0) return this.sink.closeFrame(WS_CLOSE.noStatus, '');
    const code = payload.length >= 2 ? payload.readUInt16BE(0) : 0;
    if (!validCloseCode(code)) return void this.error(WS_CLOSE.protocolError, `close code ${code || 'cut short'}`);
    const reason = payload.subarray(2);
    if (!isUtf8(reason)) return void this.error(WS_CLOSE.invalidData, 'a close reason that is not UTF-8');
    this.sink.closeFrame(code, reason.toString('utf8'));
  }

  private error(code: number, reason: string): number {
    this.failed = true;
    this.pending = [];
    this.fragments = [];
    this.sink.fail(code, reason);
    return Infinity;
  }
}

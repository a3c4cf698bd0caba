import { connect, type Socket } from 'node:net';
import type { Clock } from '../../src/transport/clock.ts';
import { l16Decode, l16Encode } from './far-codec.ts';

/** AudioSocket frame types (docs.asterisk.org, AudioSocket protocol), as this far end writes them. */
const HANGUP = 0x00;
const UUID = 0x01;
const DTMF = 0x03;
const SLIN8 = 0x10;

/** `[type:1][length:2 big-endian][payload]`, written by hand: the far end shares no code with hiwar's framing. */
function frame(type: number, payload: Uint8Array = new Uint8Array(0)): Buffer {
  const header = Buffer.from([type, payload.byteLength >> 8, payload.byteLength & 0xff]);
  return Buffer.concat([header, payload]);
}

/**
 * Asterisk's end of an AudioSocket call over a real TCP socket: the UUID frame, then one 20 ms
 * slin frame every 20 ms of the clock (silence between lines), DTMF and hang-up frames, laid out
 * as the protocol page shows them (test/fixtures/platforms/audiosocket/). Agent audio is "played" as it arrives, as
 * Asterisk does; the far end also measures how far the server ever ran ahead of real time
 * (AudioSocket has no buffer to absorb a burst).
 */
export class AudioSocketFarEnd {
  readonly socket: Socket;
  readonly frames: { type: number; payload: Uint8Array }[] = [];
  /** Seconds of agent audio received (= played). */
  played = 0;
  /** Largest lead of received audio over elapsed clock time since the first agent frame. */
  maxLead = 0;
  loudFrames = 0;
  seq = 0;
  private firstAt: number | undefined;
  private outgoing: Int16Array[] = [];
  private running = true;
  private pending = Buffer.alloc(0);
  readonly closed: Promise<void>;
  readonly connected: Promise<void>;

  constructor(port: number, readonly uuid: string, private readonly clock: Clock) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.on('error', () => {});
    this.connected = new Promise((r) => this.socket.once('connect', () => r()));
    this.closed = new Promise((r) => this.socket.once('close', () => ((this.running = false), r())));
    this.socket.on('data', (chunk: Buffer) => this.take(chunk));
  }

  /** Cuts the byte stream into frames however TCP split it. */
  private take(chunk: Buffer): void {
    this.pending = Buffer.concat([this.pending, chunk]);
    while (this.pending.length >= 3) {
      const end = 3 + this.pending.readUInt16BE(1);
      if (this.pending.length < end) return;
      this.onFrame(this.pending[0]!, new Uint8Array(this.pending.subarray(3, end)));
      this.pending = this.pending.subarray(end);
    }
  }

  async start(): Promise<void> {
    await this.connected;
    this.send(frame(UUID, Buffer.from(this.uuid.replace(/-/g, ''), 'hex')));
    void this.sendLoop();
  }

  send(bytes: Uint8Array): void {
    if (!this.socket.destroyed) this.socket.write(bytes);
  }

  say(pcm: Int16Array): Promise<void> {
    this.outgoing.push(pcm);
    return new Promise((resolve) => {
      const check = () => (this.outgoing.length === 0 || !this.running ? resolve() : setTimeout(check, 10));
      check();
    });
  }

  dtmf(digit: string): void {
    this.send(frame(DTMF, Buffer.from(digit, 'ascii')));
  }

  hangup(): void {
    this.send(frame(HANGUP));
    this.running = false;
    this.socket.end();
  }

  vanish(): void {
    this.running = false;
    this.socket.destroy();
  }

  private onFrame(type: number, payload: Uint8Array): void {
    this.frames.push({ type, payload });
    if (type !== SLIN8) return;
    const now = this.clock.now();
    const first = (this.firstAt ??= now);
    const pcm = l16Decode(payload);
    if (pcm.some((v) => Math.abs(v) > 2000)) this.loudFrames++;
    this.played += pcm.length / 8000;
    this.maxLead = Math.max(this.maxLead, this.played - (now - first) / 1000);
  }

  private async sendLoop(): Promise<void> {
    let due = this.clock.now();
    let at = 0;
    while (this.running) {
      const current = this.outgoing[0];
      const pcm = new Int16Array(160);
      if (current) {
        pcm.set(current.subarray(at, at + 160));
        at += 160;
        if (at >= current.length) {
          this.outgoing.shift();
          at = 0;
        }
      }
      this.seq++;
      this.send(frame(SLIN8, l16Encode(pcm)));
      due += 20;
      await this.clock.sleep(Math.max(0, due - this.clock.now()));
    }
  }
}

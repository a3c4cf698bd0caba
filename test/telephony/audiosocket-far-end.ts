import { connect, type Socket } from 'node:net';
import type { Clock } from '../../src/transport/clock.ts';
import { FrameReader, encodeFrame, framePayload, frameType, uuidToBytes } from '../../transports/telephony/audiosocket-frames.ts';
import { decode, encode } from '../../transports/telephony/codec.ts';

const SLIN8 = { codec: 'l16', sampleRate: 8000, frameMs: 20 } as const;

/**
 * Asterisk's end of an AudioSocket call over a real TCP socket: the UUID frame, then one 20 ms
 * slin frame every 20 ms of the clock (silence between lines), DTMF and hang-up frames. Agent
 * audio is "played" as it arrives, as Asterisk does; the far end also measures how far the
 * server ever ran ahead of real time (AudioSocket has no buffer to absorb a burst).
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
  readonly closed: Promise<void>;
  readonly connected: Promise<void>;

  constructor(port: number, readonly uuid: string, private readonly clock: Clock) {
    this.socket = connect(port, '127.0.0.1');
    this.socket.on('error', () => {});
    this.connected = new Promise((r) => this.socket.once('connect', () => r()));
    this.closed = new Promise((r) => this.socket.once('close', () => ((this.running = false), r())));
    const reader = new FrameReader();
    this.socket.on('data', (chunk: Buffer) => {
      for (const f of reader.push(chunk)) this.onFrame(frameType(f), framePayload(f));
    });
  }

  async start(): Promise<void> {
    await this.connected;
    this.send(encodeFrame(0x01, uuidToBytes(this.uuid)));
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
    this.send(encodeFrame(0x03, Buffer.from(digit)));
  }

  hangup(): void {
    this.send(encodeFrame(0x00));
    this.running = false;
    this.socket.end();
  }

  vanish(): void {
    this.running = false;
    this.socket.destroy();
  }

  private onFrame(type: number, payload: Uint8Array): void {
    this.frames.push({ type, payload });
    if (type !== 0x10) return;
    const now = this.clock.now();
    const first = (this.firstAt ??= now);
    const pcm = decode(SLIN8, payload);
    if (pcm.some((v) => Math.abs(v) > 2000)) this.loudFrames++;
    this.played += pcm.length / 8000;
    this.maxLead = Math.max(this.maxLead, this.played - (now - first) / 1000);
  }

  private async sendLoop(): Promise<void> {
    let due = this.clock.now();
    let at = 0;
    while (this.running) {
      const current = this.outgoing[0];
      const frame = new Int16Array(160);
      if (current) {
        frame.set(current.subarray(at, at + 160));
        at += 160;
        if (at >= current.length) {
          this.outgoing.shift();
          at = 0;
        }
      }
      this.seq++;
      this.send(encodeFrame(0x10, encode(SLIN8, frame)));
      due += 20;
      await this.clock.sleep(Math.max(0, due - this.clock.now()));
    }
  }
}

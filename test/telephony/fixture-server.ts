/**
 * A `hiwar serve` with the telephony routes and the AudioSocket listener but no agent: each call's
 * session only records what the transport parsed (call info, caller samples, events), and the
 * test drives the agent's side itself (write a frame, mark, interrupt, hang up, send keys). The
 * platform's side is `PlatformPeer`, a plain socket that sends the fixture's messages verbatim and
 * hands back every message hiwar sent, so a test compares them with literal expected bytes.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before } from 'node:test';
import { Subject } from '../helpers/rx.ts';
import WebSocket from 'ws';
import { AgentServer } from '../../src/server/server.ts';
import { CallTokens } from '../../src/server/tokens.ts';
import type { CallReport, SessionEvent } from '../../src/session/events.ts';
import { createLogger } from '../../src/session/logger.ts';
import type { Transport, TransportEvent } from '../../src/transport/types.ts';
import { startAudioSocketServer } from '../../transports/telephony/audiosocket-server.ts';
import { telephonyPlugin } from '../../transports/telephony/index.ts';
import { Deadline, within } from '../helpers/deadline.ts';

export { g711Table, platformFixture, shape } from './fixture-files.ts';

/** One call as the recording session saw it. */
export interface FixtureCall {
  transport: Transport;
  /** Caller audio, as the transport decoded it. */
  audio: Int16Array[];
  events: TransportEvent[];
  /** Resolves when the caller's audio has ended (hang-up, stop, closed socket). */
  ended: Promise<void>;
}

export interface FixtureServer {
  /** `ws://127.0.0.1:<port>` */
  wsUrl: string;
  audioSocketPort: number;
  calls: FixtureCall[];
  /** Waits for the next call to start (its transport made from the platform's start). */
  nextCall(): Promise<FixtureCall>;
  close(): Promise<void>;
}

const REPORT: CallReport = { agent: 'fixture', llm: 'none', turns: [], ended: 'caller hung up', durationSeconds: 0, notices: [], handoffs: [], tasks: [] };

export async function startFixtureServer(): Promise<FixtureServer> {
  const logger = createLogger('silent');
  const calls: FixtureCall[] = [];
  const waiting: ((c: FixtureCall) => void)[] = [];
  const server = new AgentServer({
    port: 0,
    logger,
    sessions: (transport) => {
      let done!: () => void;
      const call: FixtureCall = { transport, audio: [], events: [], ended: new Promise<void>((r) => (done = r)) };
      calls.push(call);
      waiting.shift()?.(call);
      return {
        events$: new Subject<SessionEvent>().asObservable(),
        run: async () => {
          transport.events$.subscribe((e) => call.events.push(e));
          transport.audio$.subscribe({ next: (f) => call.audio.push(f.samples), complete: () => done() });
          await call.ended;
          return REPORT;
        },
        end: async () => {
          await transport.hangup?.('server ending');
        },
      };
    },
  });
  // Open (`hiwar serve --open`): these tests are about the messages, not access (security.test.ts is).
  server.use(telephonyPlugin(server.host, { open: true, logger, secrets: {}, tokens: new CallTokens() }));
  const audiosocket = await startAudioSocketServer(server.host, { port: 0, logger });
  server.use(audiosocket);
  const { url } = await server.listen();
  return {
    wsUrl: url.replace(/^http/, 'ws'),
    audioSocketPort: audiosocket.port,
    calls,
    nextCall: () => new Promise<FixtureCall>((r) => waiting.push(r)),
    close: async () => {
      await audiosocket.close();
      await server.close();
    },
  };
}

/** One fixture server for a test file: started before its tests, closed after them. */
export function fixtureServerForFile(): () => FixtureServer {
  let srv: FixtureServer | undefined;
  before(async () => {
    srv = await startFixtureServer();
  });
  after(() => srv?.close());
  return () => srv!;
}

/** A message hiwar sent: text or bytes. */
export type Sent = { text: string } | { binary: Buffer };

/**
 * The platform's end of one media connection over a real socket (WebSocket, or TCP for
 * AudioSocket). It sends what the test gives it, unchanged, and queues what hiwar sends.
 */
export class PlatformPeer {
  private readonly inbox: Sent[] = [];
  private readonly waiters: ((m: Sent) => void)[] = [];
  private readonly ws?: WebSocket;
  private readonly tcp?: Socket;
  readonly opened: Promise<void>;
  readonly closed: Promise<void>;

  private constructor(target: { url: string; protocols?: string[] } | { port: number }) {
    if ('url' in target) {
      const ws = (this.ws = new WebSocket(target.url, target.protocols));
      ws.on('error', () => {});
      ws.on('message', (data: Buffer, binary) => this.take(binary ? { binary: Buffer.from(data) } : { text: data.toString() }));
      this.opened = new Promise((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('unexpected-response', (_q, res) => reject(new Error(`refused: ${res.statusCode}`)));
      });
      this.closed = new Promise((r) => ws.once('close', () => r()));
    } else {
      const tcp = (this.tcp = connect(target.port, '127.0.0.1'));
      tcp.on('error', () => {});
      // AudioSocket frames may arrive split or joined: the test reads the byte stream as it came.
      tcp.on('data', (chunk: Buffer) => this.take({ binary: chunk }));
      this.opened = new Promise((r) => tcp.once('connect', () => r()));
      this.closed = new Promise((r) => tcp.once('close', () => r()));
    }
  }

  /** Opens a WebSocket as the platform does (with its subprotocol, where it asks for one). */
  static async websocket(url: string, protocols?: string[]): Promise<PlatformPeer> {
    const p = new PlatformPeer({ url, protocols });
    await p.opened;
    return p;
  }

  /** Opens a TCP connection as Asterisk's AudioSocket does. */
  static async tcp(port: number): Promise<PlatformPeer> {
    const p = new PlatformPeer({ port });
    await p.opened;
    return p;
  }

  private take(m: Sent): void {
    const w = this.waiters.shift();
    if (w) w(m);
    else this.inbox.push(m);
  }

  /** Sends a fixture message: an object as JSON text, `{hex}` as binary bytes, a string as text. */
  send(m: object | string): void {
    const data = typeof m === 'string' ? m : 'hex' in m ? Buffer.from((m as { hex: string }).hex, 'hex') : JSON.stringify(m);
    const binary = typeof data !== 'string';
    if (this.ws) this.ws.send(data, { binary });
    else this.tcp!.write(data);
  }

  /** The next message hiwar sent (fails the test after 20 s of the machine's time). */
  next(): Promise<Sent> {
    const m = this.inbox.shift();
    if (m) return Promise.resolve(m);
    return within(new Promise<Sent>((resolve) => this.waiters.push(resolve)), 20_000, 'a message from hiwar');
  }

  /** The next message, which must be JSON text. */
  async nextJson(): Promise<unknown> {
    const m = await this.next();
    if (!('text' in m)) throw new Error(`expected a text message, got ${m.binary.length} binary bytes`);
    return JSON.parse(m.text);
  }

  /** The next message, which must be text, as its exact characters (to compare bytes, not parsed JSON). */
  async nextText(): Promise<string> {
    const m = await this.next();
    if (!('text' in m)) throw new Error(`expected a text message, got ${m.binary.length} binary bytes`);
    return m.text;
  }

  /** The next message, which must be binary, as hex. */
  async nextHex(): Promise<string> {
    const m = await this.next();
    if (!('binary' in m)) throw new Error(`expected a binary message, got text ${m.text.slice(0, 80)}`);
    return m.binary.toString('hex');
  }

  /** Reads `n` bytes of a TCP stream (AudioSocket), however they were split. */
  async bytes(n: number): Promise<string> {
    let got = Buffer.alloc(0);
    while (got.length < n) {
      const m = await this.next();
      got = Buffer.concat([got, 'binary' in m ? m.binary : Buffer.from(m.text)]);
    }
    if (got.length > n) this.inbox.unshift({ binary: got.subarray(n) });
    return got.subarray(0, n).toString('hex');
  }

  close(): void {
    this.ws?.close(1000);
    this.tcp?.end();
  }
}

/** Waits until `cond` holds (polling; fails after 20 s with `what`). */
export async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = new Deadline(20_000);
  while (!cond()) {
    if (deadline.expired) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Call info as plain JSON (absent fields left out), to compare with a literal. */
export const callInfo = (c: FixtureCall): Record<string, unknown> => JSON.parse(JSON.stringify(c.transport.call));

/** Every caller sample the session got, in order. */
export const callerSamples = (c: FixtureCall): number[] => c.audio.flatMap((a) => [...a]);

/** `n` PCM16 samples whose bytes show the byte order: 258 = 0x0102, -2 = 0xfffe, 32767, -32768. */
export const pcmPattern = (n: number): Int16Array => Int16Array.from({ length: n }, (_, i) => [258, -2, 32767, -32768][i % 4]!);
/** The pattern's four samples as little-endian bytes (hex). */
export const PATTERN_LE = '0201feffff7f0080';

/** The first transport event of `type` (waits for it). */
export async function eventOf(c: FixtureCall, type: TransportEvent['type']): Promise<TransportEvent | undefined> {
  await until(() => c.events.some((e) => e.type === type), `a ${type} event`);
  return c.events.find((e) => e.type === type);
}

/**
 * The agent's side of one frame the platform acknowledges: writes `frame`, marks it (`id`),
 * checks the media message (read by `read`) and the mark hiwar sends against the literals given,
 * sends the platform's `ack`, and waits until the transport reports the mark played. Returns the
 * media message (to compare its shape with the documented one).
 */
export async function acknowledgedFrame(
  call: FixtureCall,
  peer: PlatformPeer,
  o: { frame: Int16Array; rate: number; read: () => Promise<unknown>; media: unknown; mark: unknown; ack: object; id?: string },
): Promise<unknown> {
  const out = call.transport.output;
  const id = o.id ?? 'greeting';
  out.write({ samples: o.frame, sampleRate: o.rate, time: 0 });
  const heard = out.mark(id);
  const media = await o.read();
  assert.deepEqual(media, o.media, 'the media message');
  assert.deepEqual(await peer.nextJson(), o.mark, 'the mark after it');
  peer.send(o.ack);
  await heard;
  await until(() => call.events.some((e) => e.type === 'played' && e.id === id), `mark ${id} reported played`);
  return media;
}

/** Writes a frame, reads its media and its mark, interrupts, and returns what hiwar sent for the interrupt. */
export async function interruptedFrame(call: FixtureCall, peer: PlatformPeer, frame: Int16Array, rate: number, read: () => Promise<unknown>): Promise<unknown> {
  call.transport.output.write({ samples: frame, sampleRate: rate, time: 0 });
  await read();
  await peer.nextJson();
  await call.transport.output.interrupt();
  return peer.nextJson();
}

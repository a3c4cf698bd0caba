import WebSocket from 'ws';
import { processRunTime } from '../../src/service/run-time.ts';
import type { Clock } from '../../src/transport/clock.ts';
import { Deadline } from '../helpers/deadline.ts';

/** One message on the wire, as the platform sends or reads it: text or bytes. */
export type WireMessage = { text: string } | { binary: Uint8Array };

/** What the server said, as the platform's side of a protocol reads it. */
export type ServerSays =
  | { type: 'audio'; pcm: Int16Array }
  | { type: 'mark'; name: string }
  | { type: 'clear' }
  | { type: 'other'; raw: unknown };

/** One platform's side of a media-stream protocol, for the far end in tests. */
export interface PlatformProtocol {
  /** Messages the platform sends when the stream opens (connected, start…). */
  opening(): WireMessage[];
  /** 20 ms of caller audio (PCM16 at `rate`) in the platform's format; `seq` counts from 1. */
  audio(pcm: Int16Array, seq: number): WireMessage | WireMessage[];
  dtmf?(digit: string): WireMessage;
  stop?(): WireMessage;
  read(msg: WireMessage): ServerSays[];
  /** The acknowledgement of a mark once the audio before it has played. */
  ackMark?(name: string): WireMessage | undefined;
  /** What the platform sends after a clear; `dropped` are the marks still queued (Twilio echoes them). */
  onClear?(dropped: string[]): WireMessage[];
  readonly rate: number;
}

type Item = { samples: Int16Array } | { mark: string };

/**
 * A telephony platform's end of one media stream, over a real WebSocket: it streams caller audio
 * at real-time pace on the clock (silence between lines, like a phone line), plays the agent's
 * audio at real-time pace from a buffer, acknowledges marks when the audio before them has played,
 * and honours clear messages as the platform does.
 */
export class FarEnd {
  readonly ws: WebSocket;
  readonly said: ServerSays[] = [];
  readonly agentAudio: Int16Array[] = [];
  playedSamples = 0;
  clears = 0;
  private queue: Item[] = [];
  /** Caller lines queued, each with the clock time it was said at (where it starts in the stream). */
  private outgoing: { pcm: Int16Array; at: number }[] = [];
  /** Sequence number of the last caller frame sent. */
  seq = 0;
  private running = true;
  private readonly opened: Promise<void>;
  closed: Promise<{ code: number; reason: string }>;

  constructor(
    url: string,
    readonly proto: PlatformProtocol,
    /** The call's clock: the far end's pace, and a test's measure of the line's silences. */
    readonly clock: Clock,
    wsOptions: WebSocket.ClientOptions & { protocols?: string[] } = {},
  ) {
    this.ws = new WebSocket(url, wsOptions.protocols, wsOptions);
    this.ws.on('error', () => {});
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('unexpected-response', (_req, res) => reject(new Error(`refused: ${res.statusCode}`)));
      this.ws.once('error', reject);
    });
    this.closed = new Promise((r) => this.ws.once('close', (code, reason) => {
      this.running = false;
      // Nothing more can be said on a closed line: a pending say() resolves instead of polling on.
      this.outgoing = [];
      r({ code, reason: reason.toString() });
    }));
    this.ws.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
  }

  /** Opens the stream (the platform's first messages) and starts both directions' clocks. */
  async start(): Promise<void> {
    await this.opened;
    for (const m of this.proto.opening()) this.send(m);
    void this.sendLoop();
    void this.playLoop();
  }

  send(m: WireMessage | WireMessage[]): void {
    if (Array.isArray(m)) return m.forEach((x) => this.send(x));
    if (this.ws.readyState === WebSocket.OPEN) this.ws.send('text' in m ? m.text : m.binary, { binary: !('text' in m) });
  }

  /**
   * Queues caller speech; resolves once it has all been sent (at real-time pace). It starts in
   * the stream at the moment it is said, as on a real line: a far end that fell behind (this
   * process starved) sends the frames it owes for the time before as silence, not the line early.
   */
  say(pcm: Int16Array): Promise<void> {
    this.outgoing.push({ pcm, at: this.clock.now() });
    return this.until(() => this.outgoing.length === 0);
  }

  async until(cond: () => boolean, timeoutMs = 120_000): Promise<void> {
    const deadline = new Deadline(timeoutMs);
    while (!cond()) {
      if (deadline.expired) throw new Error('timed out waiting on the far end');
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** Seconds of agent audio played so far. */
  get played(): number {
    return this.playedSamples / this.proto.rate;
  }

  /** Seconds of agent audio waiting in the platform's buffer. */
  get buffered(): number {
    return this.queue.reduce((n, i) => n + ('samples' in i ? i.samples.length : 0), 0) / this.proto.rate;
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    const msg: WireMessage = isBinary ? { binary: new Uint8Array(data) } : { text: data.toString() };
    for (const s of this.proto.read(msg)) {
      this.said.push(s);
      if (s.type === 'audio') this.queue.push({ samples: s.pcm });
      else if (s.type === 'mark') this.queue.push({ mark: s.name });
      else if (s.type === 'clear') {
        this.clears++;
        const dropped = this.queue.flatMap((i) => ('mark' in i ? [i.mark] : []));
        this.queue = [];
        for (const m of this.proto.onClear?.(dropped) ?? []) this.send(m);
      }
    }
  }

  private async sendLoop(): Promise<void> {
    const step = this.proto.rate / 50;
    let due = this.clock.now();
    let current: { pcm: Int16Array; at: number } | undefined;
    let at = 0;
    while (this.running) {
      current ??= this.outgoing[0];
      const frame = new Int16Array(step);
      // A frame due before the line was said (a late frame, sent while catching up) stays silent.
      if (current && (at > 0 || due > current.at - 20)) {
        frame.set(current.pcm.subarray(at, at + step));
        at += step;
        if (at >= current.pcm.length) {
          this.outgoing.shift();
          current = undefined;
          at = 0;
        }
      }
      const out = this.proto.audio(frame, ++this.seq);
      for (const m of Array.isArray(out) ? out : [out]) this.send(m);
      due += 20;
      await this.clock.sleep(Math.max(0, due - this.clock.now()));
    }
  }

  private async playLoop(): Promise<void> {
    const step = this.proto.rate / 50;
    let due = this.clock.now();
    while (this.running) {
      let need = step;
      while (this.queue.length) {
        const head = this.queue[0]!;
        if ('mark' in head) {
          this.queue.shift();
          const ack = this.proto.ackMark?.(head.mark);
          if (ack) this.send(ack);
          continue;
        }
        if (need === 0) break;
        const k = Math.min(need, head.samples.length);
        this.agentAudio.push(head.samples.subarray(0, k));
        this.playedSamples += k;
        need -= k;
        if (k === head.samples.length) this.queue.shift();
        else head.samples = head.samples.subarray(k);
      }
      due += 20;
      await this.clock.sleep(Math.max(0, due - this.clock.now()));
    }
  }

  dtmf(digit: string): void {
    this.send(this.proto.dtmf!(digit));
  }

  hangup(): void {
    if (this.proto.stop) this.send(this.proto.stop());
    this.running = false;
    this.ws.close(1000);
  }

  /** The platform stops sending anything, keeping the connection open (a half-open link). */
  freeze(): void {
    this.running = false;
  }

  /** The caller vanishes: the TCP connection drops without a goodbye. */
  vanish(): void {
    this.running = false;
    this.ws.terminate();
  }
}

/**
 * After a barge-in: the platform's interrupt message is due only when it still held unplayed
 * agent audio (a slow synthesis may leave it drained at the moment of the cut), so the check is
 * that it was sent or that the voice stopped reaching the caller within 400 ms.
 */
export async function assertVoiceStoppedAtCut(far: FarEnd): Promise<void> {
  const atCut = far.played;
  await new Promise((r) => setTimeout(r, 400));
  const after = far.played - atCut;
  if (far.clears < 1 && after >= 0.3) throw new Error(`agent audio went on after the cut (${after.toFixed(2)} s) with no interrupt message`);
}

/**
 * Waits until the agent has been quiet for `ms` after at least `least` seconds of its audio.
 * Quiet is counted in this process's run time (src/service/run-time.ts): a stall of the test's
 * process is no silence of the agent (on wall time, the first poll after a stall ran before the
 * audio waiting in the socket was read, and a greeting still playing counted as over).
 */
export async function quietAfter(far: FarEnd, least: number, ms = 1000): Promise<void> {
  processRunTime.hold();
  try {
    let last = far.played;
    let since = processRunTime.now();
    await far.until(() => {
      if (far.played !== last) [last, since] = [far.played, processRunTime.now()];
      return last >= least && processRunTime.now() - since >= ms;
    });
  } finally {
    processRunTime.release();
  }
}

import { createOpusCodec, type OpusCodec } from './opus.ts';
import { bytesToPcm } from '../../src/audio/wav.ts';
import { CallerAudio } from '../../src/transport/caller-audio.ts';
import { HeldEvents } from '../../src/transport/held-events.ts';
import type { CallInfo, Transport, TransportEvent } from '../../src/transport/types.ts';
import { OPUS_RATE, type AgentOutputOptions } from './agent-output.ts';
import type { ms } from './mediasoup.ts';
import { parseRtp } from './rtp.ts';
import type { SenderPool } from './sender-thread.ts';
import type { ThreadedOutput } from './threaded-output.ts';

export interface AgentParticipantOptions extends AgentOutputOptions {
  /**
   * Rate the caller's Opus is decoded at for the session (the recognizer takes 8 or 16 kHz;
   * Opus decodes straight to it, no resampler).
   * @default 16000
   */
  callerRate?: number;
  /** Lost caller packets filled with silence up to this many in a row (keeps the timeline). @default 10 */
  maxConcealedPackets?: number;
}

export const AGENT_PARTICIPANT_DEFAULTS = { callerRate: 16_000, maxConcealedPackets: 10 } as const;

/** The agent's producer always carries this codec; the router knows it. */
export const AGENT_CODEC = {
  mimeType: 'audio/opus',
  payloadType: 100,
  clockRate: OPUS_RATE,
  channels: 2,
  parameters: { useinbandfec: 1, 'sprop-stereo': 0 },
} as const;

/**
 * The agent as a participant of a room: a DirectTransport in the room's router carrying the
 * caller's microphone (Opus decoded with @discordjs/opus into frames for the session), and a
 * PlainTransport on the loopback carrying the agent's voice: Opus RTP encoded and sent over UDP on
 * the packet clock of a sender thread (`sender-worker.ts`), so nothing on the main event loop
 * stands between the clock and the agent's packets. It is the `Transport` the session runs on.
 * If the sender thread fails, the call ends with a transport error; other threads' calls go on.
 */
export class AgentParticipant implements Transport {
  readonly inputRate: number;
  /** Caller frames; those that come before the session subscribes (it opens its sockets first) are kept. */
  private readonly caller = new CallerAudio();
  readonly audio$ = this.caller.audio$;
  /**
   * The call's events; those before the session subscribes (the caller leaving while the
   * session opens its sockets) are held for it, as the caller's audio is.
   */
  private readonly events = new HeldEvents<TransportEvent>();
  readonly events$ = this.events.events$;
  private readonly decoder: OpusCodec;
  private lastSeq: number | undefined;
  private ended = false;
  readonly stats = { packetsIn: 0, lostIn: 0, badIn: 0 };

  static async join(
    router: ms.Router,
    callerProducerId: string,
    call: CallInfo,
    senders: SenderPool,
    onHangup: (reason: string) => void,
    opts: AgentParticipantOptions = {},
  ): Promise<AgentParticipant> {
    const direct = await router.createDirectTransport();
    let plain: ms.PlainTransport | undefined;
    let output: ThreadedOutput | undefined;
    try {
      // comedia: the transport learns the sender thread's socket from its first packet.
      plain = await router.createPlainTransport({ listenInfo: { protocol: 'udp', ip: '127.0.0.1' }, rtcpMux: true, comedia: true });
      const ssrc = opts.ssrc ?? (Math.random() * 0x1_0000_0000) >>> 0;
      const producer = await plain.produce({
        kind: 'audio',
        rtpParameters: { codecs: [{ ...AGENT_CODEC, parameters: { ...AGENT_CODEC.parameters } }], encodings: [{ ssrc }] },
        appData: { source: 'agent' },
      });
      const consumer = await direct.consume({ producerId: callerProducerId, rtpCapabilities: router.rtpCapabilities });
      output = senders.output(plain.tuple.localAddress, plain.tuple.localPort, { ...opts, ssrc, payloadType: AGENT_CODEC.payloadType });
      return new AgentParticipant([direct, plain], producer, consumer, output, call, onHangup, opts);
    } catch (err) {
      void output?.close();
      plain?.close();
      direct.close();
      throw err;
    }
  }

  private constructor(
    private readonly transports: ms.Transport[],
    readonly producer: ms.Producer,
    private readonly consumer: ms.Consumer,
    readonly output: ThreadedOutput,
    readonly call: CallInfo,
    private readonly onHangup: (reason: string) => void,
    opts: AgentParticipantOptions,
  ) {
    this.inputRate = opts.callerRate ?? AGENT_PARTICIPANT_DEFAULTS.callerRate;
    const maxConcealed = opts.maxConcealedPackets ?? AGENT_PARTICIPANT_DEFAULTS.maxConcealedPackets;
    this.decoder = createOpusCodec(this.inputRate, 1);
    const samplesPerPacket = (this.inputRate * 20) / 1000;
    consumer.on('rtp', (buf) => {
      try {
        const p = parseRtp(buf);
        this.stats.packetsIn++;
        if (this.lastSeq !== undefined) {
          const gap = (p.sequenceNumber - this.lastSeq - 1) & 0xffff;
          if (gap > 0x8000) return; // late or duplicate: already covered
          this.stats.lostIn += gap;
          if (gap > 0 && gap <= maxConcealed) this.push(new Int16Array(gap * samplesPerPacket));
        }
        this.lastSeq = p.sequenceNumber;
        this.push(bytesToPcm(this.decoder.decode(p.payload)));
      } catch {
        // A malformed packet is skipped; the call goes on.
        this.stats.badIn++;
      }
    });
    consumer.on('producerclose', () => this.leave('caller left'));
    transports[0]!.on('routerclose', () => this.leave('room closed'));
    output.onFailure((err) => {
      if (this.ended) return;
      // The session ends on a transport error; the hang-up that follows completes the call's streams.
      this.events.next({ type: 'error', message: err.message });
      this.leave('the agent could not send audio');
    });
  }

  private push(samples: Int16Array): void {
    this.caller.push({ samples, sampleRate: this.inputRate, time: Date.now() });
  }

  /** The caller is gone (or the call was taken over): the session ends as on a hang-up. */
  leave(reason: string): void {
    if (this.ended) return;
    this.ended = true;
    this.events.next({ type: 'hangup', reason });
    this.caller.end();
  }

  /** The agent ends the call: the room tells the people in it. */
  async hangup(reason = 'agent hung up'): Promise<void> {
    this.onHangup(reason);
  }

  /** Frees the agent's transport, producer and consumer in the worker. */
  async close(): Promise<void> {
    this.leave('closed');
    await this.output.close();
    for (const t of this.transports) t.close();
    this.events.complete();
  }
}

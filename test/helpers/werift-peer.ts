import { MediaStreamTrack, RTCPeerConnection, RTCRtpCodecParameters, RtpHeader, RtpPacket } from 'werift';
import { bytesToPcm } from '../../src/audio/wav.ts';
import type { SourceLabel, TransportParams } from '../../transports/webrtc/protocol.ts';
import { createOpusCodec, type OpusCodec } from '../../transports/webrtc/opus.ts';
import { SignalingClient } from './signaling-client.ts';

/**
 * A WebRTC peer in Node (werift) that joins a hiwar room the way the page does: the same
 * signaling, ICE and DTLS-SRTP with mediasoup, Opus both ways. mediasoup speaks parameters, not
 * SDP, so the SDP werift needs is written here from them (ICE-lite, one audio m-line each).
 * It sends 20 ms Opus packets continuously (speech when given, silence otherwise), as a browser
 * with DTX off does, and records every packet it receives per source.
 */

interface Received {
  source: SourceLabel;
  packets: { seq: number; timestamp: number; marker: boolean; at: number }[];
  /** Decoded audio at 48 kHz, in arrival order (none when the peer was joined with `decode: false`). */
  pcm: Int16Array[];
}

export interface WeriftPeerOptions {
  /** Decode what arrives into `pcm`. The density bench turns it off: it counts, it does not listen. @default true */
  decode?: boolean;
  /**
   * Opus packets (20 ms each) sent round and round in place of silence, from packet `loopStart`:
   * a caller that keeps talking at no encoding cost to the bench. @default none (silence)
   */
  loop?: Buffer[];
  loopStart?: number;
}

/**
 * Interarrival jitter of one received stream as RFC 3550 §6.4.1 estimates it (in ms): the
 * smoothed deviation of each packet's spacing on arrival from its spacing in RTP time.
 */
export class ArrivalJitter {
  jitterMs = 0;
  /** The largest single deviation seen, in ms. */
  maxDeviationMs = 0;
  private lastTransit: number | undefined;
  private lastTimestamp = 0;
  private unwrapped = 0;

  /** `arrivalMs` on a monotonic clock; `timestamp` in 48 kHz RTP units. */
  add(arrivalMs: number, timestamp: number): void {
    if (this.lastTransit !== undefined) this.unwrapped += ((timestamp - this.lastTimestamp) | 0) / 48;
    this.lastTimestamp = timestamp;
    const transit = arrivalMs - this.unwrapped;
    if (this.lastTransit !== undefined) {
      const d = Math.abs(transit - this.lastTransit);
      this.jitterMs += (d - this.jitterMs) / 16;
      if (d > this.maxDeviationMs) this.maxDeviationMs = d;
    }
    this.lastTransit = transit;
  }
}

const opusCodec = () => new RTCRtpCodecParameters({ mimeType: 'audio/opus', clockRate: 48000, channels: 2 });

function remoteSdp(t: TransportParams, mlines: string[], setup: 'passive' | 'actpass'): string {
  const ice = t.iceParameters as { usernameFragment: string; password: string };
  const dtls = t.dtlsParameters as { fingerprints: { algorithm: string; value: string }[] };
  const fp = dtls.fingerprints.find((f) => f.algorithm === 'sha-256')!;
  const cands = (t.iceCandidates as { foundation: string; priority: number; address?: string; ip?: string; protocol: string; port: number; tcpType?: string }[])
    .filter((c) => c.protocol === 'udp')
    .map((c) => `a=candidate:${c.foundation} 1 ${c.protocol} ${c.priority} ${c.address ?? c.ip} ${c.port} typ host`);
  const head = ['v=0', 'o=mediasoup 1 1 IN IP4 0.0.0.0', 's=-', 't=0 0', 'a=ice-lite', `a=group:BUNDLE ${mlines.map((_, i) => i).join(' ')}`, 'a=msid-semantic: WMS *'];
  const media = mlines.map((m) =>
    [m, `a=ice-ufrag:${ice.usernameFragment}`, `a=ice-pwd:${ice.password}`, `a=fingerprint:sha-256 ${fp.value}`, `a=setup:${setup}`, 'a=rtcp-mux', ...cands, 'a=end-of-candidates'].join('\r\n'),
  );
  return `${[...head, ...media].join('\r\n')}\r\n`;
}

const sdpValue = (sdp: string, key: string) => sdp.match(new RegExp(`^a=${key}:(.*)$`, 'm'))?.[1]?.trim();

export class WeriftPeer {
  readonly received = new Map<string, Received>();
  private readonly sendPc = new RTCPeerConnection({ codecs: { audio: [opusCodec()], video: [] } });
  private readonly recvPc = new RTCPeerConnection({ codecs: { audio: [opusCodec()], video: [] } });
  private readonly track = new MediaStreamTrack({ kind: 'audio' });
  private readonly encoder = createOpusCodec(48000, 1);
  private readonly silence: Buffer;
  private speech: Int16Array[] = [];
  private timer: NodeJS.Timeout | undefined;
  private seq = 1;
  private ts = 1000;
  private consumers: { id: string; source: SourceLabel; mid: string; mline: string }[] = [];
  private recvParams: TransportParams | undefined;
  private recvConnected = false;
  private negotiating: Promise<void> = Promise.resolve();
  role = '';
  /** Failures while setting up received streams (a test asserts there are none). */
  readonly errors: string[] = [];

  private constructor(
    readonly sig: SignalingClient,
    private readonly opts: WeriftPeerOptions,
  ) {
    this.silence = this.encoder.encode(Buffer.alloc(960 * 2));
    this.recvPc.onTrack.subscribe((track) => {
      track.onReceiveRtp.subscribe((rtp) => {
        const entry = this.bySsrc.get(rtp.header.ssrc);
        if (!entry) return;
        entry.jitter.add(performance.now(), rtp.header.timestamp);
        entry.packets.push({ seq: rtp.header.sequenceNumber, timestamp: rtp.header.timestamp, marker: rtp.header.marker, at: Date.now() });
        if (this.opts.decode !== false) entry.pcm.push(bytesToPcm(entry.decoder.decode(rtp.payload)).slice());
      });
    });
  }

  private readonly bySsrc = new Map<number, Received & { decoder: OpusCodec; jitter: ArrivalJitter }>();

  /** Joins with a room token; a caller starts sending (silence until `say`). */
  static async join(baseUrl: string, token: string, opts: WeriftPeerOptions = {}): Promise<WeriftPeer> {
    const sig = await SignalingClient.connect(baseUrl);
    const peer = new WeriftPeer(sig, opts);
    sig.on((n) => {
      if (n.notification === 'newConsumer') peer.negotiating = peer.negotiating.then(() => peer.consume(n.data)).catch((e: Error) => {
          peer.errors.push(e.message);
        });
    });
    const joined = await sig.request('join', { token });
    peer.role = joined.role;
    peer.recvParams = await sig.request('createTransport', { direction: 'recv' });
    if (joined.role === 'caller') await peer.startSending();
    await sig.request('ready', { rtpCapabilities: joined.routerRtpCapabilities as Record<string, unknown> });
    return peer;
  }

  /** Sends the microphone: a send transport, a producer, and a 20 ms packet loop. */
  async startSending(): Promise<void> {
    const params = await this.sig.request('createTransport', { direction: 'send' });
    const tx = this.sendPc.addTransceiver(this.track, { direction: 'sendonly' });
    await this.sendPc.setLocalDescription(await this.sendPc.createOffer());
    const offer = this.sendPc.localDescription!.sdp;
    const pt = Number(offer.match(/^a=rtpmap:(\d+) opus\/48000/m)![1]);
    const mid = sdpValue(offer, 'mid') ?? '0';
    await this.sig.request('connectTransport', {
      transportId: params.id,
      dtlsParameters: { role: 'client', fingerprints: [{ algorithm: 'sha-256', value: sdpValue(offer, 'fingerprint')!.split(' ')[1]! }] },
    });
    await this.sig.request('produce', {
      transportId: params.id,
      kind: 'audio',
      rtpParameters: {
        mid,
        codecs: [{ mimeType: 'audio/opus', payloadType: pt, clockRate: 48000, channels: 2, parameters: {}, rtcpFeedback: [] }],
        encodings: [{ ssrc: tx.sender.ssrc }],
        headerExtensions: [],
        rtcp: { cname: 'werift', reducedSize: true },
      },
    });
    const answer = remoteSdp(params, [`m=audio 7 UDP/TLS/RTP/SAVPF ${pt}\r\nc=IN IP4 127.0.0.1\r\na=mid:${mid}\r\na=recvonly\r\na=rtpmap:${pt} opus/48000/2\r\na=fmtp:${pt} minptime=10;useinbandfec=1`], 'passive');
    await this.sendPc.setRemoteDescription({ type: 'answer', sdp: answer });
    let due = Date.now();
    const tick = () => {
      // Real-time pacing on due times, like a capture device.
      while (Date.now() >= due) {
        this.sendFrame();
        due += 20;
      }
      this.timer = setTimeout(tick, Math.max(0, due - Date.now()));
    };
    tick();
  }

  private loopAt = 0;

  private sendFrame(): void {
    let payload = this.silence;
    const loop = this.opts.loop;
    if (loop?.length) payload = loop[((this.opts.loopStart ?? 0) + this.loopAt++) % loop.length]!;
    const next = this.speech.shift();
    if (next) payload = this.encoder.encode(Buffer.from(next.buffer, next.byteOffset, next.byteLength));
    const header = new RtpHeader({ sequenceNumber: this.seq, timestamp: this.ts, payloadType: 111, marker: false });
    this.seq = (this.seq + 1) & 0xffff;
    this.ts = (this.ts + 960) >>> 0;
    this.track.writeRtp(new RtpPacket(header, payload));
  }

  /** Queues 48 kHz speech; it goes out 20 ms per packet in place of silence. */
  say(pcm48: Int16Array): void {
    for (let off = 0; off < pcm48.length; off += 960) {
      const f = new Int16Array(960);
      f.set(pcm48.subarray(off, Math.min(off + 960, pcm48.length)));
      this.speech.push(f);
    }
  }

  /** Seconds of speech still to send. */
  get speaking(): number {
    return this.speech.length * 0.02;
  }

  private async consume(c: { id: string; producerId: string; rtpParameters: unknown; source: SourceLabel }): Promise<void> {
    const rp = c.rtpParameters as { mid?: string; codecs: { payloadType: number }[]; encodings: { ssrc: number }[]; rtcp?: { cname?: string } };
    const pt = rp.codecs[0]!.payloadType;
    const ssrc = rp.encodings[0]!.ssrc;
    const mid = rp.mid ?? String(this.consumers.length);
    const mline = [
      `m=audio 7 UDP/TLS/RTP/SAVPF ${pt}`,
      'c=IN IP4 127.0.0.1',
      `a=mid:${mid}`,
      'a=sendonly',
      `a=rtpmap:${pt} opus/48000/2`,
      `a=fmtp:${pt} minptime=10;useinbandfec=1`,
      `a=ssrc:${ssrc} cname:${rp.rtcp?.cname ?? 'hiwar'}`,
      `a=msid:${c.source} ${c.id}`,
    ].join('\r\n');
    this.consumers.push({ id: c.id, source: c.source, mid, mline });
    const entry = { source: c.source, packets: [], pcm: [], decoder: createOpusCodec(48000, 1), jitter: new ArrivalJitter() };
    this.received.set(c.id, entry);
    this.bySsrc.set(ssrc, entry);
    const offer = remoteSdp(this.recvParams!, this.consumers.map((x) => x.mline), 'actpass').replace(/a=group:BUNDLE .*/, `a=group:BUNDLE ${this.consumers.map((x) => x.mid).join(' ')}`);
    await this.recvPc.setRemoteDescription({ type: 'offer', sdp: offer });
    await this.recvPc.setLocalDescription(await this.recvPc.createAnswer());
    if (!this.recvConnected) {
      this.recvConnected = true;
      const answer = this.recvPc.localDescription!.sdp;
      const role = sdpValue(answer, 'setup') === 'passive' ? 'server' : 'client';
      await this.sig.request('connectTransport', {
        transportId: this.recvParams!.id,
        dtlsParameters: { role, fingerprints: [{ algorithm: 'sha-256', value: sdpValue(answer, 'fingerprint')!.split(' ')[1]! }] },
      });
    }
    await this.sig.request('resumeConsumer', { consumerId: c.id });
  }

  /** What this peer received from one source (all its consumers together). */
  from(source: SourceLabel): Received {
    const all = [...this.received.values()].filter((r) => r.source === source);
    return { source, packets: all.flatMap((r) => r.packets), pcm: all.flatMap((r) => r.pcm) };
  }

  /** Arrival jitter of each stream received from one source. */
  jitterFrom(source: SourceLabel): ArrivalJitter[] {
    return [...this.received.values()].filter((r) => r.source === source).map((r) => (r as Received & { jitter: ArrivalJitter }).jitter);
  }

  async leave(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.sig.request('leave', {}).catch(() => {});
    this.sig.close();
    await this.closePeerConnections();
  }

  /** Drops off without saying goodbye (a closed tab). */
  async drop(): Promise<void> {
    clearTimeout(this.timer);
    this.sig.close();
    await this.closePeerConnections();
  }

  private async closePeerConnections(): Promise<void> {
    for (const pc of [this.sendPc, this.recvPc]) for (const t of pc.dtlsTransports) endDtlsRetransmission(t);
    await Promise.all([this.sendPc.close(), this.recvPc.close()]).catch(() => {});
  }
}

/**
 * Works around werift 0.24: closing a peer connection does not stop its DTLS handshake. A flight
 * still waiting for its answer (a caller that leaves before its receive transport's handshake
 * ends), or one that starts after the close (the client starts 100 ms after the transport), goes
 * on retransmitting into the closed socket for 33 s (`timers/promises` waits of 0.5 s, 1 s, …
 * 5.5 s that cannot be cancelled), holding the test process up after its last test. A flight
 * stops at its next wake-up once the handshake context's flight number has passed the one it
 * waits for: pinned past every flight, the context ends them all, started or not.
 */
function endDtlsRetransmission(transport: unknown): void {
  const context = (transport as { dtls?: { dtls?: { flight?: number } } }).dtls?.dtls;
  if (context) Object.defineProperty(context, 'flight', { get: () => Number.MAX_SAFE_INTEGER, set: () => {}, configurable: true });
}
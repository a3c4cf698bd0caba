import type { Observable } from 'rxjs';
import type { AudioFrame } from '../../src/audio/frame.ts';
import { CALL_ENDED } from '../../src/transport/call-ended.ts';
import { CallerAudio } from '../../src/transport/caller-audio.ts';
import { HeldEvents } from '../../src/transport/held-events.ts';
import { realClock, type Clock } from '../../src/transport/clock.ts';
import type { CallInfo, Transport, TransportEvent } from '../../src/transport/types.ts';
import { decode } from './codec.ts';
import { EdgeResampler, edgeRate } from './edge-rate.ts';
import { farEndReason } from './far-end-reason.ts';
import { MediaStreamOutput } from './media-output.ts';
import type { MediaSink, MediaStreamOptions } from './media-stream-options.ts';
import type { Inbound, MediaFormat, ProviderConnection } from './provider.ts';
import { ReorderBuffer } from './reorder.ts';

export { MediaStreamOutput } from './media-output.ts';
export { MEDIA_STREAM_DEFAULTS, type MediaSink, type MediaStreamOptions } from './media-stream-options.ts';

/** Hooks for what a platform can only do through its REST API (wired to the user's credentials). */
export interface PlatformHooks {
  /** Hands the call on; the stream is closed after it resolves. `opts` is always given (`{}` without a summary). */
  transfer?(call: CallInfo, target: string, opts: { summary?: string }): Promise<void>;
  /**
   * Told that the agent hung up (before the stream closes), or that hiwar gave up on a call whose
   * caller is still on (refused, its session failed; `reason` is the outcome), e.g. to end it by API.
   */
  hangup?(call: CallInfo, reason?: string): Promise<void>;
}

/**
 * One call over a platform's media stream, as the core's `Transport`. Caller audio is decoded at
 * the edge to PCM16 at the platform's rate, put back in order where frames carry sequence
 * numbers, and kept until the session subscribes. Everything the platform says goes through
 * `handle()`; the agent's side is the `MediaStreamOutput`.
 */
export class MediaStreamTransport implements Transport {
  readonly call: CallInfo;
  readonly inputRate: number;
  readonly audio$: Observable<AudioFrame>;
  readonly output: MediaStreamOutput;
  private readonly events = new HeldEvents<TransportEvent>();
  readonly events$: Observable<TransportEvent> = this.events.events$;
  private readonly caller = new CallerAudio();
  private readonly reorder: ReorderBuffer<Uint8Array>;
  private readonly clock: Clock;
  private readonly input: MediaFormat;
  private readonly fromWire: EdgeResampler | undefined;
  private ended = false;
  /** What ended the call from the agent's side, for the webhook that runs after the stream. */
  agentAction: { action: 'hangup'; reason?: string } | { action: 'transfer'; target: string } | undefined;
  readonly stats = { framesIn: 0, invalid: 0, duplicates: 0, late: 0 };
  /**
   * Hands the call to `target`. Absent where the platform has no transfer of its own and no
   * transfer hook was given (Exotel, FreeSWITCH, Asterisk, pcm): the agent's `call.transfer` then
   * fails at once, in the tool, instead of after the "I am transferring you" reply.
   */
  readonly transfer?: (target: string, opts?: { summary?: string }) => Promise<void>;

  constructor(
    provider: string,
    start: Extract<Inbound, { type: 'start' }>,
    private readonly conn: ProviderConnection,
    private readonly sink: MediaSink,
    opts: MediaStreamOptions = {},
    private readonly control: PlatformHooks = {},
  ) {
    this.call = { ...start.call, provider };
    const transfer = control.transfer;
    if (transfer) this.transfer = (target, opts) => this.transferVia(transfer, target, opts);
    this.clock = opts.clock ?? realClock();
    this.input = start.input;
    // A rate the service cannot take is converted here, at the edge.
    this.inputRate = edgeRate(start.input.sampleRate);
    if (this.inputRate !== start.input.sampleRate) this.fromWire = new EdgeResampler(start.input.sampleRate, this.inputRate);
    this.reorder = new ReorderBuffer(opts.reorder);
    this.output = new MediaStreamOutput(start.output ?? start.input, conn, sink, opts, (id) => this.events.next({ type: 'played', id }));
    // Frames that arrive before the session subscribes (it opens its sockets first) are kept.
    this.audio$ = this.caller.audio$;
  }

  /** Applies one item parsed from the platform's message. */
  handle(item: Inbound): void {
    if (this.ended) return;
    switch (item.type) {
      case 'audio': {
        const order = item.seq ?? item.timestampMs;
        if (order === undefined) return this.pushAudio(item.payload);
        this.reorder.take(order, item.payload, this.pushAudio);
        this.stats.duplicates = this.reorder.duplicates;
        this.stats.late = this.reorder.late;
        return;
      }
      case 'dtmf':
        return this.events.next({ type: 'dtmf', digit: item.digit, ...(item.durationMs ? { durationMs: item.durationMs } : {}) });
      case 'mark':
        return item.cleared ? this.output.dropped(item.name) : this.output.acknowledge(item.name);
      case 'pause-output':
        return this.output.setPaused(true);
      case 'resume-output':
        return this.output.setPaused(false);
      case 'stop':
        return this.end(item.reason ?? 'stream stopped');
      case 'invalid':
        this.stats.invalid++;
        return;
      default:
        return; // 'start' again, 'cleared': nothing more to do
    }
  }

  /** One function for every frame (the reorder buffer's `deliver`), not a closure each. */
  private readonly pushAudio = (payload: Uint8Array): void => {
    if (!payload.byteLength) return;
    this.stats.framesIn++;
    const samples = decode(this.input, payload);
    if (this.fromWire) this.fromWire.push(samples, this.pushSamples);
    else this.pushSamples(samples);
  };

  /** Hands decoded caller samples to the session (one function for every frame, not a closure each). */
  private readonly pushSamples = (samples: Int16Array): void => {
    this.caller.push({ samples, sampleRate: this.inputRate, time: this.clock.now() });
  };

  /** Whether the call is over on this side (the platform's stop, a hang-up, a transfer). */
  get isEnded(): boolean {
    return this.ended;
  }

  /** The caller or the connection is gone: audio completes, the session hears a hang-up. */
  end(reason: string): void {
    if (this.ended) return;
    for (const p of this.reorder.flush()) this.pushAudio(p);
    this.ended = true;
    this.events.next({ type: 'hangup', reason });
    this.caller.end();
    this.events.complete();
    void this.output.close();
  }

  async hangup(reason?: string): Promise<void> {
    if (this.ended) return;
    this.agentAction ??= { action: 'hangup', reason };
    await this.control.hangup?.(this.call, reason);
    // The gateway hears a generic reason; the detail stays in hiwar's log and events.
    const told = farEndReason(reason);
    for (const m of this.conn.hangup?.(told) ?? []) this.sink.send(m);
    this.sink.close(told);
    this.end('agent hung up');
  }

  private async transferVia(transfer: NonNullable<PlatformHooks['transfer']>, target: string, opts?: { summary?: string }): Promise<void> {
    // Coded so that the failure is not taken for the hook's own (transferFailure).
    if (this.ended) throw Object.assign(new Error('the call has ended'), { code: CALL_ENDED });
    // Always an `opts` object: a hook written `transfer(call, target, { summary })` (docs/telephony.md)
    // threw destructuring `undefined` on a transfer without a summary.
    await transfer(this.call, target, opts?.summary ? { summary: opts.summary } : {});
    this.agentAction = { action: 'transfer', target };
    this.sink.close('transferred');
    this.end(`transferred to ${target}`);
  }

  /** In-band DTMF: works on every platform that carries the audio (G.711 passes the tones). */
  async sendDtmf(digits: string): Promise<void> {
    this.output.writeDtmf(digits);
    await this.output.mark(`dtmf-${digits}`);
  }
}

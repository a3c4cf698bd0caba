import { Subject, type Observable, type Subscription } from '../rx.ts';
import type { AudioFrame } from '../audio/frame.ts';
import { createResampler, type StreamResampler } from '../audio/resample.ts';
import type { ServiceClient } from '../service/client.ts';
import type { ListenEvent } from '../service/ws/listen-events.ts';
import type { ListenOptions, ListenSocket } from '../service/ws/listen.ts';
import type { CloseInfo } from '../service/ws/close-codes.ts';
import { backoffDelay, sleep } from '../service/retry.ts';
import type { Clock } from '../transport/clock.ts';
import { withDefaults } from '../options.ts';
import { AudioLog } from './audio-log.ts';

/** What the recognition stage reports: the service's events with their clock time, and its reconnects and final failure. */
export type SttEvent =
  | { type: 'listen'; event: ListenEvent; at: number }
  | { type: 'reconnecting'; attempt: number; close: CloseInfo }
  | { type: 'reconnected'; replayedSeconds: number }
  | { type: 'fatal'; close: CloseInfo; message: string };

/** How the recognition stage reconnects and how much caller audio it replays after a drop. */
export interface SttStageOptions {
  /**
   * Caller audio kept since the last end of turn, replayed after a reconnect.
   * @default 30
   */
  replaySeconds?: number;
  /**
   * Reconnect attempts in a row before the stage gives up (a fatal event).
   * @default 5
   */
  maxReconnects?: number;
  /**
   * Longest wait between reconnect attempts; the waits follow the client's backoff policy
   * (`retryBaseMs`), in real time.
   * @default 2000
   */
  reconnectCapMs?: number;
}

/** Defaults of the recognition stage: 30 s replayed, five reconnects, backoff capped at 2 s. */
export const STT_STAGE_DEFAULTS: Required<SttStageOptions> = { replaySeconds: 30, maxReconnects: 5, reconnectCapMs: 2000 };

/**
 * The caller's audio into /listen. Times in events are moved onto one session timeline across
 * reconnects. Audio since the last final is kept (up to 30 s), so a dropped socket or a 1011
 * reconnects and replays it: no caller speech is lost.
 */
export class SttStage {
  private readonly subject = new Subject<SttEvent>();
  readonly events$: Observable<SttEvent> = this.subject.asObservable();
  private readonly o: Required<SttStageOptions>;
  private socket: ListenSocket | undefined;
  private sub: Subscription | undefined;
  private resampler: StreamResampler | undefined;
  /** Capture times of the audio sent, and the audio kept for a replay. */
  private readonly log = new AudioLog();
  private sessionSamples = 0;
  /** Session seconds at the start of the current connection's stream. */
  private connOffset = 0;
  private finishing = false;
  private connecting: Promise<void> | undefined;
  private reconnects = 0;

  constructor(
    private readonly client: ServiceClient,
    private readonly inputRate: number,
    private readonly opts: ListenOptions & { sample_rate: 8000 | 16000 },
    private readonly clock: Clock,
    stage: SttStageOptions = {},
  ) {
    this.o = withDefaults(STT_STAGE_DEFAULTS, stage);
  }

  get rate(): number {
    return this.opts.sample_rate;
  }

  async start(): Promise<void> {
    this.resampler = await createResampler(this.inputRate, this.rate);
    await this.connect(0);
  }

  private async connect(replayFrom: number): Promise<void> {
    const socket = await this.client.openListen(this.opts);
    this.socket = socket;
    this.connOffset = replayFrom;
    this.sub?.unsubscribe();
    this.sub = socket.events$.subscribe((e) => this.onEvent(e));
    // Replay what the previous connection may not have turned into a final.
    for (const samples of this.log.replay()) socket.sendAudio(samples);
  }

  private onEvent(e: ListenEvent): void {
    if (e.type === 'Closed') return void this.onClosed(e.close);
    const shifted = this.shift(e);
    if (shifted.type === 'Results' && shifted.is_final && shifted.speech_final) this.trim(shifted.words.at(-1)?.end);
    this.subject.next({ type: 'listen', event: shifted, at: this.clock.now() });
  }

  /** Stream times → session times. */
  private shift(e: ListenEvent): ListenEvent {
    const o = this.connOffset;
    if (!o) return e;
    if (e.type === 'SpeechStarted') return { ...e, ts: e.ts + o };
    if (e.type === 'UtteranceEnd') return { ...e, last_word_end: e.last_word_end + o };
    if (e.type === 'Results') return { ...e, words: e.words.map((w) => ({ ...w, start: w.start + o, end: w.end + o })) };
    return e;
  }

  /**
   * After a final whose last word ends at session second `end`: the audio up to it (less half a
   * second) needs no replay. Not the audio sent so far: a server running behind (a loaded one)
   * has not heard what came after the final's words yet, such as a line spoken over the agent,
   * and a reconnect must replay that or its words are lost. A final without words keeps it all.
   */
  private trim(end: number | undefined): void {
    if (end === undefined) return;
    this.log.releaseBefore(Math.min(end, this.sessionSamples / this.rate) - 0.5, this.rate);
  }

  private async onClosed(close: CloseInfo): Promise<void> {
    if (this.finishing) return;
    const retry = close.retryable || close.kind === 'rate_limited';
    if (!retry || this.reconnects >= this.o.maxReconnects) {
      this.subject.next({ type: 'fatal', close, message: `speech recognition closed (${close.code} ${close.kind})` });
      return;
    }
    this.socket = undefined;
    this.connecting = (async () => {
      while (!this.finishing && this.reconnects < this.o.maxReconnects) {
        this.reconnects++;
        this.subject.next({ type: 'reconnecting', attempt: this.reconnects, close });
        // Real time: the service's recovery does not run faster with a simulated clock.
        await sleep(backoffDelay(this.reconnects - 1, { baseMs: this.client.config.retryBaseMs, capMs: this.o.reconnectCapMs }));
        try {
          const from = this.log.replayStart ?? this.sessionSamples / this.rate;
          await this.connect(from);
          this.subject.next({ type: 'reconnected', replayedSeconds: this.sessionSamples / this.rate - from });
          this.reconnects = 0;
          return;
        } catch {
          // try again
        }
      }
      this.subject.next({ type: 'fatal', close, message: 'speech recognition could not reconnect' });
    })();
    await this.connecting;
    this.connecting = undefined;
  }

  /** Caller audio in. */
  push(frame: AudioFrame): void {
    if (!this.resampler) return;
    const samples = this.resampler.push(frame.samples);
    if (!samples.length) return;
    const at = this.sessionSamples / this.rate;
    this.log.push(samples, at, frame.time);
    this.log.releaseOlderThan(at, this.o.replaySeconds);
    this.sessionSamples += samples.length;
    if (this.socket?.isOpen) this.socket.sendAudio(samples);
  }

  /** Clock time at which session audio second `t` was captured. */
  timeOf(t: number): number | undefined {
    return this.log.timeOf(t);
  }

  /** For tests and fault drills: drops the connection as a network failure would. */
  dropConnection(): void {
    (this.socket as unknown as { ws?: { terminate(): void } })?.ws?.terminate();
  }

  /** CloseStream and wait for the last final. */
  async finish(): Promise<void> {
    this.finishing = true;
    await this.connecting?.catch(() => {});
    await this.socket?.finish().catch(() => undefined);
    this.sub?.unsubscribe();
    this.resampler?.close();
    this.subject.complete();
  }
}

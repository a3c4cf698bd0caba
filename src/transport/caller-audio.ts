import { Observable } from '../rx.ts';
import { Fanout } from '../fanout.ts';
import type { AudioFrame } from '../audio/frame.ts';

/** How much caller audio is kept until the session listens. */
export interface CallerAudioOptions {
  /**
   * Caller audio kept while nobody listens yet (the session opens its sockets first). Past this,
   * the oldest frames go and `dropped` counts them.
   * @default 30_000
   */
  maxBufferMs?: number;
}

/** Defaults of `CallerAudio`: 30 s kept until the session subscribes. */
export const CALLER_AUDIO_DEFAULTS: Required<CallerAudioOptions> = { maxBufferMs: 30_000 };

/**
 * The caller's side of a transport: adapters push frames as they arrive; `audio$` hands them
 * to subscribers. Frames pushed before the first subscription are kept (bounded) and delivered
 * to it first, so nothing the caller says while the session starts is lost. The end (or a
 * failure) of the caller's audio is kept the same way.
 */
export class CallerAudio {
  /** Caller frames as they come, once the first subscriber has had the kept ones (no rxjs Subject: fanout.ts). */
  private readonly live = new Fanout<AudioFrame>();
  private buffer: AudioFrame[] | undefined = [];
  private bufferedMs = 0;
  private ended: { error?: unknown } | undefined;
  private droppedFrames = 0;
  private readonly maxBufferMs: number;
  readonly audio$: Observable<AudioFrame>;

  constructor(opts: CallerAudioOptions = {}) {
    this.maxBufferMs = opts.maxBufferMs ?? CALLER_AUDIO_DEFAULTS.maxBufferMs;
    this.audio$ = new Observable<AudioFrame>((subscriber) => {
      const early = this.buffer;
      this.buffer = undefined;
      for (const f of early ?? []) subscriber.next(f);
      if (this.ended) {
        if (this.ended.error !== undefined) subscriber.error(this.ended.error);
        else subscriber.complete();
        return;
      }
      return this.live.observable.subscribe(subscriber);
    });
  }

  /** Frames dropped from the start buffer because nobody subscribed in time. */
  get dropped(): number {
    return this.droppedFrames;
  }

  /** True once the caller's audio has ended or failed. */
  get isEnded(): boolean {
    return this.ended !== undefined;
  }

  /** Passes a caller frame on (or keeps it until the session subscribes). */
  push(frame: AudioFrame): void {
    if (this.ended) return;
    if (!this.buffer) return this.live.next(frame);
    this.buffer.push(frame);
    this.bufferedMs += (frame.samples.length / frame.sampleRate) * 1000;
    while (this.bufferedMs > this.maxBufferMs && this.buffer.length > 1) {
      const old = this.buffer.shift()!;
      this.bufferedMs -= (old.samples.length / old.sampleRate) * 1000;
      this.droppedFrames++;
    }
  }

  /** The caller is gone: subscribers complete (after the buffered frames, for a late one). */
  end(): void {
    if (this.ended) return;
    this.ended = {};
    this.live.complete();
  }

  /** Ends the caller's audio with an error. */
  fail(error: Error): void {
    if (this.ended) return;
    this.ended = { error };
    this.live.error(error);
  }
}

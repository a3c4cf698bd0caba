import { Observable } from '../rx.ts';
import type { Subscriber } from 'rxjs';
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
  /**
   * The live subscribers, replaced (never changed) when one comes or goes, so a frame goes to
   * those there were when it came. Not an rxjs Subject: under Node, rxjs runs its ES5 build, whose
   * `Subject.next` makes an iterator, its results and a closure for every frame (about 250 bytes,
   * 50 times a second per call).
   */
  private live: Subscriber<AudioFrame>[] = [];
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
      this.live = [...this.live, subscriber];
      return () => {
        this.live = this.live.filter((s) => s !== subscriber);
      };
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
    if (!this.buffer) {
      const live = this.live;
      for (let i = 0; i < live.length; i++) live[i]!.next(frame);
      return;
    }
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
    for (const s of this.live) s.complete();
    this.live = [];
  }

  /** Ends the caller's audio with an error. */
  fail(error: Error): void {
    if (this.ended) return;
    this.ended = { error };
    for (const s of this.live) s.error(error);
    this.live = [];
  }
}

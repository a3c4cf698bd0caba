/**
 * Where one flushed generation's audio ends on the TTS socket. The spec's end marker is an
 * `isFinal` message, but the live socket has been seen setting `isFinal` on intermediate
 * batches too (PROTOCOLS.md §7), so by default the end is "an isFinal has been seen and then
 * no audio came for a quiet gap". Only meaningful with one generation in flight at a time.
 * Pure logic: the timer functions are injected so tests run it on virtual time.
 */

export type GenerationEndRule =
  /** The end is a quiet gap after an isFinal (robust to intermediate isFinal). */
  | 'quiet-gap'
  /** The first isFinal ends the generation (lowest latency; trusts the spec's reading). */
  | 'is-final';

export interface GenerationEndOptions {
  /** @default 'quiet-gap' */
  rule?: GenerationEndRule;
  /** Silence after an isFinal that ends a generation. @default 300 */
  quietGapMs?: number;
  /** Silence after audio, without any isFinal, that also ends it (a server that omits the marker). @default 3000 */
  stallMs?: number;
}

export const GENERATION_END_DEFAULTS: Required<GenerationEndOptions> = { rule: 'quiet-gap', quietGapMs: 300, stallMs: 3000 };

export interface Timers {
  set(fn: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export const realTimers: Timers = {
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as NodeJS.Timeout),
};

export class GenerationEnd {
  private readonly opts: Required<GenerationEndOptions>;
  private sawFinal = false;
  private sawAudio = false;
  private timer: unknown;

  constructor(
    private readonly onEnd: () => void,
    opts: GenerationEndOptions = {},
    private readonly timers: Timers = realTimers,
  ) {
    this.opts = { ...GENERATION_END_DEFAULTS, ...opts };
  }

  /** One audio message of the socket: whether it carried samples and its isFinal flag. */
  frame(hasAudio: boolean, isFinal: boolean): void {
    this.sawAudio ||= hasAudio;
    this.sawFinal ||= isFinal;
    if (this.opts.rule === 'is-final') {
      if (isFinal) this.end();
      return;
    }
    this.disarm();
    if (this.sawFinal) this.arm(this.opts.quietGapMs);
    else if (this.sawAudio) this.arm(this.opts.stallMs);
  }

  /** Forget the generation in progress (after `clear`, or when the socket closes). */
  reset(): void {
    this.disarm();
    this.sawFinal = false;
    this.sawAudio = false;
  }

  private arm(ms: number): void {
    this.timer = this.timers.set(() => {
      this.timer = undefined;
      this.end();
    }, ms);
  }

  private disarm(): void {
    if (this.timer !== undefined) this.timers.clear(this.timer);
    this.timer = undefined;
  }

  private end(): void {
    this.reset();
    this.onEnd();
  }
}

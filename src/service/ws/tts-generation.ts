import { runTimers, type Timers } from '../run-time.ts';

/**
 * Where one flushed generation's audio ends on the TTS socket. The spec's end marker is an
 * `isFinal` message, but the live socket has been seen setting `isFinal` on intermediate
 * batches too (docs/service-behaviour.md#where-a-generation-ends-on-the-text-to-speech-socket).
 * So the end is first found as "an isFinal has been seen and then no audio came for a quiet
 * gap", which needs one generation in flight at a time. Under
 * the default rule the tracker also learns: once a generation has ended with an empty
 * `isFinal` message after its audio (the vendor's documented end marker), such a message ends
 * a generation at once and generations may overlap (`trustsMarkers`), which removes the gap
 * and the wait between chunks. Pure logic: timers are injected so tests run on virtual time;
 * the socket's are run-time timers (a stall of this process is not a quiet gap or a stall of
 * the service's audio: the audio may be waiting unread).
 */
export type GenerationEndRule =
  /** Quiet gap until the server has shown an empty end marker after audio, then that marker. */
  | 'learn'
  /** Always the quiet gap after an isFinal (one generation in flight, whatever the server does). */
  | 'quiet-gap'
  /** The first isFinal ends the generation (the spec's reading, as the client had it). */
  | 'is-final';

/** How the TTS socket decides that a generation's audio has ended. */
export interface GenerationEndOptions {
  /** @default 'learn' */
  rule?: GenerationEndRule;
  /** Silence after an isFinal that ends a generation. @default 300 */
  quietGapMs?: number;
  /** Silence after audio, without any isFinal, that also ends it (a server that omits the marker). @default 3000 */
  stallMs?: number;
}

/** Defaults of the end-of-generation rule: learnt from the socket, 300 ms quiet gap, 3 s stall. */
export const GENERATION_END_DEFAULTS: Required<GenerationEndOptions> = { rule: 'learn', quietGapMs: 300, stallMs: 3000 };


export class GenerationEnd {
  private readonly opts: Required<GenerationEndOptions>;
  private sawFinal = false;
  private sawAudio = false;
  /** The last message was an empty isFinal after audio: the documented end marker. */
  private endedByMarker = false;
  private markerSeen = false;
  private timer: unknown;

  constructor(
    /** `stalled`: ended by `stallMs`, audio that stopped with no isFinal (maybe cut off mid-sentence). */
    private readonly onEnd: (stalled: boolean) => void,
    opts: GenerationEndOptions = {},
    private readonly timers: Timers = runTimers,
  ) {
    this.opts = { ...GENERATION_END_DEFAULTS, ...opts };
  }

  /**
   * Whether ends are known from the server's markers alone, so that several generations may be
   * in flight at once; otherwise keep one at a time.
   */
  get trustsMarkers(): boolean {
    return this.opts.rule === 'is-final' || (this.opts.rule === 'learn' && this.markerSeen);
  }

  /** One audio message of the socket: whether it carried samples and its isFinal flag. */
  frame(hasAudio: boolean, isFinal: boolean): void {
    const marker = !hasAudio && isFinal;
    if (this.opts.rule === 'is-final' || (this.trustsMarkers && marker)) {
      if (isFinal) this.end();
      return;
    }
    if (this.trustsMarkers) {
      // A missed marker must not hang the caller: the stall rule still applies.
      this.disarm();
      if (hasAudio) this.arm(this.opts.stallMs, true);
      return;
    }
    this.endedByMarker = marker && this.sawAudio;
    this.sawAudio ||= hasAudio;
    this.sawFinal ||= isFinal;
    this.disarm();
    if (this.sawFinal) this.arm(this.opts.quietGapMs);
    else if (this.sawAudio) this.arm(this.opts.stallMs, true);
  }

  /** Forget the generation in progress (after `clear`, or when the socket closes). */
  reset(): void {
    this.disarm();
    this.sawFinal = false;
    this.sawAudio = false;
    this.endedByMarker = false;
  }

  private arm(ms: number, stalled = false): void {
    this.timer = this.timers.set(() => {
      this.timer = undefined;
      if (this.opts.rule === 'learn' && this.endedByMarker) this.markerSeen = true;
      this.end(stalled);
    }, ms);
  }

  private disarm(): void {
    if (this.timer !== undefined) this.timers.clear(this.timer);
    this.timer = undefined;
  }

  private end(stalled = false): void {
    this.reset();
    this.onEnd(stalled);
  }
}

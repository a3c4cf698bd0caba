/**
 * Turns per-window speech probabilities into speech start and end decisions. Pure: it is fed
 * probabilities with their times, so tests run it on virtual time.
 */
export interface EndpointerOptions {
  /** Probability that counts as speech. */
  threshold?: number;
  /** Probability below which a window counts as silence (hysteresis). */
  negThreshold?: number;
  /** Speech must last this long before it counts (drops clicks). */
  minSpeechMs?: number;
  /** Silence that ends the speech. */
  endpointingMs?: number;
}

export type EndpointEvent = { type: 'start'; at: number } | { type: 'end'; at: number; start: number };

export class Endpointer {
  private readonly threshold: number;
  private readonly negThreshold: number;
  private readonly minSpeech: number;
  private readonly endpointing: number;
  private candidateStart: number | undefined;
  private speechStart: number | undefined;
  private lastSpeechEnd = 0;

  constructor(opts: EndpointerOptions = {}) {
    this.threshold = opts.threshold ?? 0.5;
    this.negThreshold = opts.negThreshold ?? 0.35;
    this.minSpeech = (opts.minSpeechMs ?? 90) / 1000;
    this.endpointing = (opts.endpointingMs ?? 700) / 1000;
  }

  get inSpeech(): boolean {
    return this.speechStart !== undefined;
  }

  /** Start time of the speech in progress. */
  get currentStart(): number | undefined {
    return this.speechStart;
  }

  /** One window [start, end) in seconds with its speech probability. */
  push(p: number, start: number, end: number): EndpointEvent[] {
    const events: EndpointEvent[] = [];
    if (this.speechStart === undefined) {
      if (p >= this.threshold) {
        this.candidateStart ??= start;
        this.lastSpeechEnd = end;
        if (end - this.candidateStart >= this.minSpeech) {
          this.speechStart = this.candidateStart;
          this.candidateStart = undefined;
          events.push({ type: 'start', at: this.speechStart });
        }
      } else {
        this.candidateStart = undefined;
      }
      return events;
    }
    if (p >= this.negThreshold) this.lastSpeechEnd = end;
    else if (end - this.lastSpeechEnd >= this.endpointing) events.push(this.close());
    return events;
  }

  /** Ends speech in progress (end of stream); undefined when there is none. */
  flush(): EndpointEvent | undefined {
    this.candidateStart = undefined;
    return this.speechStart === undefined ? undefined : this.close();
  }

  private close(): EndpointEvent {
    const e: EndpointEvent = { type: 'end', at: this.lastSpeechEnd, start: this.speechStart! };
    this.speechStart = undefined;
    return e;
  }
}

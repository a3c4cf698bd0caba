import { Subject } from '../rx.ts';
import type { Clock } from '../transport/clock.ts';
import { withDefaults } from '../options.ts';

/** How caller key presses are collected into entries and handed to the model. */
export interface DtmfOptions {
  /**
   * Completed key entries become a user turn, so the model reads the digits (and a reply in
   * flight is cut off, as speech would).
   * @default true
   */
  toModel?: boolean;
  /**
   * An entry ends this long after its last key.
   * @default 2000
   */
  interDigitTimeoutMs?: number;
  /**
   * A key that ends the entry at once; it is not part of the digits. `''` for none.
   * @default '#'
   */
  terminator?: string;
  /**
   * An entry ends when it has this many digits.
   * @default 32
   */
  maxDigits?: number;
  /**
   * How an entry reads to the model.
   * @default (digits) => `[DTMF: ${digits}]`
   */
  format?: (digits: string) => string;
}

/** Defaults of key collection: entries go to the model, ended by `#` or a 2 s pause. */
export const DTMF_DEFAULTS: Required<DtmfOptions> = {
  toModel: true,
  interDigitTimeoutMs: 2000,
  terminator: '#',
  maxDigits: 32,
  format: (digits) => `[DTMF: ${digits}]`,
};

/**
 * Gathers key presses into entries: a terminator key, the maximum length or a pause after the
 * last key ends one. Nothing runs between keys but one timer per entry in progress.
 */
export class DtmfCollector {
  readonly o: Required<DtmfOptions>;
  readonly entries$ = new Subject<string>();
  private digits = '';
  private timer: AbortController | undefined;

  constructor(private readonly clock: Clock, opts: DtmfOptions = {}) {
    this.o = withDefaults(DTMF_DEFAULTS, opts);
  }

  push(digit: string): void {
    this.timer?.abort();
    if (this.o.terminator && digit === this.o.terminator) return this.flush();
    this.digits += digit;
    if (this.digits.length >= this.o.maxDigits) return this.flush();
    const timer = (this.timer = new AbortController());
    this.clock.sleep(this.o.interDigitTimeoutMs, timer.signal).then(
      () => this.flush(),
      () => {},
    );
  }

  private flush(): void {
    this.timer?.abort();
    this.timer = undefined;
    const digits = this.digits;
    this.digits = '';
    if (digits) this.entries$.next(digits);
  }

  close(): void {
    this.timer?.abort();
    this.entries$.complete();
  }
}

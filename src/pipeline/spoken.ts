import type { ServiceClient } from '../service/client.ts';
import { normalizeForSpeech } from '../text/normalize.ts';
import { withDefaults } from '../options.ts';

/** Whether the spoken form of each chunk is diacritized by the service before synthesis. */
export interface SpokenFormOptions {
  /**
   * Diacritize through /tashkil/diacritize before synthesis (espeak-like voices read bare
   * Arabic poorly). Falls back to the plain form, for the rest of the call, if the service fails.
   * @default false
   */
  diacritize?: boolean;
  /**
   * Longest wait for a diacritization.
   * @default 1500
   */
  diacritizeTimeoutMs?: number;
}

/** Defaults of the spoken form: no diacritization (1.5 s budget when on). */
export const SPOKEN_FORM_DEFAULTS: Required<SpokenFormOptions> = { diacritize: false, diacritizeTimeoutMs: 1500 };

// Tanween, harakat, shadda, sukun, Quranic marks, superscript alef, tatweel: written, not said.
const MARKS = /[\u064B-\u065F\u0670\u0640]/g;

/** Length of text as it is said: diacritics and tatweel do not lengthen speech. */
export const speechLength = (s: string): number => s.replace(MARKS, '').length;

/**
 * The one definition of how a reply's text is voiced: numbers and symbols in words
 * (`normalize`, pure), then, when the agent asks for it, diacritized by the service (`speak`).
 * The heard-text mapping uses the same pair, measuring with `speechLength`, so marks the
 * diacritizer adds never count as speech already heard.
 */
export class SpokenForm {
  private readonly o: Required<SpokenFormOptions>;
  private off = false;

  constructor(
    private readonly client: Pick<ServiceClient, 'diacritize'> | undefined,
    opts: SpokenFormOptions = {},
    private readonly notice: (message: string) => void = () => {},
  ) {
    this.o = withDefaults(SPOKEN_FORM_DEFAULTS, opts);
  }

  /** Written text → the words to say (no I/O). */
  readonly normalize = (text: string): string => normalizeForSpeech(text);

  /** Written text → what synthesis is sent. */
  async speak(text: string, signal: AbortSignal): Promise<string> {
    const spoken = this.normalize(text);
    if (!this.o.diacritize || this.off || !this.client) return spoken;
    try {
      return (await this.client.diacritize(spoken, { signal, timeoutMs: this.o.diacritizeTimeoutMs })).diacritized_text || spoken;
    } catch (err) {
      if (!signal.aborted) {
        this.off = true;
        this.notice(`diacritization unavailable, speaking plain text: ${(err as Error).message}`);
      }
      return spoken;
    }
  }
}

/** Options of the call review pages (`hiwar demo`'s call.html, `hiwar serve --analytics`'s /calls). */
export interface ReviewOptions {
  /** A recording up to this size goes into call.html itself (one file that opens anywhere); a larger one is linked beside it. @default 16 MB */
  embedAudioMaxBytes?: number;
  /** Calls on one page of the list. @default 50 */
  listLimit?: number;
  /** Most recent calls the list reads before filtering (each is one stored record). @default 1000 */
  listScan?: number;
  /** Calls whose waveform a server keeps in memory (computing one reads the whole recording). @default 32 */
  cachedWaveforms?: number;
}

/** Defaults of the review pages' options (embedding audio, list size and scan, waveform cache), in one place. */
export const REVIEW_DEFAULTS: Required<ReviewOptions> = {
  embedAudioMaxBytes: 16 * 1024 * 1024,
  listLimit: 50,
  listScan: 1000,
  cachedWaveforms: 32,
};

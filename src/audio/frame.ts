/** The one audio type between transports and the pipeline: mono PCM16 with its rate and capture time. */
export interface AudioFrame {
  /**
   * The samples. They may be a view of a larger buffer (telephony frames are cut from shared
   * slabs): read them through the array, or `samples.buffer` with `byteOffset` and `byteLength`.
   */
  samples: Int16Array;
  sampleRate: number;
  /** Capture (or due) time in clock milliseconds. */
  time: number;
}


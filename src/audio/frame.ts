/** The one audio type between transports and the pipeline: mono PCM16 with its rate and capture time. */
export interface AudioFrame {
  samples: Int16Array;
  sampleRate: number;
  /** Capture (or due) time in clock milliseconds. */
  time: number;
}


import lsr from '@alexanderolsen/libsamplerate-js';

/**
 * Sample-rate conversion through libsamplerate (compiled to WebAssembly): band-limited sinc
 * interpolation, so 8 kHz telephony audio and 22.05/24/48 kHz voices convert without aliasing.
 */
export interface StreamResampler {
  readonly fromRate: number;
  readonly toRate: number;
  /** Converts the next piece of a stream; the filter keeps its state between pieces. */
  push(samples: Int16Array): Int16Array;
  close(): void;
}

const toFloat = (s: Int16Array) => Float32Array.from(s, (v) => v / 32768);
const toInt16 = (f: Float32Array) => Int16Array.from(f, (v) => Math.max(-32768, Math.min(32767, Math.round(v * 32768))));

export async function createResampler(fromRate: number, toRate: number): Promise<StreamResampler> {
  if (fromRate === toRate) {
    return { fromRate, toRate, push: (s) => s, close: () => {} };
  }
  const src = await lsr.create(1, fromRate, toRate, { converterType: lsr.ConverterType.SRC_SINC_MEDIUM_QUALITY });
  let closed = false;
  return {
    fromRate,
    toRate,
    push: (s) => (s.length ? toInt16(src.full(toFloat(s))) : new Int16Array(0)),
    close: () => {
      if (!closed) src.destroy();
      closed = true;
    },
  };
}

/** Converts a whole buffer at once (no streaming state, no lost tail). */
export async function resample(samples: Int16Array, fromRate: number, toRate: number): Promise<Int16Array> {
  if (fromRate === toRate || samples.length === 0) return samples;
  const src = await lsr.create(1, fromRate, toRate, { converterType: lsr.ConverterType.SRC_SINC_MEDIUM_QUALITY });
  try {
    return toInt16(src.simple(toFloat(samples)));
  } finally {
    src.destroy();
  }
}

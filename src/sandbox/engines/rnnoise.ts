import RNNoise from '@echogarden/rnnoise-wasm';
import { resample } from '../../audio/resample.ts';

/** RNNoise works on 10 ms frames of 48 kHz float audio in the int16 range. */
const RATE = 48000;
const FRAME = 480;

interface RnnoiseModule {
  _rnnoise_create(model: number): number;
  _rnnoise_destroy(state: number): void;
  _rnnoise_process_frame(state: number, out: number, input: number): number;
  _malloc(bytes: number): number;
  _free(ptr: number): void;
  HEAPF32: Float32Array;
}

let modulePromise: Promise<RnnoiseModule> | undefined;
const loadModule = () => (modulePromise ??= (RNNoise as unknown as () => Promise<RnnoiseModule>)());

/** Removes stationary and non-stationary noise from speech at any sample rate. */
export async function denoisePcm(
  samples: Int16Array,
  sampleRate: number,
  onProgress?: (fraction: number) => void,
): Promise<Int16Array> {
  const m = await loadModule();
  const hi = await resample(samples, sampleRate, RATE);
  const state = m._rnnoise_create(0);
  const ptr = m._malloc(FRAME * 4);
  const out = new Int16Array(hi.length);
  try {
    const step = Math.max(FRAME, Math.ceil(hi.length / 20 / FRAME) * FRAME);
    for (let off = 0; off < hi.length; off += FRAME) {
      if (onProgress && off > 0 && off % step === 0) {
        onProgress(off / hi.length);
        // Long files: let other calls run between pieces.
        await new Promise((r) => setImmediate(r));
      }
      const frame = new Float32Array(FRAME);
      for (let i = 0; i < FRAME && off + i < hi.length; i++) frame[i] = hi[off + i]!;
      m.HEAPF32.set(frame, ptr >> 2);
      m._rnnoise_process_frame(state, ptr, ptr);
      const res = m.HEAPF32.subarray(ptr >> 2, (ptr >> 2) + FRAME);
      for (let i = 0; i < FRAME && off + i < hi.length; i++) out[off + i] = Math.max(-32768, Math.min(32767, Math.round(res[i]!)));
    }
  } finally {
    m._free(ptr);
    m._rnnoise_destroy(state);
  }
  return resample(out, RATE, sampleRate);
}

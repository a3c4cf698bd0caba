/**
 * The telephone band and the phone line of the recognizer's bench and of its training data
 * (scripts/word-data.ts, which the bench imports): kept here so the training data need not
 * import the bench back, and so both hear one line.
 */
import { mulaw } from '../src/audio/g711.ts';
import { mixAtSnr } from '../src/audio/pcm.ts';

/** Butterworth biquads: 300 Hz high-pass then 3400 Hz low-pass, at `rate`. */
export function telephoneBand(x: Int16Array, rate: number): Int16Array {
  const biquad = (input: Float64Array, f0: number, high: boolean) => {
    const w = (2 * Math.PI * f0) / rate;
    const alpha = Math.sin(w) / Math.SQRT2;
    const cos = Math.cos(w);
    const b0 = high ? (1 + cos) / 2 : (1 - cos) / 2;
    const b1 = high ? -(1 + cos) : 1 - cos;
    const a0 = 1 + alpha;
    const a1 = -2 * cos;
    const a2 = 1 - alpha;
    const out = new Float64Array(input.length);
    let [x1, x2, y1, y2] = [0, 0, 0, 0];
    for (let i = 0; i < input.length; i++) {
      const y = (b0 * input[i]! + b1 * x1 + b0 * x2 - a1 * y1 - a2 * y2) / a0;
      [x2, x1, y2, y1] = [x1, input[i]!, y1, y];
      out[i] = y;
    }
    return out;
  };
  let s = Float64Array.from(x);
  for (let k = 0; k < 2; k++) s = biquad(s, 300, true);
  for (let k = 0; k < 2; k++) s = biquad(s, 3400, false);
  return Int16Array.from(s, (v) => Math.max(-32768, Math.min(32767, Math.round(v))));
}

/**
 * The phone line at 8 kHz: the telephone band, line noise (`noise8k` from `offset`, at `snrDb`)
 * and mu-law there and back. The 16 ↔ 8 kHz conversions around it are the caller's: the bench
 * uses libsamplerate (async), the training data a faster polyphase filter (sync).
 */
export function phoneLine8k(s8: Int16Array, noise8k: Int16Array | undefined, offset: number, snrDb: number): Int16Array {
  let line = telephoneBand(s8, 8000);
  if (noise8k) line = mixAtSnr(line, noise8k.subarray(offset % Math.max(1, noise8k.length - line.length)), snrDb);
  return mulaw.decode(mulaw.encode(line));
}

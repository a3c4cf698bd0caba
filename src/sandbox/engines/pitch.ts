/**
 * Fundamental frequency by autocorrelation, and a gender label from it. Simple and documented:
 * adult male voices mostly sit below about 165 Hz, female voices above.
 */
export function medianPitch(samples: Int16Array, sampleRate: number): number | undefined {
  const frame = Math.round(0.04 * sampleRate);
  const hop = Math.round(0.02 * sampleRate);
  const minLag = Math.floor(sampleRate / 400);
  const maxLag = Math.ceil(sampleRate / 60);
  const f0s: number[] = [];
  for (let off = 0; off + frame + maxLag < samples.length; off += hop) {
    let energy = 0;
    for (let i = 0; i < frame; i++) energy += samples[off + i]! ** 2;
    if (energy / frame < 500 ** 2) continue;
    const { lag: bestLag, sum: best } = bestLagOf(samples, off, frame, minLag, maxLag);
    if (bestLag && best / energy > 0.5) f0s.push(sampleRate / bestLag);
  }
  if (f0s.length < 3) return undefined;
  f0s.sort((a, b) => a - b);
  return f0s[Math.floor(f0s.length / 2)];
}

/**
 * The lag from `minLag` to `maxLag` whose autocorrelation over the frame at `off` is the largest
 * positive one (the first of equals), and that sum. Four lags per pass over the frame, each
 * sample read once for the four: the sums are of 16-bit products, whole numbers far below 2^53,
 * so they are exact in any order, and the lags are compared in order as one by one.
 */
function bestLagOf(samples: Int16Array, off: number, frame: number, minLag: number, maxLag: number): { lag: number; sum: number } {
  let lag = 0;
  let best = 0;
  let l = minLag;
  for (; l + 3 <= maxLag; l += 4) {
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let i = 0; i < frame; i++) {
      const x = samples[off + i]!;
      const at = off + i + l;
      s0 += x * samples[at]!;
      s1 += x * samples[at + 1]!;
      s2 += x * samples[at + 2]!;
      s3 += x * samples[at + 3]!;
    }
    if (s0 > best) {
      best = s0;
      lag = l;
    }
    if (s1 > best) {
      best = s1;
      lag = l + 1;
    }
    if (s2 > best) {
      best = s2;
      lag = l + 2;
    }
    if (s3 > best) {
      best = s3;
      lag = l + 3;
    }
  }
  for (; l <= maxLag; l++) {
    let s = 0;
    for (let i = 0; i < frame; i++) s += samples[off + i]! * samples[off + i + l]!;
    if (s > best) {
      best = s;
      lag = l;
    }
  }
  return { lag, sum: best };
}

export function genderFromPitch(f0: number | undefined): { label: string; score: number } {
  if (f0 === undefined) return { label: 'unknown', score: 0 };
  const margin = Math.min(1, Math.abs(f0 - 165) / 60);
  return { label: f0 < 165 ? 'male' : 'female', score: Math.round((0.5 + margin / 2) * 100) / 100 };
}

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
    let bestLag = 0;
    let best = 0;
    for (let lag = minLag; lag <= maxLag; lag++) {
      let s = 0;
      for (let i = 0; i < frame; i++) s += samples[off + i]! * samples[off + i + lag]!;
      if (s > best) {
        best = s;
        bestLag = lag;
      }
    }
    if (bestLag && best / energy > 0.5) f0s.push(sampleRate / bestLag);
  }
  if (f0s.length < 3) return undefined;
  f0s.sort((a, b) => a - b);
  return f0s[Math.floor(f0s.length / 2)];
}

export function genderFromPitch(f0: number | undefined): { label: string; score: number } {
  if (f0 === undefined) return { label: 'unknown', score: 0 };
  const margin = Math.min(1, Math.abs(f0 - 165) / 60);
  return { label: f0 < 165 ? 'male' : 'female', score: Math.round((0.5 + margin / 2) * 100) / 100 };
}

/**
 * Where to pick up a sentence again when its audio stopped part-way: `at` samples into a fresh
 * rendering of the same sentence, moved to the quietest 10 ms within `window` samples either
 * side, so the seam falls between words rather than inside one. Pure, for unit tests.
 */
export function resumePoint(pcm: Int16Array, at: number, window: number, rate: number): number {
  if (at <= 0) return 0;
  if (at >= pcm.length) return pcm.length;
  const step = Math.max(1, Math.round(rate / 100));
  let best = at;
  let bestEnergy = Infinity;
  for (let start = Math.max(0, at - window); start + step <= Math.min(pcm.length, at + window); start += Math.max(1, step >> 1)) {
    let e = 0;
    for (let i = start; i < start + step; i++) e += pcm[i]! * pcm[i]!;
    // Ties go to the point nearest the target.
    if (e < bestEnergy || (e === bestEnergy && Math.abs(start + step / 2 - at) < Math.abs(best - at))) {
      bestEnergy = e;
      best = start + (step >> 1);
    }
  }
  return best;
}

/**
 * The sandbox recognizer's warps and pitch as they were written first (one frame array per
 * frame, one lag per pass, a warp run to its end), kept to check that the faster versions in src/sandbox/engines give
 * the same results to the bit (test/sandbox/exact-engines.test.ts).
 */
import type { DtwResult } from '../../src/sandbox/engines/dtw.ts';

function dist(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) {
    const d = a[i]! - b[i]!;
    s += d * d;
  }
  return Math.sqrt(s);
}

/** The warp, frame arrays in. */
export function referenceDtw(query: Float32Array[], template: Float32Array[], openEnd = false): DtwResult | undefined {
  const n = query.length;
  const m = template.length;
  if (n < 3 || m < 3) return undefined;
  if (!openEnd && (n > 2.5 * m || m > 2.5 * n)) return undefined;
  const INF = Number.POSITIVE_INFINITY;
  const D = new Float32Array(n * m).fill(INF);
  const L = new Uint16Array(n * m);
  const slope = 2.5;
  for (let i = 0; i < n; i++) {
    const jLo = Math.max(0, Math.floor(i / slope) - 2);
    const jHi = Math.min(m - 1, Math.ceil(i * slope) + 2);
    for (let j = jLo; j <= jHi; j++) {
      const d = dist(query[i]!, template[j]!);
      if (i === 0 && j === 0) {
        D[0] = d;
        L[0] = 1;
        continue;
      }
      let best = INF;
      let len = 0;
      if (i > 0 && j > 0 && D[(i - 1) * m + j - 1]! < best) {
        best = D[(i - 1) * m + j - 1]!;
        len = L[(i - 1) * m + j - 1]!;
      }
      if (i > 0 && D[(i - 1) * m + j]! < best) {
        best = D[(i - 1) * m + j]!;
        len = L[(i - 1) * m + j]!;
      }
      if (j > 0 && D[i * m + j - 1]! < best) {
        best = D[i * m + j - 1]!;
        len = L[i * m + j - 1]!;
      }
      if (best < INF) {
        D[i * m + j] = best + d;
        L[i * m + j] = len + 1;
      }
    }
  }
  let end = m - 1;
  if (openEnd) {
    let bestCost = INF;
    for (let j = 0; j < m; j++) {
      const c = D[(n - 1) * m + j]! / Math.max(1, L[(n - 1) * m + j]!);
      if (c < bestCost) {
        bestCost = c;
        end = j;
      }
    }
  }
  const total = D[(n - 1) * m + end]!;
  if (!Number.isFinite(total)) return undefined;
  const cost = total / L[(n - 1) * m + end]!;
  const queryToTemplate = new Int32Array(n);
  let i = n - 1;
  let j = end;
  queryToTemplate[i] = j;
  while (i > 0 || j > 0) {
    const diag = i > 0 && j > 0 ? D[(i - 1) * m + j - 1]! : INF;
    const up = i > 0 ? D[(i - 1) * m + j]! : INF;
    const left = j > 0 ? D[i * m + j - 1]! : INF;
    if (diag <= up && diag <= left) {
      i--;
      j--;
    } else if (up <= left) i--;
    else j--;
    queryToTemplate[i] = Math.max(queryToTemplate[i] ?? 0, j);
  }
  return { cost, queryToTemplate, templateEnd: end };
}

/** The median pitch, one lag per pass. */
export function referenceMedianPitch(samples: Int16Array, sampleRate: number): number | undefined {
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

/** The vocabulary's symmetric warp (engines/vocabulary.ts `symmetricDtw`), as first written: two fresh rows per call, no early end. */
export function referenceSymmetricDtw(q: Float32Array[], t: Float32Array[]): number {
  const n = q.length;
  const m = t.length;
  const band = Math.max(Math.abs(n - m) + 3, Math.round(0.4 * Math.max(n, m)));
  let prev = new Float64Array(m + 1).fill(Number.POSITIVE_INFINITY);
  let cur = new Float64Array(m + 1);
  prev[0] = 0;
  for (let i = 1; i <= n; i++) {
    cur.fill(Number.POSITIVE_INFINITY);
    const centre = Math.round((i * m) / n);
    const lo = Math.max(1, centre - band);
    const hi = Math.min(m, centre + band);
    const a = q[i - 1]!;
    for (let j = lo; j <= hi; j++) {
      const d = dist(a, t[j - 1]!);
      cur[j] = Math.min(prev[j - 1]! + 2 * d, prev[j]! + d, cur[j - 1]! + d);
    }
    [prev, cur] = [cur, prev];
  }
  return prev[m]! / (n + m);
}

/**
 * Dynamic time warping between a query (what was heard) and a template (what was voiced).
 * Hand-written: the npm DTW packages return a cost only, and word timings need the path.
 */
export interface DtwResult {
  /** Mean frame distance along the path. */
  cost: number;
  /** Template frame aligned with each query frame. */
  queryToTemplate: Int32Array;
  /** Last template frame reached (the whole template unless open-ended). */
  templateEnd: number;
}

function dist(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) {
    const d = a[i]! - b[i]!;
    s += d * d;
  }
  return Math.sqrt(s);
}

/**
 * `openEnd`: the query is the start of an utterance still going on, so it may end anywhere in
 * the template. A band keeps the warp within a factor of about 2.5 in speed.
 */
export function dtw(query: Float32Array[], template: Float32Array[], openEnd = false): DtwResult | undefined {
  const n = query.length;
  const m = template.length;
  if (n < 3 || m < 3) return undefined;
  if (!openEnd && (n > 2.5 * m || m > 2.5 * n)) return undefined;
  const INF = Number.POSITIVE_INFINITY;
  const D = new Float32Array(n * m).fill(INF);
  const L = new Uint16Array(n * m); // path length, for normalization
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
  // Backtrack along the cheapest predecessors.
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

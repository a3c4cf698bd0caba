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

/**
 * Feature frames laid end to end in one array (`count` frames of `dim` values): the warp reads
 * every template frame once per query frame, and one flat array is read several times faster
 * than an array of small ones (the recognizer's largest cost in a whole call).
 */
export interface FrameMatrix {
  data: Float32Array;
  count: number;
  dim: number;
}

/** `frames` as one `FrameMatrix`, last frame first when `reversed`. */
export function frameMatrix(frames: readonly Float32Array[], reversed = false): FrameMatrix {
  const count = frames.length;
  const dim = count ? frames[0]!.length : 0;
  const data = new Float32Array(count * dim);
  for (let f = 0; f < count; f++) data.set(frames[reversed ? count - 1 - f : f]!, f * dim);
  return { data, count, dim };
}

/** Cells of the cost matrices kept between warps (8 MB); a larger warp gets its own. */
const KEPT_CELLS = 2 ** 20;
let kept: { D: Float32Array; L: Uint16Array } | undefined;

/**
 * The cumulative costs and path lengths, `cells` long at least: one pair reused from warp to warp
 * (a recognition warps against every template, each pair of fresh arrays was garbage at once).
 * Only cells written in this warp are read from `L`, so it needs no clearing; `D` is filled.
 */
function matrices(cells: number): { D: Float32Array; L: Uint16Array } {
  if (cells > KEPT_CELLS) return { D: new Float32Array(cells), L: new Uint16Array(cells) };
  if (!kept || kept.D.length < cells) kept = { D: new Float32Array(Math.max(cells, 4096)), L: new Uint16Array(Math.max(cells, 4096)) };
  return kept;
}

/** The recognizer's frames: cepstra c1..c12 (features.ts). */
const CEPSTRA = 12;

/** Euclidean distance between frames at `ao` in `a` and `bo` in `b`, summed in index order. */
function distance(a: Float32Array, ao: number, b: Float32Array, bo: number, dim: number): number {
  let s = 0;
  for (let k = 0; k < dim; k++) {
    const d = a[ao + k]! - b[bo + k]!;
    s += d * d;
  }
  return Math.sqrt(s);
}

/** The distance between query frame `qo` and template frame `to` (offsets into their arrays). */
const frameDistance = (q: Float32Array, qo: number, t: Float32Array, to: number, dim: number): number => (dim === CEPSTRA ? distance12(q, qo, t, to) : distance(q, qo, t, to, dim));

/** `distance` for 12 values, unrolled (the same sums in the same order). */
function distance12(a: Float32Array, ao: number, b: Float32Array, bo: number): number {
  const d0 = a[ao]! - b[bo]!;
  const d1 = a[ao + 1]! - b[bo + 1]!;
  const d2 = a[ao + 2]! - b[bo + 2]!;
  const d3 = a[ao + 3]! - b[bo + 3]!;
  const d4 = a[ao + 4]! - b[bo + 4]!;
  const d5 = a[ao + 5]! - b[bo + 5]!;
  const d6 = a[ao + 6]! - b[bo + 6]!;
  const d7 = a[ao + 7]! - b[bo + 7]!;
  const d8 = a[ao + 8]! - b[bo + 8]!;
  const d9 = a[ao + 9]! - b[bo + 9]!;
  const d10 = a[ao + 10]! - b[bo + 10]!;
  const d11 = a[ao + 11]! - b[bo + 11]!;
  return Math.sqrt(d0 * d0 + d1 * d1 + d2 * d2 + d3 * d3 + d4 * d4 + d5 * d5 + d6 * d6 + d7 * d7 + d8 * d8 + d9 * d9 + d10 * d10 + d11 * d11);
}

/**
 * `openEnd`: the query is the start of an utterance still going on, so it may end anywhere in
 * the template. A band keeps the warp within a factor of about 2.5 in speed.
 *
 * The arithmetic is the straightforward one's, step for step (the distances summed in the same
 * order, the cumulative costs stored as 32-bit floats), so the costs and paths are the same to
 * the bit (test/sandbox/dtw.test.ts compares it with that version).
 */
export function dtw(query: FrameMatrix, template: FrameMatrix, openEnd = false): DtwResult | undefined {
  const n = query.count;
  const m = template.count;
  if (n < 3 || m < 3) return undefined;
  if (!openEnd && (n > 2.5 * m || m > 2.5 * n)) return undefined;
  const dim = query.dim;
  const q = query.data;
  const t = template.data;
  const INF = Number.POSITIVE_INFINITY;
  const { D, L } = matrices(n * m);
  D.fill(INF, 0, n * m);
  const slope = 2.5;
  // Each cell takes the cheapest of its diagonal, upper and left neighbours, in that order, the
  // first of equals; a neighbour outside the band is infinite. Row 0 and column 0 have fewer.
  for (let i = 0; i < n; i++) {
    const jLo = Math.max(0, Math.floor(i / slope) - 2);
    const jHi = Math.min(m - 1, Math.ceil(i * slope) + 2);
    const row = i * m;
    const up = row - m;
    const qo = i * dim;
    let j = jLo;
    if (j === 0) {
      const d = frameDistance(q, qo, t, 0, dim);
      if (i === 0) {
        D[0] = d;
        L[0] = 1;
      } else if (D[up]! < INF) {
        D[row] = D[up]! + d;
        L[row] = L[up]! + 1;
      }
      j = 1;
    }
    for (; j <= jHi; j++) {
      const d = frameDistance(q, qo, t, j * dim, dim);
      let best = INF;
      let len = 0;
      if (i > 0) {
        const diag = D[up + j - 1]!;
        if (diag < best) {
          best = diag;
          len = L[up + j - 1]!;
        }
        const above = D[up + j]!;
        if (above < best) {
          best = above;
          len = L[up + j]!;
        }
      }
      const left = D[row + j - 1]!;
      if (left < best) {
        best = left;
        len = L[row + j - 1]!;
      }
      if (best < INF) {
        D[row + j] = best + d;
        L[row + j] = len + 1;
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

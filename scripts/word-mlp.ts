/**
 * For maintainers: trains the spoken-word classifier's network (one hidden ReLU layer, softmax)
 * with Adam on Float32Arrays. Seeded: the same data and seed give the same weights.
 */
import { packWeights, type StoredWordNet } from '../src/sandbox/engines/word-model.ts';

/** Training settings (the shipped model uses these). */
export const MLP_DEFAULTS = {
  hidden: 32,
  epochs: 20,
  batch: 32,
  rate: 1e-3,
  /** Decoupled weight decay per step, relative to the rate (AdamW). */
  decay: 1e-2,
  /** Hidden units dropped at random in training. */
  dropout: 0.2,
  /** Noise added to the standardized inputs in training. */
  inputNoise: 0.1,
  seed: 29,
};
export type MlpOptions = Partial<typeof MLP_DEFAULTS>;

/** A deterministic random source in [0, 1) (mulberry32). */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const gauss = (rnd: () => number) => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());

/** Trains on vectors `x` with class indices `y` (into `classes`); `weights` per sample (default 1). */
export function trainMlp(x: Float32Array[], y: number[], classes: string[], opts: MlpOptions = {}, weights?: number[]): StoredWordNet {
  const o = { ...MLP_DEFAULTS, ...opts };
  const rnd = seeded(o.seed);
  const D = x[0]!.length;
  const H = o.hidden;
  const C = classes.length;
  const mean = new Float32Array(D);
  const invStd = new Float32Array(D);
  for (const v of x) for (let i = 0; i < D; i++) mean[i]! += v[i]! / x.length;
  for (const v of x) for (let i = 0; i < D; i++) invStd[i]! += (v[i]! - mean[i]!) ** 2 / x.length;
  for (let i = 0; i < D; i++) invStd[i] = 1 / Math.sqrt(invStd[i]! + 1e-6);
  const xs = x.map((v) => Float32Array.from(v, (u, i) => (u - mean[i]!) * invStd[i]!));

  const params = {
    w1: Float32Array.from({ length: H * D }, () => gauss(rnd) * Math.sqrt(2 / D)),
    b1: new Float32Array(H),
    w2: Float32Array.from({ length: C * H }, () => gauss(rnd) * Math.sqrt(1 / H)),
    b2: new Float32Array(C),
  };
  const grads = { w1: new Float32Array(H * D), b1: new Float32Array(H), w2: new Float32Array(C * H), b2: new Float32Array(C) };
  const m = { w1: new Float32Array(H * D), b1: new Float32Array(H), w2: new Float32Array(C * H), b2: new Float32Array(C) };
  const v = { w1: new Float32Array(H * D), b1: new Float32Array(H), w2: new Float32Array(C * H), b2: new Float32Array(C) };
  const keys = ['w1', 'b1', 'w2', 'b2'] as const;
  const order = xs.map((_, i) => i);
  const xin = new Float32Array(D);
  const h = new Float32Array(H);
  const mask = new Float32Array(H);
  const p = new Float32Array(C);
  const dh = new Float32Array(H);
  let step = 0;
  for (let epoch = 0; epoch < o.epochs; epoch++) {
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rnd() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    for (let start = 0; start < order.length; start += o.batch) {
      for (const k of keys) grads[k].fill(0);
      const end = Math.min(order.length, start + o.batch);
      for (let s = start; s < end; s++) {
        const n = order[s]!;
        const src = xs[n]!;
        for (let i = 0; i < D; i++) xin[i] = src[i]! + o.inputNoise * gauss(rnd);
        for (let j = 0; j < H; j++) {
          let a = params.b1[j]!;
          const row = j * D;
          for (let i = 0; i < D; i++) a += params.w1[row + i]! * xin[i]!;
          mask[j] = rnd() < o.dropout ? 0 : 1 / (1 - o.dropout);
          h[j] = a > 0 ? a * mask[j]! : 0;
        }
        let max = -Infinity;
        for (let c = 0; c < C; c++) {
          let a = params.b2[c]!;
          for (let j = 0; j < H; j++) a += params.w2[c * H + j]! * h[j]!;
          p[c] = a;
          max = Math.max(max, a);
        }
        let total = 0;
        for (let c = 0; c < C; c++) total += p[c] = Math.exp(p[c]! - max);
        const w = (weights?.[n] ?? 1) / (end - start);
        dh.fill(0);
        for (let c = 0; c < C; c++) {
          const g = (p[c]! / total - (c === y[n] ? 1 : 0)) * w;
          grads.b2[c]! += g;
          for (let j = 0; j < H; j++) {
            grads.w2[c * H + j]! += g * h[j]!;
            dh[j]! += g * params.w2[c * H + j]!;
          }
        }
        for (let j = 0; j < H; j++) {
          if (h[j]! <= 0) continue;
          const g = dh[j]! * mask[j]!;
          grads.b1[j]! += g;
          const row = j * D;
          for (let i = 0; i < D; i++) grads.w1[row + i]! += g * xin[i]!;
        }
      }
      step++;
      const c1 = 1 - 0.9 ** step;
      const c2 = 1 - 0.999 ** step;
      for (const k of keys) {
        const P = params[k];
        const G = grads[k];
        const M = m[k];
        const V = v[k];
        const decay = k === 'w1' || k === 'w2' ? o.decay * o.rate : 0;
        for (let i = 0; i < P.length; i++) {
          M[i] = 0.9 * M[i]! + 0.1 * G[i]!;
          V[i] = 0.999 * V[i]! + 0.001 * G[i]! * G[i]!;
          P[i] = P[i]! - (o.rate * (M[i]! / c1)) / (Math.sqrt(V[i]! / c2) + 1e-8) - decay * P[i]!;
        }
      }
    }
  }
  const l1 = packWeights(params.w1, D);
  const l2 = packWeights(params.w2, H);
  const r = (a: Float32Array) => Array.from(a, (u) => Number(u.toPrecision(6)));
  return { classes, inputs: D, hidden: H, mean: r(mean), invStd: r(invStd), w1: l1.bytes, s1: l1.scales, b1: r(params.b1), w2: l2.bytes, s2: l2.scales, b2: r(params.b2) };
}

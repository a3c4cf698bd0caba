/**
 * The polyphase filter's inner loop in WebAssembly SIMD (four float32 products per instruction):
 * 16 ↔ 48 kHz costs about a quarter of the JavaScript kernel's CPU. The module is a few hundred
 * bytes assembled here at load (no file, no download, no native build); one instance and one
 * 128 KB memory serve every resampler of the process (JavaScript is single-threaded: a push
 * copies its window in, runs, copies its output out). Where WebAssembly SIMD is missing the
 * JavaScript kernel in polyphase.ts runs instead.
 *
 * `run(taps, T, L, w, step, count, out)` (byte addresses): for each of `count` windows starting
 * at `w`, `w + 4·step`…, and each of `L` branches of `T` taps (a multiple of 8) stored one after
 * another at `taps`, writes Σ taps[p·T + k] · w[k] rounded and clamped to int16 at `out`.
 */

/** Input samples per call into the module: bounds its memory whatever size a piece has. */
export const SIMD_BLOCK = 4096;
/** Bytes for the filters' taps (every design's branches, placed once). */
const TAPS_BYTES = 16 * 1024;
/** Window: the largest history (6 × 40 − 1 samples) plus a block, as float32. */
const WORK_BYTES = (SIMD_BLOCK + 256) * 4;
const OUT_BYTES = SIMD_BLOCK * 6 * 2;
const PAGES = Math.ceil((TAPS_BYTES + WORK_BYTES + OUT_BYTES) / 65536);

const uleb = (n: number): number[] => {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
};
const vec = (items: number[][]): number[] => [...uleb(items.length), ...items.flat()];
const section = (id: number, body: number[]): number[] => [id, ...uleb(body.length), ...body];
const str = (s: string): number[] => [...uleb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];

// Opcodes used (WebAssembly core 2.0 and its fixed-width SIMD proposal, 0xfd-prefixed).
const get = (i: number) => [0x20, i];
const set = (i: number) => [0x21, i];
const i32 = (v: number) => [0x41, ...sleb(v)];
const f32 = (v: number) => [0x43, ...new Uint8Array(new Float32Array([v]).buffer)];
const ADD = 0x6a;
const LT_U = 0x49;
const NE = 0x47;
const LOOP = [0x03, 0x40];
const BR_IF = (depth: number) => [0x0d, depth];
const END = 0x0b;
const V128_LOAD = (offset: number) => [0xfd, 0x00, 2, ...uleb(offset)];
const V128_ZERO = [0xfd, 0x0c, ...new Array<number>(16).fill(0)];
const F32X4_ADD = [0xfd, 0xe4, 0x01];
const F32X4_MUL = [0xfd, 0xe6, 0x01];
const LANE = (l: number) => [0xfd, 0x1f, l];
const F32_ADD = 0x92;

function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && !(b & 0x40)) || (n === -1 && b & 0x40)) return [...out, b];
    out.push(b | 0x80);
  }
}

// Locals: params 0–6 (taps, T, L, w, step, count, out), then p, k, tp, tb (T in bytes), acc0, acc1.
const [TAPS, T, L, W, STEP, COUNT, OUT, P, K, TP, TB, ACC0, ACC1] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
/** acc += v128 at (base + k + offset) × v128 at (w + k + offset). */
const mac = (acc: number, offset: number) => [
  ...get(acc), ...get(TP), ...get(K), ADD, ...V128_LOAD(offset), ...get(W), ...get(K), ADD, ...V128_LOAD(offset),
  ...F32X4_MUL, ...F32X4_ADD, ...set(acc),
];
const body = [
  ...get(T), ...i32(2), 0x74 /* i32.shl */, ...set(TB),
  ...LOOP, // each window
  ...i32(0), ...set(P), ...get(TAPS), ...set(TP),
  ...LOOP, // each branch
  ...V128_ZERO, ...set(ACC0), ...V128_ZERO, ...set(ACC1), ...i32(0), ...set(K),
  ...LOOP, // 8 taps a turn, two accumulators so the additions do not wait on each other
  ...mac(ACC0, 0), ...mac(ACC1, 16),
  ...get(K), ...i32(32), ADD, 0x22 /* local.tee */, K, ...get(TB), LT_U, ...BR_IF(0), END,
  // out ← int16(clamp(round((a0 + a1) + (a2 + a3)))), a = acc0 + acc1
  ...get(OUT),
  ...get(ACC0), ...get(ACC1), ...F32X4_ADD, ...set(ACC0),
  ...get(ACC0), ...LANE(0), ...get(ACC0), ...LANE(1), F32_ADD, ...get(ACC0), ...LANE(2), ...get(ACC0), ...LANE(3), F32_ADD, F32_ADD,
  0x90 /* f32.nearest */, ...f32(32767), 0x96 /* f32.min */, ...f32(-32768), 0x97 /* f32.max */, 0xa8 /* i32.trunc_f32_s */,
  0x3b, 1, 0 /* i32.store16 */,
  ...get(OUT), ...i32(2), ADD, ...set(OUT),
  ...get(TP), ...get(TB), ADD, ...set(TP),
  ...get(P), ...i32(1), ADD, 0x22, P, ...get(L), LT_U, ...BR_IF(0), END,
  ...get(W), ...get(STEP), ...i32(2), 0x74, ADD, ...set(W),
  ...get(COUNT), ...i32(-1), ADD, 0x22, COUNT, ...i32(0), NE, ...BR_IF(0), END,
  END,
];
const locals = vec([[4, 0x7f], [2, 0x7b]]);
const code = [...locals, ...body];
const bytes = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  ...section(1, vec([[0x60, ...vec(new Array(7).fill([0x7f])), 0x00]])),
  ...section(3, vec([[0]])),
  ...section(5, vec([[0x00, ...uleb(PAGES)]])),
  ...section(7, vec([[...str('run'), 0x00, 0], [...str('mem'), 0x02, 0]])),
  ...section(10, vec([[...uleb(code.length), ...code]])),
]);

/** The module's entry and its memory's regions (byte offsets). */
export interface SimdKernel {
  run(taps: number, T: number, L: number, w: number, step: number, count: number, out: number): void;
  /** Float32 view of the memory (taps and window). */
  f32: Float32Array;
  /** Int16 view of the memory (output). */
  i16: Int16Array;
  /** Byte offset of the window (history, then the block). */
  work: number;
  /** Byte offset of the output. */
  out: number;
  /** Places `taps` in the module's memory once per design; returns its byte offset. */
  place(taps: Float64Array): number;
}

/** What this module uses of the WebAssembly API (the project's lib settings do not declare it). */
interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
}

let kernel: SimdKernel | null | undefined;

/** The shared kernel, or null where WebAssembly SIMD is not available. */
export function simdKernel(): SimdKernel | null {
  if (kernel !== undefined) return kernel;
  kernel = null;
  const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (!wasm || !wasm.validate(bytes)) return kernel;
  const { exports } = new wasm.Instance(new wasm.Module(bytes));
  const mem = exports.mem as { buffer: ArrayBuffer };
  const placed = new Map<Float64Array, number>();
  let next = 0;
  const k: SimdKernel = {
    run: exports.run as SimdKernel['run'],
    f32: new Float32Array(mem.buffer),
    i16: new Int16Array(mem.buffer),
    work: TAPS_BYTES,
    out: TAPS_BYTES + WORK_BYTES,
    place(taps) {
      let at = placed.get(taps);
      if (at !== undefined) return at;
      if (next + taps.length * 4 > TAPS_BYTES) throw new RangeError('resampler taps: no room left in the SIMD kernel');
      at = next;
      k.f32.set(taps, at / 4);
      next += taps.length * 4;
      placed.set(taps, at);
      return at;
    },
  };
  kernel = k;
  return kernel;
}

/**
 * One stream through the shared kernel: `L` branches of `T` taps over windows `M` samples apart
 * (up by L: M = 1; down by M: L = 1, one branch of the whole filter). The stream keeps its own
 * history (T − 1 samples); output equals the JavaScript kernel's within 1 (float32 sums).
 */
export function simdStream(k: SimdKernel, taps: Float64Array, T: number, L: number, M: number): (s: Int16Array) => Int16Array {
  const at = k.place(taps);
  const keep = T - 1;
  const hist = new Float32Array(keep);
  const w0 = k.work / 4;
  let seen = 0;
  return (s) => {
    const n = s.length;
    const first = (M - 1 - (seen % M) + M) % M;
    const windows = first < n ? Math.floor((n - 1 - first) / M) + 1 : 0;
    const out = new Int16Array(windows * L);
    const { f32, i16 } = k;
    let o = 0;
    for (let b = 0; b < n; b += SIMD_BLOCK) {
      const m = Math.min(SIMD_BLOCK, n - b);
      f32.set(hist, w0);
      for (let i = 0; i < m; i++) f32[w0 + keep + i] = s[b + i]!;
      // The block's first window: the stream's phase carried from the samples before it.
      const start = (M - 1 - ((seen + b) % M) + M) % M;
      const count = start < m ? Math.floor((m - 1 - start) / M) + 1 : 0;
      if (count) {
        k.run(at, T, L, k.work + start * 4, M, count, k.out);
        out.set(i16.subarray(k.out / 2, k.out / 2 + count * L), o);
        o += count * L;
      }
      hist.set(f32.subarray(w0 + m, w0 + m + keep));
    }
    seen += n;
    return out;
  };
}

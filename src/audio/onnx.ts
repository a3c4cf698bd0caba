import type * as Ort from 'onnxruntime-common';
import v8 from 'node:v8';
import { isInstalled } from '../optional.ts';

/**
 * The ONNX runtime hiwar's models run on. onnxruntime-node (native, an optional peer: its install
 * script reaches beyond the npm registry unless `ONNXRUNTIME_NODE_INSTALL=skip`) when it is
 * installed; otherwise onnxruntime-web, WebAssembly, a plain dependency that installs from the
 * registry alone and computes the same probabilities at about three times the CPU. Both implement
 * onnxruntime-common's interface.
 */
export type OnnxEngine = 'onnxruntime-node' | 'onnxruntime-web';
export interface OnnxRuntime {
  engine: OnnxEngine;
  InferenceSession: typeof Ort.InferenceSession;
  Tensor: typeof Ort.Tensor;
}

let loaded: Promise<OnnxRuntime> | undefined;
let compilation: 'tiered' | 'baseline' = 'tiered';

/**
 * For a short-lived process (a test run, `hiwar demo`): WebAssembly compiled from now on (the
 * VAD's runtime when the WebAssembly one is loaded, and the resamplers' kernels) is compiled by
 * V8's baseline compiler only (Liftoff), not also optimized in the background. Node waits for V8's background compilations before a process exits, with no handle
 * to show for it: a user's `node --test` file stayed up 1.3–1.6 s after its last test at load 3–5,
 * more on a busy machine; Liftoff's code also costs less CPU than tiering up over a test run's
 * first minutes of audio (a server, which runs for hours, keeps the tiering). A V8 setting of the
 * whole process, so it is taken only before anything loaded the runtime; returns whether it was.
 */
export function baselineWasm(): boolean {
  if (loaded || compilation === 'baseline') return compilation === 'baseline';
  v8.setFlagsFromString('--liftoff-only');
  compilation = 'baseline';
  return true;
}

/** How this process compiles WebAssembly: V8's default tiering, or the baseline compiler only. */
export const wasmCompilation = (): 'tiered' | 'baseline' => compilation;

/** The runtime, loaded once per process; `HIWAR_ONNX=web` picks the WebAssembly one. */
export function onnxRuntime(env: NodeJS.ProcessEnv = process.env): Promise<OnnxRuntime> {
  return (loaded ??= load(env.HIWAR_ONNX === 'web'));
}

async function load(webOnly: boolean): Promise<OnnxRuntime> {
  if (!webOnly && isInstalled('onnxruntime-node')) {
    const mod = (await import('onnxruntime-node')) as typeof Ort & { default?: typeof Ort };
    const ort = mod.default ?? mod; // CommonJS: its exports arrive as the default
    return { engine: 'onnxruntime-node', InferenceSession: ort.InferenceSession, Tensor: ort.Tensor };
  }
  const ort = await import('onnxruntime-web');
  ort.env.wasm.numThreads = 1; // one call's VAD is tiny; threads would only add hand-offs
  return { engine: 'onnxruntime-web', InferenceSession: ort.InferenceSession, Tensor: ort.Tensor };
}

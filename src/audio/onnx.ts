import type * as Ort from 'onnxruntime-common';
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

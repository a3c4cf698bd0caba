import { readFile } from 'node:fs/promises';
import type * as Ort from 'onnxruntime-common';
import { onnxRuntime, type OnnxRuntime } from './onnx.ts';

/**
 * Silero VAD (v5, 16 kHz) on the ONNX runtime of `onnx.ts`. The model file ships with hiwar
 * (models/README.md); the streaming state is kept here so that one loaded model serves every call.
 */
const MODEL = new URL('./models/silero-vad-16k-op15.onnx', import.meta.url);
const WINDOW = 512;
const CONTEXT = 64;
export const VAD_RATE = 16000;

interface Loaded {
  ort: OnnxRuntime;
  session: Ort.InferenceSession;
}
let session: Promise<Loaded> | undefined;
let loaded = false;
/** Whether the model is loaded in this process (a stream made now does not pay for it). */
export const sileroLoaded = (): boolean => loaded;
function loadSession(): Promise<Loaded> {
  session ??= (async () => {
    const [ort, model] = await Promise.all([onnxRuntime(), readFile(MODEL)]);
    const l = { ort, session: await ort.InferenceSession.create(model, { intraOpNumThreads: 1, interOpNumThreads: 1 }) };
    loaded = true;
    return l;
  })();
  session.catch(() => (session = undefined)); // a failed load is tried again by the next call
  return session;
}

export interface VadWindow {
  start: number;
  end: number;
  p: number;
}

export interface SileroStreamOptions {
  /**
   * After this many whole windows of digital silence (every sample zero) in a row, the stream
   * starts again as a new stream that has heard that much silence, and scores the silence that
   * follows at 0 without running the model, until a sample is not zero. The model's state keeps
   * drifting on zeros for thousands of windows, so no cached answer reproduces a long silence;
   * starting again costs nothing while a line carries nothing (a muted microphone, a caller's
   * silence while the agent speaks). 0 (the default) runs the model on every window.
   */
  restartAfterZeroWindows?: number;
}

/**
 * The restart used by hiwar's streams (the sandbox's `/listen`, the session's local VAD): 31
 * windows of 32 ms, about a second of digital silence. A caller's line is mostly that while the
 * agent speaks (in tests, and on a muted microphone).
 */
export const DIGITAL_SILENCE_RESTART_WINDOWS = 31;

/** The model's state after so many windows of zeros from a new stream's (once per process and count). */
const settled = new Map<number, Promise<Float32Array>>();

export class SileroStream {
  private state = new Float32Array(2 * 128);
  private context = new Float32Array(CONTEXT);
  private pending = new Float32Array(0);
  private consumed = 0;
  private zeroRun = 0;
  /** Windows scored 0 without the model (digital silence past `restartAfterZeroWindows`). */
  skippedWindows = 0;
  private readonly restartAfter: number;
  private restartState: Float32Array | undefined;
  private readonly sr: Ort.Tensor;
  private readonly session: Ort.InferenceSession;
  private readonly ort: OnnxRuntime;

  private constructor(loaded: Loaded, opts: SileroStreamOptions) {
    ({ session: this.session, ort: this.ort } = loaded);
    this.restartAfter = opts.restartAfterZeroWindows ?? 0;
    this.sr = new this.ort.Tensor('int64', BigInt64Array.from([16000n]));
  }

  static async create(opts: SileroStreamOptions = {}): Promise<SileroStream> {
    const loaded = await loadSession();
    const stream = new SileroStream(loaded, opts);
    if (stream.restartAfter > 0) stream.restartState = await SileroStream.settledState(loaded, stream.restartAfter);
    return stream;
  }

  private static settledState(loaded: Loaded, windows: number): Promise<Float32Array> {
    let state = settled.get(windows);
    if (!state) {
      state = (async () => {
        const stream = new SileroStream(loaded, {});
        await stream.push(new Int16Array(windows * WINDOW));
        return stream.modelState();
      })();
      settled.set(windows, state);
      state.catch(() => settled.delete(windows)); // a failure is tried again by the next stream
    }
    return state;
  }

  /** A copy of the model's recurrent state. */
  private modelState(): Float32Array {
    return this.state.slice();
  }

  /** Feeds 16 kHz audio; returns one probability per complete 32 ms window. */
  async push(samples: Int16Array): Promise<VadWindow[]> {
    const joined = new Float32Array(this.pending.length + samples.length);
    joined.set(this.pending);
    for (let i = 0; i < samples.length; i++) joined[this.pending.length + i] = samples[i]! / 32768;
    const out: VadWindow[] = [];
    let off = 0;
    for (; off + WINDOW <= joined.length; off += WINDOW) {
      if (this.restartAfter > 0 && this.silentWindow(joined, off)) {
        this.skippedWindows++;
        const start = this.consumed / VAD_RATE;
        this.consumed += WINDOW;
        out.push({ start, end: this.consumed / VAD_RATE, p: 0 });
        continue;
      }
      const input = new Float32Array(CONTEXT + WINDOW);
      input.set(this.context);
      input.set(joined.subarray(off, off + WINDOW), CONTEXT);
      const res = await this.session.run({
        input: new this.ort.Tensor('float32', input, [1, input.length]),
        state: new this.ort.Tensor('float32', this.state, [2, 1, 128]),
        sr: this.sr,
      });
      const [probName, stateName] = this.session.outputNames as [string, string];
      this.state = new Float32Array(res[stateName]!.data as Float32Array);
      this.context = input.slice(input.length - CONTEXT);
      const start = this.consumed / VAD_RATE;
      this.consumed += WINDOW;
      out.push({ start, end: this.consumed / VAD_RATE, p: (res[probName]!.data as Float32Array)[0]! });
    }
    this.pending = joined.slice(off);
    return out;
  }

  /** Counts digital silence; true (and the stream started again) once it is past the limit. */
  private silentWindow(samples: Float32Array, off: number): boolean {
    for (let i = off; i < off + WINDOW; i++) {
      if (samples[i] !== 0) {
        this.zeroRun = 0;
        return false;
      }
    }
    if (++this.zeroRun <= this.restartAfter) return false;
    if (this.zeroRun === this.restartAfter + 1) {
      this.state = this.restartState!.slice();
      this.context.fill(0);
    }
    return true;
  }
}

/** Speech segments of a whole recording (16 kHz), for file transcription. */
export async function speechSegments(
  samples: Int16Array,
  endpointingMs = 700,
): Promise<{ start: number; end: number }[]> {
  const { Endpointer } = await import('./endpointer.ts');
  const vad = await SileroStream.create();
  const ep = new Endpointer({ endpointingMs });
  const segments: { start: number; end: number }[] = [];
  for (const w of await vad.push(samples)) {
    for (const e of ep.push(w.p, w.start, w.end)) if (e.type === 'end') segments.push({ start: e.start, end: e.at });
  }
  const last = ep.flush();
  if (last?.type === 'end') segments.push({ start: last.start, end: last.at });
  return segments;
}

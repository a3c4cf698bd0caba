import { cancelTimer } from '../transport/cancel-timer.ts';
import type { Llm, LlmEvent, LlmRequest } from './types.ts';

/** Minimal clock: `sleep` in this clock's milliseconds (a scaled clock runs faster). */
interface SleepClock {
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** How long a model may keep a caller waiting. */
export interface ModelDeadlines {
  /** No first token (text or tool call) within this: the request is given up. 0 = none. @default 8000 */
  firstTokenMs: number;
  /** No new token for this long once the answer started: given up too. 0 = none. @default 8000 */
  idleMs: number;
  /** The filler line is spoken when the first token takes longer than this. 0 = never. @default 2000 */
  fillerAfterMs: number;
}

/** Default model deadlines: 8 s to the first token, 8 s between tokens, a filler line after 2 s. */
export const DEFAULT_MODEL_DEADLINES: ModelDeadlines = { firstTokenMs: 8000, idleMs: 8000, fillerAfterMs: 2000 };

/** The model missed a deadline; the request to it was aborted. */
export class ModelTimeoutError extends Error {
  override name = 'ModelTimeoutError';
  constructor(
    readonly phase: 'first-token' | 'idle',
    readonly ms: number,
  ) {
    super(phase === 'first-token' ? `no first token within ${ms} ms` : `no token for ${ms} ms`);
  }
}

const TIMEOUT = Symbol('timeout');

/** The next value of `it`, or TIMEOUT when `ms` pass first (the pending next is kept). */
async function nextWithin<T>(pending: Promise<IteratorResult<T>>, ms: number, clock: SleepClock): Promise<IteratorResult<T> | typeof TIMEOUT> {
  if (!ms) return pending;
  const stop = new AbortController();
  const timeout = (): typeof TIMEOUT => TIMEOUT;
  const timer = clock.sleep(ms, stop.signal).then(timeout, timeout);
  try {
    return await Promise.race([pending, timer]);
  } finally {
    cancelTimer(stop);
  }
}

/**
 * An Llm whose every request must start answering within `firstTokenMs` and keep answering
 * with gaps under `idleMs`; otherwise the request is aborted and ModelTimeoutError thrown. Tool
 * execution happens between requests, so it never counts against the model.
 */
export function withDeadlines(llm: Llm, deadlines: Pick<ModelDeadlines, 'firstTokenMs' | 'idleMs'>, clock: SleepClock): Llm {
  return {
    name: llm.name,
    async *stream(req: LlmRequest): AsyncGenerator<LlmEvent> {
      const ctrl = new AbortController();
      const onAbort = () => ctrl.abort(req.signal.reason);
      req.signal.addEventListener('abort', onAbort, { once: true });
      const it = llm.stream({ ...req, signal: ctrl.signal })[Symbol.asyncIterator]();
      let started = false;
      try {
        for (;;) {
          const ms = started ? deadlines.idleMs : deadlines.firstTokenMs;
          const next = await nextWithin(it.next(), ms, clock);
          if (next === TIMEOUT) {
            ctrl.abort(new ModelTimeoutError(started ? 'idle' : 'first-token', ms));
            void it.return?.()?.catch(() => {});
            throw new ModelTimeoutError(started ? 'idle' : 'first-token', ms);
          }
          if (next.done) return;
          started = true;
          yield next.value;
        }
      } finally {
        req.signal.removeEventListener('abort', onAbort);
      }
    },
  };
}

/**
 * Passes `source` through, and yields `{type:'slow'}` once if its first item takes longer
 * than `ms`: the moment to say a filler line while the model thinks.
 */
export async function* noticeSlowStart<T>(source: AsyncIterable<T>, ms: number, clock: SleepClock): AsyncGenerator<T | { type: 'slow' }> {
  const it = source[Symbol.asyncIterator]();
  let pending = it.next();
  if (ms > 0) {
    const first = await nextWithin(pending, ms, clock);
    if (first === TIMEOUT) yield { type: 'slow' };
    else {
      if (first.done) return;
      yield first.value;
      pending = it.next();
    }
  }
  for (;;) {
    const n = await pending;
    if (n.done) return;
    yield n.value;
    pending = it.next();
  }
}

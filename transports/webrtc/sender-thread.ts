import { Worker } from 'node:worker_threads';
import { AGENT_OUTPUT_DEFAULTS, type AgentOutputOptions } from './agent-output.ts';
import { PACKET_CLOCK_DEFAULTS, type PacketClockOptions } from './packet-clock.ts';
import { RECORD, RECORD_FIELDS, type FromSender, type SenderThreadData, type ToSender } from './sender-protocol.ts';
import { ThreadedOutput } from './threaded-output.ts';

export interface SenderPoolOptions {
  /**
   * Calls a sender thread carries before the pool starts another. One thread holds the clock,
   * the encoders and the sends of all its calls; a thread that fails ends only its own calls.
   * @default 100
   */
  callsPerThread?: number;
  /** The sender threads' packet clock. */
  clock?: PacketClockOptions;
  /** URL of a module each thread loads before any call, `attach(clock)` (see `SenderThreadData.observer`). */
  observer?: string;
  /** Hears a thread that failed (its calls end). */
  onFailure?: (err: Error) => void;
}

export const SENDER_POOL_DEFAULTS = { callsPerThread: 100 } as const;

/** Compiled (dist/*.js) or run from the sources through tsx (a clone): the worker's file follows. */
const FROM_SOURCES = import.meta.url.endsWith('.ts');
const SENDER_WORKER = new URL(FROM_SOURCES ? './sender-worker.ts' : './sender-worker.js', import.meta.url).href;
/**
 * Worker threads do not inherit tsx's module hooks (registered per thread), so from the sources
 * the thread registers them itself before it loads the TypeScript sender. tsx is resolved here,
 * from hiwar's own files: an eval'd thread resolves bare names from the process's working
 * directory, which need not hold hiwar's node_modules. The compiled package needs no tsx.
 */
const BOOTSTRAP = FROM_SOURCES
  ? `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))}; register(); await import(${JSON.stringify(SENDER_WORKER)});`
  : `await import(${JSON.stringify(SENDER_WORKER)});`;

/** One sender thread, seen from the main thread: its calls' outputs, and requests awaiting a reply. */
class SenderThread {
  private readonly worker: Worker;
  readonly outputs = new Map<number, ThreadedOutput>();
  private readonly pending = new Map<number, (m: Extract<FromSender, { t: 'reply' }> | undefined) => void>();
  private nextReq = 0;
  private closing = false;
  failure: Error | undefined;

  constructor(
    data: SenderThreadData,
    private readonly onFailure: (thread: SenderThread, err: Error) => void,
  ) {
    this.worker = new Worker(BOOTSTRAP, { eval: true, workerData: data, name: 'hiwar-agent-sender' });
    // The thread never keeps the process alive by itself: calls do.
    this.worker.unref();
    this.worker.on('message', (m: FromSender) => this.onMessage(m));
    this.worker.on('error', (err) => this.fail(new Error(`the agent audio sender thread failed: ${err.message}`)));
    this.worker.on('exit', (code) => {
      if (!this.closing) this.fail(new Error(`the agent audio sender thread stopped (exit code ${code})`));
    });
  }

  private onMessage(m: FromSender): void {
    if (m.t === 'tick') {
      const r = m.records;
      for (let at = 0; at < r.length; at += RECORD_FIELDS) this.outputs.get(r[at + RECORD.id]!)?.apply(r, at);
    } else {
      this.pending.get(m.req)?.(m);
      this.pending.delete(m.req);
    }
  }

  private fail(err: Error): void {
    if (this.failure) return;
    this.failure = err;
    for (const resolve of this.pending.values()) resolve(undefined);
    this.pending.clear();
    const outputs = [...this.outputs.values()];
    this.outputs.clear();
    this.onFailure(this, err);
    for (const o of outputs) o.fail(err);
  }

  private post(m: ToSender, transfer: ArrayBuffer[] = []): void {
    if (!this.failure && !this.closing) this.worker.postMessage(m, transfer);
  }

  request(m: { t: 'clear'; id: number } | { t: 'observe'; msg: unknown }): Promise<Extract<FromSender, { t: 'reply' }> | undefined> {
    if (this.failure || this.closing) return Promise.resolve(undefined);
    const req = this.nextReq++;
    return new Promise((resolve) => {
      this.pending.set(req, resolve);
      this.post({ ...m, req });
    });
  }

  open(id: number, out: ThreadedOutput, host: string, port: number, opts: AgentOutputOptions & { ssrc: number }): void {
    this.outputs.set(id, out);
    this.post({ t: 'open', id, host, port, opts });
    out.attach({
      write: (samples) => this.post({ t: 'write', id, samples }, [samples.buffer as ArrayBuffer]),
      clear: async () => (await this.request({ t: 'clear', id }))?.records,
      close: () => {
        if (this.outputs.delete(id)) this.post({ t: 'close', id });
      },
    });
  }

  /** Stops the thread: it exits from its own JavaScript, never in the middle of an encode. */
  async close(): Promise<void> {
    if (this.failure || this.closing) return;
    this.post({ t: 'shutdown' });
    this.closing = true;
    await new Promise((resolve) => this.worker.once('exit', resolve));
  }

  /** Tests: the thread fails as it would on an uncaught exception. */
  crash(): void {
    this.post({ t: 'crash' });
  }
}

/**
 * The sender threads of a process: each agent output goes to a thread with room
 * (`callsPerThread`), a new one starts when none has. A thread that fails is dropped: its calls
 * fail (their sessions end with a clear error) and the next call gets a new thread.
 */
export class SenderPool {
  private readonly threads: SenderThread[] = [];
  private readonly callsPerThread: number;
  private readonly data: SenderThreadData;
  private nextId = 1;
  private closed = false;

  constructor(private readonly opts: SenderPoolOptions = {}) {
    this.callsPerThread = opts.callsPerThread ?? SENDER_POOL_DEFAULTS.callsPerThread;
    this.data = { clock: { ...PACKET_CLOCK_DEFAULTS, ...opts.clock, manual: false }, observer: opts.observer };
  }

  /** A new output for one call; its packets go to the PlainTransport listening at host:port. */
  output(host: string, port: number, opts: AgentOutputOptions & { ssrc: number }): ThreadedOutput {
    if (this.closed) throw new Error('the agent sender pool is closed');
    const thread = this.threads.find((t) => t.outputs.size < this.callsPerThread) ?? this.start();
    const out = new ThreadedOutput(opts.sampleRate ?? AGENT_OUTPUT_DEFAULTS.sampleRate, opts.ssrc);
    thread.open(this.nextId++, out, host, port, opts);
    return out;
  }

  private start(): SenderThread {
    const thread = new SenderThread(this.data, (t, err) => {
      const i = this.threads.indexOf(t);
      if (i >= 0) this.threads.splice(i, 1);
      this.opts.onFailure?.(err);
    });
    this.threads.push(thread);
    return thread;
  }

  /** Starts a thread now if there is none, so the first call does not wait for one. */
  warm(): void {
    if (!this.closed && !this.threads.length) this.start();
  }

  /** Live threads (tests and the bench). */
  get size(): number {
    return this.threads.length;
  }

  /** Sends `msg` to every thread's observer module; their answers, in thread order. */
  async observe(msg: unknown): Promise<unknown[]> {
    const replies = await Promise.all(this.threads.map((t) => t.request({ t: 'observe', msg })));
    return replies.map((r) => {
      if (r?.error) throw new Error(r.error);
      return r?.value;
    });
  }

  /** Tests: makes the thread carrying `out` fail as on an uncaught exception. */
  crashThreadOf(out: ThreadedOutput): void {
    this.threads.find((t) => [...t.outputs.values()].includes(out))?.crash();
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.threads.splice(0).map((t) => t.close()));
  }
}

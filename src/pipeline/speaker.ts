import { Subscription } from '../rx.ts';
import { bytesToPcm } from '../audio/wav.ts';
import { collectPcm } from '../service/rest/audio-stream.ts';
import type { ServiceClient } from '../service/client.ts';
import { AuthenticationError, InsufficientBalanceError, PermissionDeniedError, RateLimitError, ServiceError } from '../service/errors.ts';
import { backoffDelay, sleep } from '../service/retry.ts';
import { runTimers } from '../service/run-time.ts';
import type { TtsEvent, TtsOutputFormat, TtsSocket } from '../service/ws/tts.ts';
import type { GenerationEndOptions } from '../service/ws/tts-generation.ts';
import type { CloseInfo } from '../service/ws/close-codes.ts';
import type { Clock } from '../transport/clock.ts';
import type { SpeechSink } from './playout.ts';
import { fixedLinesOf, type RenderedAudio } from './fixed-lines.ts';
import { resumePoint } from './resume-point.ts';

/** A piece of a reply: the text as written (for the history) and as it is to be spoken. */
export interface SpeechChunk {
  text: string;
  spoken: string;
}

/** The agent's voice: the voice id, model and synthesis settings, and when to fall back to HTTP. */
export interface SpeakerOptions {
  voice_id: string;
  /** @default the client's `models.tts` */
  model_id?: string;
  /** How the end of each chunk's audio is found on the socket (see tts-generation.ts). */
  generationEnd?: GenerationEndOptions;
  /**
   * The transport's rate. The socket is asked for it when it offers it, else for 24 kHz (the
   * output converts); HTTP synthesis is asked for it directly.
   */
  sampleRate: number;
  speed?: number;
  /**
   * Without audio this long (real milliseconds: the service's latency does not scale with a
   * simulated clock; time this process was starved of CPU does not count) after text was sent,
   * the socket is given up for HTTP. Twice this for the
   * later chunks of a reply: the socket has already answered, and each chunk waits for the
   * previous one's audio to end before it goes out.
   * @default 3000
   */
  firstAudioTimeoutMs?: number;
  /**
   * Retries of an HTTP synthesis refused with 429, spaced by the client's backoff policy
   * (`retryBaseMs`, the server's Retry-After).
   * @default 3
   */
  rateLimitRetries?: number;
}

/** Defaults of the speaker: 3 s for the socket's first audio, three retries on 429. */
export const SPEAKER_DEFAULTS = { firstAudioTimeoutMs: 3000, rateLimitRetries: 3 } satisfies Partial<SpeakerOptions>;

/**
 * Why the socket was given up for HTTP: it did not open, it said nothing within
 * `firstAudioTimeoutMs` of the text (a busy machine or a slow service), its audio stopped
 * mid-sentence, it reported an error, or it closed.
 */
export type FallbackCause = 'open-failed' | 'no-audio' | 'stalled' | 'socket-error' | 'socket-closed';

/**
 * What the speaker tells its owner: the switch to HTTP, with its cause, a line a reader acts on,
 * and what the socket said when it said something (its error, its close), for classifying.
 */
export type SpeakerNotice = { type: 'fallback'; cause: FallbackCause; reason: string; error?: unknown; close?: CloseInfo };

/** A cause and its line, as the notice carries them. */
type Failure = Omit<SpeakerNotice, 'type'>;

/** Thrown when the service refuses to speak at all (wallet, access). */
export class SpeakerFatal extends Error {
  constructor(readonly error: ServiceError) {
    super(error.message);
  }
}

const SOCKET_RATES: Record<number, TtsOutputFormat> = { 8000: 'pcm_8000', 16000: 'pcm_16000', 22050: 'pcm_22050', 24000: 'pcm_24000' };
/** What the socket is asked for when it cannot give the transport's rate: its best. */
const SOCKET_BEST_RATE = 24000;
/**
 * Fixed lines are rendered at the service's best socket rate whatever the transport: one
 * rendering then serves calls on every transport (8 kHz phone lines to 48 kHz WebRTC).
 */
export const FIXED_LINE_RATE = SOCKET_BEST_RATE;

/** Why the socket was given up, in words a log reader acts on. */
function openFailure(err: Error): string {
  if (err instanceof AuthenticationError) {
    return `authentication failed on the TTS socket (${err.errorCode ?? err.status} ${err.errorMessage}); check the key and the socket's auth mode`;
  }
  return `socket failed to open: ${err.message}`;
}

/**
 * The agent's voice: the TTS socket, one flushed generation per chunk and one in flight at a
 * time, so that chunk boundaries are known in the audio whatever the server's isFinal means, and an HTTP-per-sentence fallback behind the same call
 * when the socket fails or stays silent.
 */
export class Speaker {
  private socket: TtsSocket | undefined;
  mode: 'socket' | 'http' = 'socket';
  /** The chunk whose socket audio stopped part-way, and how many seconds of it were voiced. */
  private stalled: { chunk: SpeechChunk; seconds: number } | undefined;

  constructor(
    private readonly client: ServiceClient,
    private readonly opts: SpeakerOptions,
    private readonly clock: Clock,
    private readonly notify: (n: SpeakerNotice) => void = () => {},
  ) {}

  /** Rate the socket is asked for: the transport's when the socket has it, else 24 kHz. */
  get socketRate(): number {
    return SOCKET_RATES[this.opts.sampleRate] ? this.opts.sampleRate : SOCKET_BEST_RATE;
  }

  async start(): Promise<void> {
    try {
      this.socket = await this.client.openTts({
        voice_id: this.opts.voice_id,
        model_id: this.modelId,
        output_format: SOCKET_RATES[this.socketRate],
        generationEnd: this.opts.generationEnd,
        voice_settings: this.opts.speed ? { speed: this.opts.speed } : undefined,
      });
    } catch (err) {
      if (err instanceof InsufficientBalanceError || err instanceof PermissionDeniedError) throw new SpeakerFatal(err);
      this.fallback({ cause: 'open-failed', reason: openFailure(err as Error), error: err });
    }
  }

  private get modelId(): string {
    return this.opts.model_id ?? this.client.config.models.tts;
  }

  private fallback(failure: Failure): void {
    if (this.mode === 'http') return;
    this.mode = 'http';
    this.notify({ type: 'fallback', ...failure });
    void this.socket?.close().catch(() => {});
    this.socket = undefined;
  }

  /**
   * Voices chunks as they come, into `sink`. Resolves when all their audio is in the sink;
   * throws SpeakerFatal when the service refuses (402, 403).
   */
  async speak(chunks: AsyncIterable<SpeechChunk>, sink: SpeechSink, signal: AbortSignal, onFirstAudio?: (at: number) => void): Promise<void> {
    // This stage owns the generations: a cut-off reply's text still in the service is dropped
    // there, so it never comes out as the start of the next reply.
    const onAbort = () => this.socket?.clear();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      await this.speakChunks(chunks, sink, signal, onFirstAudio);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  private async speakChunks(chunks: AsyncIterable<SpeechChunk>, sink: SpeechSink, signal: AbortSignal, onFirstAudio?: (at: number) => void): Promise<void> {
    const pending: SpeechChunk[] = [];
    let firstAudio = false;
    const onFirst = () => {
      if (!firstAudio) onFirstAudio?.(this.clock.now());
      firstAudio = true;
    };
    if (this.mode === 'socket' && this.socket?.isOpen) {
      this.stalled = undefined;
      const leftover = await this.viaSocket(chunks, sink, signal, pending, onFirst);
      if (signal.aborted || !leftover) return;
      // The socket gave up mid-reply: the chunks not yet voiced go over HTTP, a sentence cut off
      // mid-way from where its audio stopped.
      const stalled = this.stalled as Speaker["stalled"];
      for (const text of pending) {
        const from = stalled?.chunk === text ? stalled.seconds : undefined;
        await this.viaHttp(text, sink, signal, onFirst, from);
      }
      pending.length = 0;
      for await (const text of leftover) await this.viaHttp(text, sink, signal, onFirst);
      return;
    }
    for await (const text of chunks) {
      if (signal.aborted) return;
      await this.viaHttp(text, sink, signal, onFirst);
    }
  }

  /** Returns the rest of the chunks when the socket failed, undefined when all went through. */
  private async viaSocket(
    chunks: AsyncIterable<SpeechChunk>,
    sink: SpeechSink,
    signal: AbortSignal,
    pending: SpeechChunk[],
    onFirst: () => void,
  ): Promise<AsyncIterable<SpeechChunk> | undefined> {
    const socket = this.socket!;
    let segmentOpen = false;
    let segmentSeconds = 0;
    let failed: Failure | undefined;
    let fatal: ServiceError | undefined;
    let wake: () => void = () => {};
    let timer: unknown;
    let voiced = 0;
    const sub = new Subscription();
    // Chunks of `pending` already sent. One generation in flight until the socket knows its
    // server's end markers (TtsSocket.canPipeline), then each chunk as soon as it comes.
    let sent = 0;
    const sendMore = () => {
      while (sent < pending.length && (sent === 0 || socket.canPipeline) && socket.isOpen && !signal.aborted) {
        if (sent === 0 && !segmentOpen) armTimer();
        socket.sendText(`${pending[sent++]!.spoken} `, { flush: true });
      }
    };
    sub.add(
      socket.events$.subscribe((e: TtsEvent) => {
        // Once given up, the socket's late audio must not mix with what HTTP now voices.
        if (failed || fatal) return;
        if (e.type === 'audio' && pending.length) {
          if (!segmentOpen) sink.beginSegment(pending[0]!.text, pending[0]!.spoken);
          if (!segmentOpen) segmentSeconds = 0;
          segmentOpen = true;
          segmentSeconds += e.pcm.length / e.sampleRate;
          onFirst();
          sink.append(e.pcm, e.sampleRate);
          // Re-armed on every piece, once the piece is on its way to the caller (the timer's
          // clear and set cost the first audio 0.05–0.07 ms before): audio that stops
          // mid-sentence is caught too. Once a piece says it is the last, the socket's
          // generation-end rule (quiet gap, or its stall rule) decides: the watchdog must not
          // take that gap for a stall.
          if (e.isFinal) runTimers.clear(timer);
          else armTimer();
        } else if (e.type === 'final') {
          runTimers.clear(timer);
        } else if (e.type === 'generationEnd' && e.stalled && segmentOpen && pending.length) {
          // Audio that stopped with no end mark is a sentence cut off, not a finished one: the
          // rest of it comes over HTTP from where it stopped (the socket's stall rule may fire
          // before this stage's own watchdog).
          stopMidSentence();
        } else if (e.type === 'generationEnd' && pending.length) {
          if (!segmentOpen) sink.beginSegment(pending[0]!.text, pending[0]!.spoken);
          sink.closeSegment();
          segmentOpen = false;
          pending.shift();
          sent = Math.max(0, sent - 1);
          voiced++;
          sendMore();
          runTimers.clear(timer);
          if (pending.length) armTimer();
        } else if (e.type === 'error') {
          if (e.error instanceof InsufficientBalanceError || e.error instanceof PermissionDeniedError) fatal = e.error;
          else {
            keepCut();
            if (e.error instanceof AuthenticationError) failed = { cause: 'socket-error', reason: openFailure(e.error), error: e.error };
            else failed = { cause: 'socket-error', reason: `socket error: ${e.error.errorMessage || e.error.message}`, error: e.error };
          }
        } else if (e.type === 'closed') {
          keepCut();
          failed ??= { cause: 'socket-closed', reason: `socket closed (${e.close.code}${e.close.reason ? ` ${e.close.reason}` : ''})`, close: e.close };
        }
        wake();
      }),
    );
    // A sentence whose audio stopped part-way, whatever stopped it (a stall, the socket closing
    // or failing): HTTP voices the rest from where it stopped, not all of it again (the caller
    // would hear its start twice).
    const keepCut = () => {
      if (segmentOpen && pending.length) this.stalled ??= { chunk: pending[0]!, seconds: segmentSeconds };
    };
    const stopMidSentence = () => {
      runTimers.clear(timer);
      this.stalled = { chunk: pending[0]!, seconds: segmentSeconds };
      failed ??= { cause: 'stalled', reason: `audio stopped mid-sentence after ${segmentSeconds.toFixed(1)} s` };
    };
    const armTimer = () => {
      runTimers.clear(timer);
      const waitMs = (this.opts.firstAudioTimeoutMs ?? SPEAKER_DEFAULTS.firstAudioTimeoutMs) * (voiced ? 2 : 1);
      // Run time: while this process is starved, audio that has come waits unread.
      timer = runTimers.set(() => {
        if (segmentOpen && pending.length) stopMidSentence();
        // Counted in this process's run time, so a slow service (or a machine too busy to give
        // the service its CPU) shows here: the line says how long it waited and what sets it.
        failed ??= { cause: 'no-audio', reason: `no audio from the socket ${waitMs} ms after the text was sent (firstAudioTimeoutMs: a slow service or a busy machine)` };
        wake();
      }, waitMs);
    };
    const iterator = chunks[Symbol.asyncIterator]();
    try {
      for (;;) {
        const next = await iterator.next();
        if (signal.aborted) return undefined;
        if (fatal) throw new SpeakerFatal(fatal);
        if (failed) {
          // A sentence cut off mid-way stays open: HTTP voices the rest of it into the same segment.
          if (segmentOpen && !this.stalled) sink.closeSegment();
          this.fallback(failed);
          return rest(next, iterator);
        }
        if (next.done) break;
        pending.push(next.value);
        sendMore();
      }
      // Wait for the audio of every chunk sent.
      const onAbort = () => wake();
      signal.addEventListener('abort', onAbort, { once: true });
      while (pending.length && !failed && !fatal && !signal.aborted) {
        if (!segmentOpen) armTimer();
        await new Promise<void>((r) => (wake = r));
      }
      signal.removeEventListener('abort', onAbort);
      if (fatal) throw new SpeakerFatal(fatal);
      if (failed && pending.length && !signal.aborted) {
        if (segmentOpen && !this.stalled) sink.closeSegment();
        this.fallback(failed);
        return (async function* (): AsyncGenerator<SpeechChunk> {})();
      }
      return undefined;
    } finally {
      runTimers.clear(timer);
      sub.unsubscribe();
    }
  }

  /**
   * One chunk over HTTP. With `fromSeconds`, the chunk's segment is already open with that much
   * of its audio: the rest is voiced from the same point of a fresh rendering.
   */
  private async viaHttp(chunk: SpeechChunk, sink: SpeechSink, signal: AbortSignal, onFirst: () => void, fromSeconds?: number): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const stream = await this.client.synthesizeStream(
          this.modelId,
          { voice_id: this.opts.voice_id, text: chunk.spoken, sample_rate: this.opts.sampleRate, speed: this.opts.speed },
          { signal },
        );
        if (fromSeconds !== undefined) {
          const rate = this.opts.sampleRate;
          const pcm = await collectPcm(stream);
          const cut = resumePoint(pcm, Math.round(fromSeconds * rate), Math.round(0.15 * rate), rate);
          if (cut < pcm.length) {
            onFirst();
            sink.append(pcm.subarray(cut), rate);
          }
          sink.closeSegment();
          return;
        }
        sink.beginSegment(chunk.text, chunk.spoken);
        // The stream hands out whole samples only, at the rate its content type declares.
        for await (const bytes of stream) {
          onFirst();
          sink.append(new Int16Array(bytesToPcm(bytes)), stream.sampleRate);
        }
        sink.closeSegment();
        return;
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof InsufficientBalanceError || err instanceof PermissionDeniedError) throw new SpeakerFatal(err);
        const retries = this.opts.rateLimitRetries ?? SPEAKER_DEFAULTS.rateLimitRetries;
        if (err instanceof RateLimitError && attempt < retries) {
          // Real time: the service's rate window does not run faster with a simulated clock.
          const wait = backoffDelay(attempt, { baseMs: this.client.config.retryBaseMs }, err.retryAfterMs);
          await sleep(wait, signal).catch(() => {});
          continue;
        }
        throw err;
      }
    }
  }

  /**
   * A fixed line (kept ready in advance), rendered over HTTP once per process and client at
   * FIXED_LINE_RATE and shared by every call in this voice (fixed-lines.ts); outputs resample.
   */
  render(text: string): Promise<RenderedAudio> {
    const key = { modelId: this.modelId, voiceId: this.opts.voice_id, sampleRate: FIXED_LINE_RATE, speed: this.opts.speed, text };
    return fixedLinesOf(this.client).get(key, async () => {
      const stream = await this.client.synthesizeStream(this.modelId, { voice_id: key.voiceId, text, sample_rate: key.sampleRate, speed: key.speed });
      return { samples: await collectPcm(stream), sampleRate: stream.sampleRate };
    });
  }

  async close(): Promise<void> {
    await this.socket?.close().catch(() => {});
  }
}

/** The chunk just read (if any) followed by the rest of the iterator. */
function rest(first: IteratorResult<SpeechChunk>, iterator: AsyncIterator<SpeechChunk>): AsyncIterable<SpeechChunk> {
  return (async function* () {
    if (!first.done) yield first.value;
    for (;;) {
      const n = await iterator.next();
      if (n.done) return;
      yield n.value;
    }
  })();
}

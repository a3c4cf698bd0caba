import { performance } from 'node:perf_hooks';
import { filter, firstValueFrom, type Observable } from '../../rx.ts';
import type WebSocket from 'ws';
import type { ServiceConfig } from '../config.ts';
import { ProtocolError, ValidationError, redact } from '../errors.ts';
import {
  checkEndpointing,
  checkListenLanguage,
  checkListenSampleRate,
  checkModelId,
} from '../validate.ts';
import { processRunTime, runTimers } from '../run-time.ts';
import { classifyClose } from './close-codes.ts';
import { toListenEvent, type ListenCloseMetadata, type ListenEvent, type ListenOpenMetadata } from './listen-events.ts';
import { EventChannel } from './channel.ts';
import { DEFAULT_LIVENESS, ListenWatchdog, type ListenLiveness } from './listen-liveness.ts';
import { MAX_UPLINK_MS, UPLINK_DEFAULTS, UplinkBatcher, type UplinkOptions } from './listen-uplink.ts';
import { openSocket, parseJsonObject, type SocketCallOptions } from './open.ts';

/** Options of the `/listen` socket: model, language, rate, endpointing and authentication. */
export interface ListenOptions extends SocketCallOptions {
  /** Any id: `munsit`, `munsit-en-ar`, `asr`, `asr-en-ar`… @default the client's `models.stt` */
  model?: string;
  sample_rate?: 8000 | 16000;
  language?: 'ar' | 'auto' | 'en' | 'ar-en';
  timestamps?: boolean;
  interim_results?: boolean;
  /** Silence (ms, 100..5000) that ends a turn on the server. */
  endpointing?: number;
  smart_turn?: boolean;
  hotwords?: string[];
  correlation_id?: string;
  metadata?: string;
  /** Send KeepAlive after this long without audio (default 5000 ms; 0 = never). */
  keepAliveMs?: number;
  /**
   * Audio is sent in messages of this many milliseconds in steady speech or silence (shorter
   * pieces are gathered first), so 20 ms telephony frames need not each cost a WebSocket message
   * and a write. The edges of speech are not delayed: a piece crossing `uplinkSpeechLevel`, and
   * the one completing `endpointing` after speech, go at once (see listen-uplink.ts). 0: each
   * `sendAudio` is one message, as given. Up to 200 ms.
   * @default LISTEN_DEFAULTS.uplinkFrameMs
   */
  uplinkFrameMs?: number;
  /**
   * Message length in settled quiet: before the caller's first speech, and once the `endpointing`
   * window after speech is complete. The next start of speech goes at once with what was gathered,
   * so this delays nothing the service acts on. Never shorter than `uplinkFrameMs`; up to 200 ms.
   * @default LISTEN_DEFAULTS.uplinkQuietFrameMs
   */
  uplinkQuietFrameMs?: number;
  /**
   * Mean absolute PCM16 sample above which a piece of audio is speech, for the uplink's flushes
   * at the edges of speech. @default LISTEN_DEFAULTS.uplinkSpeechLevel
   */
  uplinkSpeechLevel?: number;
  /** Liveness checks that turn a black-holed connection into a dropped one (see `ListenLiveness`). */
  liveness?: Partial<ListenLiveness>;
}

export const LISTEN_DEFAULTS = {
  /** @default 5000 */
  keepAliveMs: 5000,
  /**
   * 100 ms (as the service's other clients send): one write per 100 ms of steady audio instead
   * of one per 20 ms telephony frame; the edges of speech still go at once, so the end of speech
   * reaches the server no later (docs/performance.md).
   * @default 100
   */
  uplinkFrameMs: UPLINK_DEFAULTS.chunkMs,
  /**
   * 200 ms (the protocol's longest message): half the writes while the caller listens.
   * @default 200
   */
  uplinkQuietFrameMs: UPLINK_DEFAULTS.quietChunkMs,
  /** @default 250 (about −42 dBFS) */
  uplinkSpeechLevel: UPLINK_DEFAULTS.speechLevel,
};

export { DEFAULT_LIVENESS, type ListenLiveness } from './listen-liveness.ts';

/** ws's send options for audio, one object for every frame of every call. */
const BINARY = { binary: true } as const;

/**
 * The live speech-to-text socket. Audio goes in as PCM16 little-endian binary frames; typed
 * events come out on `events$`. `finish()` follows the protocol's close: CloseStream, then the
 * final results and the closing Metadata, then the server's close.
 */
export class ListenSocket {
  readonly events$: Observable<ListenEvent>;
  readonly sampleRate: number;
  private readonly subject = new EventChannel<ListenEvent>();
  private openMeta: Promise<ListenOpenMetadata>;
  private resolveOpen!: (m: ListenOpenMetadata) => void;
  private keepAliveTimer: NodeJS.Timeout | undefined;
  /** performance.now() of the last message sent: the keep-alive timer checks it when it fires. */
  private lastSentAt = 0;
  /** Cuts the caller's audio into uplink messages. */
  private readonly uplink: UplinkBatcher;
  private lastError: string | undefined;
  private closed = false;
  private livenessTimer: NodeJS.Timeout | undefined;
  private readonly watchdog: ListenWatchdog;
  private deadReason: string | undefined;

  private constructor(
    private readonly ws: WebSocket,
    sampleRate: number,
    private readonly keepAliveMs: number,
    uplink: UplinkOptions,
    /** The key: removed from server text (close reasons, Error events) before anyone sees it. */
    secret?: string,
    private readonly liveness: ListenLiveness = DEFAULT_LIVENESS,
  ) {
    this.sampleRate = sampleRate;
    this.uplink = new UplinkBatcher(sampleRate, uplink, (message) => {
      // Measured before sending: masking may rewrite the bytes. ws takes any typed array.
      this.watchdog.sent(message, this.sampleRate);
      this.ws.send(message, BINARY);
      this.lastSentAt = performance.now();
    });
    this.events$ = this.subject.events$;
    this.watchdog = new ListenWatchdog(liveness, processRunTime.now());
    this.openMeta = new Promise((resolve) => (this.resolveOpen = resolve));
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      this.watchdog.heard();
      const text = data.toString();
      const frame = parseJsonObject(text);
      let event: ListenEvent = frame ? toListenEvent(frame, text) : { type: 'Malformed', raw: text };
      // The raw text is kept only for a frame not understood (redacted before it is cut, so no part
      // of the key survives): the key is not looked for in every transcript.
      if (event.type === 'Malformed') event = { type: 'Malformed', raw: redact(text, secret).slice(0, 200) };
      if (event.type === 'Error') event = { ...event, message: redact(event.message, secret) };
      if (event.type === 'Error') this.lastError = event.message;
      if (event.type === 'Metadata' && event.phase === 'open') this.resolveOpen(event);
      // The service has ended the turn: quiet from here on is settled, whatever its endpointing.
      if (event.type === 'UtteranceEnd' || (event.type === 'Results' && event.speech_final)) this.uplink.settle();
      this.subject.next(event);
    });
    ws.on('pong', () => this.watchdog.pong());
    ws.on('close', (code, reason) => {
      this.closed = true;
      this.uplink.clear();
      clearTimeout(this.keepAliveTimer);
      this.stopLiveness();
      const why = this.deadReason ?? redact(reason.toString(), secret);
      this.subject.next({ type: 'Closed', close: classifyClose(this.deadReason ? 1006 : code, why, this.lastError) });
      this.subject.complete();
    });
    ws.on('error', () => {
      // a 'close' always follows and carries the classification
    });
    this.lastSentAt = performance.now();
    this.armKeepAlive();
    this.watchLiveness();
    ws.resume();
  }

  private watchLiveness(): void {
    if (!this.watchdog.enabled) return;
    processRunTime.hold();
    this.livenessTimer = setInterval(() => {
      const action = this.watchdog.tick(processRunTime.now(), this.isOpen);
      if (action?.type === 'dead') this.dead(action.reason);
      else if (action?.type === 'ping') this.ws.ping();
    }, this.watchdog.periodMs);
    this.livenessTimer.unref();
  }

  private stopLiveness(): void {
    if (this.livenessTimer === undefined) return;
    clearInterval(this.livenessTimer);
    this.livenessTimer = undefined;
    processRunTime.release();
  }

  /** The connection is open but carries nothing: end it as a dropped one. */
  private dead(reason: string): void {
    if (this.closed || this.deadReason) return;
    this.deadReason = `connection dead: ${reason}`;
    this.stopLiveness();
    this.ws.terminate();
  }

  /** Opens `/listen` and resolves once the service accepted it. */
  static async connect(cfg: ServiceConfig, opts: ListenOptions = {}): Promise<ListenSocket> {
    const ep = '/listen';
    const model = opts.model ?? cfg.models.stt;
    checkModelId(model, ep);
    checkListenSampleRate(opts.sample_rate, ep);
    checkListenLanguage(model, opts.language, ep);
    checkEndpointing(opts.endpointing, ep);
    const chunkMs = opts.uplinkFrameMs ?? LISTEN_DEFAULTS.uplinkFrameMs;
    if (!(chunkMs >= 0 && chunkMs <= MAX_UPLINK_MS)) throw new ValidationError(`uplinkFrameMs must be from 0 to ${MAX_UPLINK_MS} ms, not ${chunkMs}`, ep);
    const sampleRate = opts.sample_rate ?? 16000;
    const ws = await openSocket(
      cfg,
      {
        path: '/listen',
        query: {
          model,
          encoding: 'linear16',
          sample_rate: sampleRate,
          channels: 1,
          language: opts.language,
          timestamps: opts.timestamps,
          interim_results: opts.interim_results,
          endpointing: opts.endpointing,
          smart_turn: opts.smart_turn,
          hotwords: opts.hotwords?.join(','),
          correlation_id: opts.correlation_id,
          metadata: opts.metadata,
        },
        auth: opts.auth ?? 'header',
        allowed: ['header', 'query'],
        queryKey: 'api_key',
        endpoint: ep,
      },
      opts,
    );
    const quietChunkMs = opts.uplinkQuietFrameMs ?? LISTEN_DEFAULTS.uplinkQuietFrameMs;
    if (!(quietChunkMs >= 0 && quietChunkMs <= MAX_UPLINK_MS)) throw new ValidationError(`uplinkQuietFrameMs must be from 0 to ${MAX_UPLINK_MS} ms, not ${quietChunkMs}`, ep);
    const uplink: UplinkOptions = {
      chunkMs,
      quietChunkMs,
      speechLevel: opts.uplinkSpeechLevel ?? LISTEN_DEFAULTS.uplinkSpeechLevel,
      endpointingMs: opts.endpointing,
    };
    return new ListenSocket(ws, sampleRate, opts.keepAliveMs ?? LISTEN_DEFAULTS.keepAliveMs, uplink, cfg.apiKey, { ...DEFAULT_LIVENESS, ...opts.liveness });
  }

  /** The Metadata the server sends on open. */
  opened(): Promise<ListenOpenMetadata> {
    return this.openMeta;
  }

  get isOpen(): boolean {
    return !this.closed && this.ws.readyState === this.ws.OPEN;
  }

  /** PCM16 mono at the socket's sample rate; any whole number of samples. */
  sendAudio(pcm: Int16Array | Uint8Array): void {
    if (!this.isOpen) throw new ProtocolError('listen socket is closed');
    if (!(pcm instanceof Int16Array) && pcm.byteLength % 2 !== 0) throw new ValidationError('audio must be whole PCM16 samples (even byte count)', '/listen');
    // Bytes at an odd offset cannot be viewed as samples: copied (rare: transports hand samples).
    const samples = pcm instanceof Int16Array ? pcm : pcm.byteOffset % 2 ? new Int16Array(pcm.slice().buffer) : new Int16Array(pcm.buffer, pcm.byteOffset, pcm.byteLength >> 1);
    this.uplink.push(samples);
  }

  /** Sends the audio gathered so far (finish() does before CloseStream). */
  flushAudio(): void {
    if (this.isOpen) this.uplink.flush();
  }

  /** Sends a KeepAlive, so a quiet socket is not closed as idle. */
  keepAlive(): void {
    if (this.isOpen) this.ws.send(JSON.stringify({ type: 'KeepAlive' }));
    this.lastSentAt = performance.now();
  }

  /**
   * One timer per socket, never re-armed per frame: when it fires it sends KeepAlive only if
   * nothing went out for `keepAliveMs`, else it sleeps for the rest of that time.
   */
  private armKeepAlive(delay = this.keepAliveMs): void {
    if (this.keepAliveMs <= 0 || this.closed) return;
    this.keepAliveTimer = setTimeout(() => {
      const idle = performance.now() - this.lastSentAt;
      if (idle >= this.keepAliveMs - 1) {
        this.keepAlive();
        this.armKeepAlive();
      } else {
        this.armKeepAlive(this.keepAliveMs - idle);
      }
    }, delay);
    this.keepAliveTimer.unref();
  }

  /**
   * Sends CloseStream and resolves with the closing Metadata once the server has closed
   * (undefined when it closed without one). Times out by terminating the socket when the server
   * has sent nothing for `timeoutMs` of run time (time this process was starved of CPU does not
   * count): a server still sending the results of audio sent ahead of real time is working.
   */
  async finish(timeoutMs = 10_000): Promise<ListenCloseMetadata | undefined> {
    if (!this.isOpen) return undefined;
    let closing: ListenCloseMetadata | undefined;
    // Run time: the server's last results and close may be waiting unread while this process is starved.
    let timer: unknown;
    const arm = () => {
      runTimers.clear(timer);
      timer = runTimers.set(() => this.ws.terminate(), timeoutMs);
    };
    const sub = this.events$.subscribe((e) => {
      if (e.type === 'Metadata' && e.phase === 'close') closing = e;
      if (e.type !== 'Closed') arm();
    });
    const done = firstValueFrom(this.events$.pipe(filter((e) => e.type === 'Closed')), { defaultValue: undefined });
    this.flushAudio();
    this.ws.send(JSON.stringify({ type: 'CloseStream' }));
    clearTimeout(this.keepAliveTimer);
    arm();
    await done;
    runTimers.clear(timer);
    sub.unsubscribe();
    return closing;
  }

  /** Closes at once; buffered audio on the server is lost (use finish() to keep it). */
  close(): void {
    clearTimeout(this.keepAliveTimer);
    this.stopLiveness();
    if (!this.closed) this.ws.close(1000);
  }
}

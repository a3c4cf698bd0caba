import { filter, firstValueFrom, type Observable } from '../../rx.ts';
import type WebSocket from 'ws';
import type { ServiceConfig } from '../config.ts';
import { ProtocolError, errorForStatus, redact, type ServiceError } from '../errors.ts';
import { runTimers } from '../run-time.ts';
import { checkOutputFormat, checkSpeed, checkStability, inRange, required } from '../validate.ts';
import { EventChannel } from './channel.ts';
import { classifyClose, type CloseInfo } from './close-codes.ts';
import { openSocket, parseFrame, type SocketCallOptions } from './open.ts';
import { GenerationEnd, type GenerationEndOptions } from './tts-generation.ts';

/** Audio formats of the TTS socket: PCM16 at 8, 16, 22.05 or 24 kHz. */
export type TtsOutputFormat = 'pcm_8000' | 'pcm_16000' | 'pcm_22050' | 'pcm_24000';

/** Options of the TTS socket: voice, model, output format, voice settings and authentication. */
export interface TtsSocketOptions extends SocketCallOptions {
  voice_id: string;
  /** Any id (`faseeh-v1-preview`, `tts-v1-preview`…). @default the client's `models.tts` */
  model_id?: string;
  voice_settings?: { stability?: number; similarity_boost?: number; speed?: number };
  output_format?: TtsOutputFormat;
  /** How the end of a flushed generation is found (see tts-generation.ts). */
  generationEnd?: GenerationEndOptions;
}

/** What the TTS socket emits: audio batches, the end of a generation, errors and the close. */
export type TtsEvent =
  /** `isFinal` as the server set it on this batch: not necessarily the end (see `generationEnd`). */
  | { type: 'audio'; pcm: Int16Array; sampleRate: number; isFinal: boolean }
  /** A message with isFinal and no audio (the spec's end marker; may come mid-generation live). */
  | { type: 'final'; sampleRate: number }
  /** End of the flushed generation in flight, by the `generationEnd` rule. */
  /**
   * `stalled`: the audio just stopped, with no isFinal after it (the `stallMs` rule): a server
   * that omits the marker, or a generation cut off mid-sentence.
   */
  | { type: 'generationEnd'; sampleRate: number; stalled: boolean }
  | { type: 'error'; error: ServiceError }
  | { type: 'malformed'; raw: string }
  | { type: 'closed'; close: CloseInfo };

const ENDPOINT = '/websocket/text-to-speech';

/** An error message on the socket as a typed error; {type:'error',message} is accepted too. */
function socketError(frame: Record<string, unknown>, key: string | undefined): ServiceError {
  const code = typeof frame.errorCode === 'number' ? frame.errorCode : Number(frame.errorCode ?? frame.code ?? 0) || undefined;
  const message = String(frame.errorMessage ?? frame.message ?? 'error');
  // Socket codes carry their HTTP status in the first three digits (40101 → 401).
  const status = code && code >= 10000 ? Math.floor(code / 100) : 500;
  return errorForStatus({ status, errorCode: code, errorMessage: redact(message, key), endpoint: ENDPOINT });
}

/**
 * Decodes straight into an aligned buffer of its own: one allocation per audio message, no copy
 * (Buffer.from would decode into the shared pool, at an offset an Int16Array cannot view).
 */
export function pcmFromBase64(b64: string): Int16Array {
  const bytes = new Uint8Array(Math.ceil((b64.length * 3) / 4));
  const n = Buffer.from(bytes.buffer, 0, bytes.byteLength).write(b64, 'base64');
  return new Int16Array(bytes.buffer, 0, n >> 1);
}

/**
 * The streaming text-to-speech socket. `connect` sends initConnection and resolves once the
 * server answers connectionInitialized (or rejects with the typed error it sent instead).
 * `clear()` has no acknowledgement from the server, so audio still in flight for the cleared
 * text is dropped here until the end of that generation or the next text sent.
 */
export class TtsSocket {
  readonly events$: Observable<TtsEvent>;
  readonly sampleRate: number;
  private readonly channel = new EventChannel<TtsEvent>();
  private dropping = false;
  private closed = false;
  private readonly generation: GenerationEnd;
  private lastRate: number;

  private constructor(
    private readonly ws: WebSocket,
    sampleRate: number,
    private readonly apiKey: string | undefined,
    generationEnd: GenerationEndOptions | undefined,
  ) {
    this.sampleRate = sampleRate;
    this.lastRate = sampleRate;
    this.events$ = this.channel.events$;
    this.generation = new GenerationEnd((stalled) => this.onGenerationEnd(stalled), generationEnd);
    ws.on('message', (data) => this.onFrame(data));
    ws.on('close', (code, reason) => {
      this.closed = true;
      this.generation.reset();
      this.channel.next({ type: 'closed', close: classifyClose(code, redact(reason.toString(), apiKey)) });
      this.channel.complete();
    });
    ws.on('error', () => {});
    ws.resume();
  }

  private onFrame(data: WebSocket.RawData): void {
    const frame = parseFrame(data);
    if (!frame) return this.channel.next({ type: 'malformed', raw: data.toString().slice(0, 200) });
    if (frame.type === 'error') return this.channel.next({ type: 'error', error: socketError(frame, this.apiKey) });
    if (frame.type === 'connectionInitialized') return;
    if (typeof frame.audio !== 'string') return this.channel.next({ type: 'malformed', raw: data.toString().slice(0, 200) });
    const rate = typeof frame.sampleRate === 'number' ? frame.sampleRate : this.sampleRate;
    const isFinal = frame.isFinal === true;
    this.lastRate = rate;
    // Audio of cleared text is dropped until its generation is over or new text goes out.
    if (!this.dropping) {
      if (frame.audio.length > 0) {
        this.channel.next({ type: 'audio', pcm: pcmFromBase64(frame.audio), sampleRate: rate, isFinal });
      } else if (isFinal) this.channel.next({ type: 'final', sampleRate: rate });
    }
    this.generation.frame(frame.audio.length > 0, isFinal);
  }

  private onGenerationEnd(stalled: boolean): void {
    if (this.dropping) {
      this.dropping = false;
      return;
    }
    this.channel.next({ type: 'generationEnd', sampleRate: this.lastRate, stalled });
  }

  /** Opens the TTS socket and sends its `initConnection`. */
  static async connect(cfg: ServiceConfig, opts: TtsSocketOptions): Promise<TtsSocket> {
    required(opts.voice_id, 'voice_id', ENDPOINT);
    checkOutputFormat(opts.output_format, ENDPOINT);
    checkStability(opts.voice_settings?.stability, ENDPOINT);
    checkSpeed(opts.voice_settings?.speed, ENDPOINT);
    inRange(opts.voice_settings?.similarity_boost, 'similarity_boost', 0, 1, ENDPOINT);
    // Real clients send the key in the query and in initConnection; header-only auth has been
    // answered 40101 by the live socket
    // (docs/service-behaviour.md#where-the-key-goes-on-the-text-to-speech-socket).
    const auth = opts.auth ?? 'query+message';
    const ws = await openSocket(
      cfg,
      {
        path: ENDPOINT,
        query: {},
        auth,
        allowed: ['query+message', 'header', 'query', 'bearer', 'message'],
        queryKey: 'x-api-key',
        endpoint: ENDPOINT,
      },
      opts,
    );
    const format = opts.output_format ?? 'pcm_24000';
    const socket = new TtsSocket(ws, Number(format.slice(4)), cfg.apiKey, opts.generationEnd);
    const init = {
      type: 'initConnection',
      model_id: opts.model_id ?? cfg.models.tts,
      voice_id: opts.voice_id,
      voice_settings: opts.voice_settings,
      output_format: format,
      ...(auth === 'message' || auth === 'query+message' ? { x_api_key: cfg.apiKey } : {}),
    };
    const ack = new Promise<void>((resolve, reject) => {
      // Run time: a connectionInitialized that came while this process stalled is read, not timed out.
      const timer = runTimers.set(() => {
        ws.terminate();
        reject(new ProtocolError(`${ENDPOINT}: no connectionInitialized within ${opts.timeoutMs ?? cfg.timeoutMs} ms`));
      }, opts.timeoutMs ?? cfg.timeoutMs);
      const onMessage = (data: WebSocket.RawData) => {
        const frame = parseFrame(data);
        if (frame?.type === 'connectionInitialized') done(() => resolve());
        else if (frame?.type === 'error') done(() => reject(socketError(frame, cfg.apiKey)));
      };
      const onClose = (code: number, reason: Buffer) =>
        done(() => reject(new ProtocolError(`${ENDPOINT}: closed during initialization (${code} ${redact(reason.toString(), cfg.apiKey)})`)));
      const done = (then: () => void) => {
        runTimers.clear(timer);
        ws.off('message', onMessage);
        ws.off('close', onClose);
        then();
      };
      ws.on('message', onMessage);
      ws.on('close', onClose);
    });
    ws.send(JSON.stringify(init));
    try {
      await ack;
    } catch (err) {
      ws.close();
      throw err;
    }
    return socket;
  }

  /**
   * Whether generations may overlap: the server's end markers are known to be reliable (see
   * tts-generation.ts). Until then, send the next flushed text after `generationEnd`.
   */
  get canPipeline(): boolean {
    return this.generation.trustsMarkers;
  }

  get isOpen(): boolean {
    return !this.closed && this.ws.readyState === this.ws.OPEN;
  }

  /**
   * Sends a chunk of text. Use `flush: true` on the last chunk so all of it is voiced. Keep one
   * flushed generation in flight when the boundaries between them matter (`generationEnd`).
   */
  sendText(text: string, opts: { flush?: boolean; try_trigger_generation?: boolean } = {}): void {
    if (!this.isOpen) throw new ProtocolError('text-to-speech socket is closed');
    if (this.dropping) this.generation.reset();
    this.dropping = false;
    this.ws.send(JSON.stringify({ type: 'text', text, flush: opts.flush ?? false, try_trigger_generation: opts.try_trigger_generation ?? false }));
  }

  /** Forces generation of whatever text is buffered. */
  flush(): void {
    this.sendText('', { flush: true });
  }

  /** Drops the server's text buffer and any audio of it still on the way. */
  clear(): void {
    if (!this.isOpen) return;
    this.dropping = true;
    this.ws.send(JSON.stringify({ type: 'clear' }));
  }

  /** Resolves at the end of the current flushed generation (by the `generationEnd` rule). */
  finalReceived(): Promise<void> {
    return firstValueFrom(this.events$.pipe(filter((e) => e.type === 'generationEnd' || e.type === 'closed'))).then(() => undefined);
  }

  /** closeConnection, then waits for the server to close. */
  async close(timeoutMs = 5000): Promise<void> {
    if (!this.isOpen) return;
    const closed = new Promise<void>((resolve) => this.ws.once('close', () => resolve()));
    this.ws.send(JSON.stringify({ type: 'closeConnection' }));
    // Run time, as the other watchdogs (src/service/run-time.ts).
    const timer = runTimers.set(() => this.ws.terminate(), timeoutMs);
    await closed;
    runTimers.clear(timer);
  }
}

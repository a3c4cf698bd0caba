import { filter, firstValueFrom, type Observable } from '../../rx.ts';
import type WebSocket from 'ws';
import type { ServiceConfig } from '../config.ts';
import { ProtocolError, ValidationError, redact } from '../errors.ts';
import { encodeWav } from '../../audio/wav.ts';
import { runTimers } from '../run-time.ts';
import { checkModelId } from '../validate.ts';
import { EventChannel } from './channel.ts';
import { classifyClose, type CloseInfo } from './close-codes.ts';
import { openSocket, parseFrame, type SocketCallOptions } from './open.ts';

/** Options of the older recognition socket: model, language, rate and authentication. */
export interface LegacySttOptions extends SocketCallOptions {
  /** Any id. @default the client's `models.stt` */
  model?: string;
  /** Seconds of audio before an interim is emitted (the server clamps to 0.1..5). */
  min_buffer_seconds?: number;
  /** Message shape for audio: {event:'audio_chunk',data:{audioBuffer}} or bare {audioBuffer}. */
  shape?: 'event' | 'bare';
  /**
   * What follows the first (WAV) chunk: raw PCM as the spec says, or each chunk wrapped as a
   * whole WAV file in the first one's format (one client reports the live server refusing raw
   * continuation chunks with "Not a valid WAV file"). @default 'raw'
   */
  chunks?: 'raw' | 'wav';
}

/** What the older recognition socket emits: transcriptions, the final text, errors and the close. */
export type LegacySttEvent =
  | { type: 'transcription'; text: string; isFinal: boolean }
  | { type: 'finalized'; text: string }
  | { type: 'transcription_error'; message: string }
  | { type: 'malformed'; raw: string }
  | { type: 'closed'; close: CloseInfo };

const ENDPOINT = '/websocket/speech-to-text';

/** The deprecated speech-to-text socket: WAV first, byte arrays, end_of_stream → finalized. */
export class LegacySttSocket {
  readonly events$: Observable<LegacySttEvent>;
  private readonly channel = new EventChannel<LegacySttEvent>();
  private sentFirst = false;
  private format: { rate: number; channels: number } | undefined;
  private ended = false;
  private closed = false;

  private constructor(
    private readonly ws: WebSocket,
    private readonly shape: 'event' | 'bare',
    private readonly chunks: 'raw' | 'wav',
    /** The key: removed from server text before anyone sees it. */
    secret?: string,
  ) {
    this.events$ = this.channel.events$;
    ws.on('message', (data) => {
      const f = parseFrame(data);
      const raw = redact(data.toString(), secret).slice(0, 200);
      if (!f) return this.channel.next({ type: 'malformed', raw });
      const text = typeof f.data === 'string' ? f.data : '';
      if (f.event === 'transcription') this.channel.next({ type: 'transcription', text, isFinal: f.isFinal === true });
      else if (f.event === 'finalized') this.channel.next({ type: 'finalized', text });
      else if (f.event === 'transcription_error') this.channel.next({ type: 'transcription_error', message: redact(text || String(f.message ?? ''), secret) });
      else this.channel.next({ type: 'malformed', raw });
    });
    ws.on('close', (code, reason) => {
      this.closed = true;
      this.channel.next({ type: 'closed', close: classifyClose(code, redact(reason.toString(), secret)) });
      this.channel.complete();
    });
    ws.on('error', () => {});
    ws.resume();
  }

  /** Opens the socket and resolves once the service accepted it. */
  static async connect(cfg: ServiceConfig, opts: LegacySttOptions = {}): Promise<LegacySttSocket> {
    const model = opts.model ?? cfg.models.stt;
    checkModelId(model, ENDPOINT);
    const ws = await openSocket(
      cfg,
      {
        path: ENDPOINT,
        query: { model, min_buffer_seconds: opts.min_buffer_seconds },
        auth: opts.auth ?? 'header',
        allowed: ['header', 'query', 'bearer', 'token'],
        queryKey: 'x-api-key',
        endpoint: ENDPOINT,
      },
      opts,
    );
    return new LegacySttSocket(ws, opts.shape ?? 'event', opts.chunks ?? 'raw', cfg.apiKey);
  }

  /** Audio bytes; the first chunk must be a WAV file with its header. */
  sendAudio(bytes: Uint8Array): void {
    if (this.closed) throw new ProtocolError('speech-to-text socket is closed');
    if (this.ended) throw new ProtocolError('end_of_stream was already sent');
    if (!this.sentFirst && !isWav(bytes)) {
      throw new ValidationError('the first audio chunk must be a WAV file with headers', ENDPOINT);
    }
    if (!this.sentFirst) this.format = wavFormat(bytes);
    this.sentFirst = true;
    if (this.chunks === 'wav' && !isWav(bytes)) {
      if (!this.format) throw new ValidationError('the first chunk has no readable fmt header to wrap later chunks with', ENDPOINT);
      if (bytes.byteLength % 2) throw new ValidationError('audio must be whole PCM16 samples', ENDPOINT);
      const samples = new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
      bytes = encodeWav(samples, this.format.rate, this.format.channels);
    }
    const audioBuffer = Array.from(bytes);
    const msg = this.shape === 'event' ? { event: 'audio_chunk', data: { audioBuffer } } : { audioBuffer };
    this.ws.send(JSON.stringify(msg));
  }

  /**
   * Sends end_of_stream and resolves with the finalized transcript. Gives up when the service has
   * sent nothing for `timeoutMs` of run time (time this process was starved of CPU does not
   * count): a service still sending transcriptions of a long stream is working.
   */
  async end(timeoutMs = 30_000): Promise<string> {
    if (this.closed) throw new ProtocolError('speech-to-text socket is closed');
    this.ended = true;
    const result = firstValueFrom(
      this.events$.pipe(filter((e) => e.type === 'finalized' || e.type === 'closed' || e.type === 'transcription_error')),
    );
    let timer: unknown;
    let giveUp!: (err: Error) => void;
    const timeout = new Promise<never>((_, reject) => (giveUp = reject));
    const arm = () => {
      runTimers.clear(timer);
      timer = runTimers.set(() => giveUp(new ProtocolError(`${ENDPOINT}: no finalized, and nothing from the service for ${timeoutMs} ms`)), timeoutMs);
    };
    const sub = this.events$.subscribe(() => arm());
    this.ws.send(JSON.stringify({ event: 'end_of_stream' }));
    arm();
    try {
      const e = await Promise.race([result, timeout]);
      if (e.type === 'finalized') return e.text;
      if (e.type === 'transcription_error') throw new ProtocolError(`transcription error: ${e.message}`);
      throw new ProtocolError(`${ENDPOINT}: closed before finalized (${e.type === 'closed' ? e.close.code : ''})`);
    } finally {
      runTimers.clear(timer);
      sub.unsubscribe();
    }
  }

  /** Closes the socket normally. */
  close(): void {
    if (!this.closed) this.ws.close(1000);
  }
}

/** Rate and channels from a WAV header's fmt chunk (the data size may be a streaming one). */
function wavFormat(b: Uint8Array): { rate: number; channels: number } | undefined {
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  for (let at = 12; at + 24 <= b.length; ) {
    const id = String.fromCharCode(...b.subarray(at, at + 4));
    const size = view.getUint32(at + 4, true);
    if (id === 'fmt ') return { channels: view.getUint16(at + 10, true), rate: view.getUint32(at + 12, true) };
    at += 8 + size + (size % 2);
  }
  return undefined;
}

function isWav(b: Uint8Array): boolean {
  return b.length >= 12 && String.fromCharCode(...b.subarray(0, 4)) === 'RIFF' && String.fromCharCode(...b.subarray(8, 12)) === 'WAVE';
}

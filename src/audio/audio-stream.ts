import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { AudioDecodeError, fileProblem } from './decode-error.ts';
import { ffmpegPcm } from './ffmpeg-stream.ts';
import { isOggOpus, oggOpusPcm } from './ogg-opus.ts';
import { concatPcm } from './pcm.ts';
import { createResampler } from './resample.ts';
import { WavToPcm16, wavLayout } from './wav-stream.ts';

/** Options of `openAudioStream`. */
export const AUDIO_STREAM_DEFAULTS = {
  /** Length of each frame handed out. @default 20 (ms, a telephony frame) */
  frameMs: 20,
  /**
   * Decoded bytes read ahead of the reader: with the OS pipe from ffmpeg this bounds the memory a
   * stream holds whatever the file's length. @default 65536
   */
  highWaterMark: 64 * 1024,
  /**
   * Ogg/Opus (voice notes): `auto` decodes with prism-media's demuxer and the optional
   * `@discordjs/opus` module when it loads, and through ffmpeg otherwise; `ffmpeg` always uses ffmpeg.
   * @default 'auto'
   */
  opus: 'auto' as 'auto' | 'ffmpeg',
  /** Stop decoding after this many seconds of audio; undefined: the whole file. @default undefined */
  maxSeconds: undefined as number | undefined,
};

/** Options of `openAudioStream`: the output rate, plus any of `AUDIO_STREAM_DEFAULTS`. */
export type AudioStreamOptions = Partial<typeof AUDIO_STREAM_DEFAULTS> & {
  /** Output sample rate (mono PCM16). */
  rate: number;
  /** Aborting stops decoding (ffmpeg is killed) and ends the iteration. */
  signal?: AbortSignal;
};

/** Which decoder a stream uses. */
export type AudioDecoderKind = 'wav' | 'opus' | 'ffmpeg';

/** Bytes read from the file to pick a decoder: a WAV header with its usual chunks fits well within. */
const HEAD_BYTES = 64 * 1024;

interface PcmSource {
  pcm: Readable;
  done: Promise<void>;
  pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * An audio file or buffer decoding as you read it: mono PCM16 frames at `rate`, each `frameMs`
 * long (the last may be shorter). Decoding runs only as far ahead of the reader as
 * `highWaterMark`, so an hour of MP3 takes the memory of a few frames. Iterate once; `close()`
 * (or breaking out of the loop, or the abort signal) stops the decoder and its process.
 */
export class AudioStream implements AsyncIterable<Int16Array> {
  /** The most decoded bytes held at once, waiting for the reader (for tests and diagnostics). */
  maxBufferedBytes = 0;
  /** Samples handed out so far. */
  samples = 0;
  private closed = false;
  private closing: Promise<void> | undefined;
  private iterated = false;
  private readonly frames: AsyncGenerator<Int16Array>;
  private first: IteratorResult<Int16Array> | undefined;
  private readonly unlisten: () => void;

  private constructor(
    private readonly source: PcmSource,
    readonly decoder: AudioDecoderKind,
    readonly rate: number,
    private readonly label: string | undefined,
    frameMs: number,
    private readonly maxSamples: number,
    signal: AbortSignal | undefined,
  ) {
    this.frames = this.read(Math.max(1, Math.round((rate * frameMs) / 1000)));
    const abort = () => void this.close();
    if (signal?.aborted) abort();
    signal?.addEventListener('abort', abort, { once: true });
    this.unlisten = () => signal?.removeEventListener('abort', abort);
  }

  /** See `openAudioStream`. */
  static async open(source: string | Uint8Array, opts: AudioStreamOptions): Promise<AudioStream> {
    const o = { ...AUDIO_STREAM_DEFAULTS, ...opts };
    const label = typeof source === 'string' ? source : undefined;
    const { src, kind } = await pickSource(source, o, label);
    const maxSamples = o.maxSeconds === undefined ? Infinity : Math.ceil(o.maxSeconds * o.rate);
    const stream = new AudioStream(src, kind, o.rate, label, o.frameMs, maxSamples, o.signal);
    try {
      await stream.start();
    } catch (err) {
      await stream.close();
      throw err;
    }
    return stream;
  }

  /** The decoder's process id while ffmpeg runs (undefined for in-process decoding). */
  get pid(): number | undefined {
    return this.source.pid;
  }

  /** Reads the first frame now, so a file that is not audio fails when it is opened. */
  private async start(): Promise<void> {
    this.first ??= await this.frames.next();
  }

  /** The decoded audio as PCM16 chunks at the asked rate; a stream can be read once. */
  async *[Symbol.asyncIterator](): AsyncGenerator<Int16Array> {
    if (this.iterated) throw new Error('an AudioStream can be read once');
    this.iterated = true;
    try {
      const first = this.first ?? (await this.frames.next());
      if (first.done) return;
      yield first.value;
      yield* this.frames;
    } finally {
      await this.close();
    }
  }

  /** Stops decoding; resolves once ffmpeg (if any) has exited. Safe to call more than once. */
  close(): Promise<void> {
    // Every caller waits for the same stop: an abort's close and a later one both see ffmpeg gone.
    this.closing ??= (async () => {
      this.closed = true;
      this.unlisten();
      await this.source.stop();
    })();
    return this.closing;
  }

  private async *read(frameSamples: number): AsyncGenerator<Int16Array> {
    const frameBytes = frameSamples * 2;
    let carry = Buffer.alloc(0);
    const { pcm } = this.source;
    try {
      for await (const chunk of pcm as AsyncIterable<Buffer>) {
        if (this.closed) return;
        this.maxBufferedBytes = Math.max(this.maxBufferedBytes, pcm.readableLength + chunk.length + carry.length);
        const data = carry.length ? Buffer.concat([carry, chunk]) : chunk;
        let at = 0;
        for (; at + frameBytes <= data.length; at += frameBytes) {
          if (this.closed) return;
          if (this.samples >= this.maxSamples) return void (await this.close());
          yield this.frame(data, at, frameBytes);
        }
        carry = Buffer.from(data.subarray(at));
      }
      await this.source.done;
    } catch (err) {
      if (this.closed) return;
      throw this.named(err);
    }
    if (this.closed) return;
    if (carry.length >= 2 && this.samples < this.maxSamples) yield this.frame(carry, 0, carry.length - (carry.length % 2));
    if (this.samples === 0) throw this.named(new AudioDecodeError('not a readable audio file (no audio in it)'));
  }

  private frame(data: Buffer, at: number, bytes: number): Int16Array {
    bytes = Math.min(bytes, (this.maxSamples - this.samples) * 2);
    const out = new Int16Array(bytes >> 1);
    new Uint8Array(out.buffer).set(data.subarray(at, at + bytes));
    this.samples += out.length;
    return out;
  }

  private named(err: unknown): AudioDecodeError {
    const msg = err instanceof AudioDecodeError ? err.message : `not a readable audio file (${(err as Error).message})`;
    return new AudioDecodeError(this.label ? `${this.label}: ${msg}` : msg);
  }
}

/**
 * Opens any audio file (a path) or buffer as a stream of mono PCM16 frames at `opts.rate`:
 * PCM/float WAV in-process, Ogg/Opus through prism-media's demuxer and decoder when
 * `@discordjs/opus` is installed, everything else (MP3, M4A, FLAC, Vorbis, ADPCM WAV, a video's
 * audio track) through ffmpeg via prism-media's transcoder. The first frame is decoded before
 * this resolves: a missing file, input that is not audio, or no ffmpeg is an `AudioDecodeError`
 * here, naming the file.
 */
export function openAudioStream(source: string | Uint8Array, opts: AudioStreamOptions): Promise<AudioStream> {
  return AudioStream.open(source, opts);
}

type Resolved = typeof AUDIO_STREAM_DEFAULTS & AudioStreamOptions;

/** The decoder for what the first bytes say the input is, started. */
async function pickSource(source: string | Uint8Array, o: Resolved, label: string | undefined): Promise<{ src: PcmSource; kind: AudioDecoderKind }> {
  const fail = (msg: string) => new AudioDecodeError(label ? `${label}: ${msg}` : msg);
  const head = typeof source === 'string' ? await readHead(source).catch((e) => Promise.reject(fail(fileProblem(e)))) : source.subarray(0, HEAD_BYTES);
  const bytesFrom = (start = 0, end?: number): Readable =>
    typeof source === 'string'
      ? createReadStream(source, { start, end, highWaterMark: o.highWaterMark })
      : Readable.from(chunks(source.subarray(start, end === undefined ? undefined : end + 1), o.highWaterMark), { objectMode: false });

  const wav = wavLayout(head);
  if (wav) {
    const resampler = await createResampler(wav.sampleRate, o.rate).catch((e: Error) => Promise.reject(fail(e.message)));
    const end = wav.dataBytes === undefined ? undefined : wav.dataOffset + wav.dataBytes - 1;
    const file = bytesFrom(wav.dataOffset, end);
    const pcm = file.pipe(new WavToPcm16(wav, resampler, o.highWaterMark));
    file.on('error', (e) => pcm.destroy(e));
    return { kind: 'wav', src: inProcess(pcm, [file, pcm]) };
  }
  if (o.opus === 'auto' && isOggOpus(head)) {
    const file = bytesFrom();
    const ogg = await oggOpusPcm(file, o.rate, o.highWaterMark);
    if (ogg) return { kind: 'opus', src: inProcess(ogg.pcm, ogg.streams) };
    file.destroy(); // no Opus module: ffmpeg below
  }
  try {
    const ff = typeof source === 'string' ? ffmpegPcm({ path: source }, o.rate, o.maxSeconds) : ffmpegPcm({ stream: bytesFrom() }, o.rate, o.maxSeconds);
    return { kind: 'ffmpeg', src: ff };
  } catch (err) {
    throw fail((err as Error).message);
  }
}

/** Reads a whole file or buffer through `openAudioStream` into one array (for callers that need it all). */
export async function decodeAll(source: string | Uint8Array, opts: AudioStreamOptions): Promise<Int16Array> {
  const parts: Int16Array[] = [];
  for await (const f of await openAudioStream(source, opts)) parts.push(f);
  return concatPcm(parts);
}

/** A decoding chain in this process: stopping it destroys every stream of it. */
function inProcess(pcm: Readable, streams: Readable[]): PcmSource {
  const done = new Promise<void>((resolve, reject) => {
    pcm.once('end', resolve);
    pcm.once('error', reject);
  });
  done.catch(() => {});
  return {
    pcm,
    done,
    pid: undefined,
    async stop() {
      for (const s of streams) s.destroy();
    },
  };
}

async function readHead(path: string): Promise<Uint8Array> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await fh.read(buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

function* chunks(bytes: Uint8Array, size: number): Generator<Buffer> {
  for (let at = 0; at < bytes.length; at += size) yield Buffer.from(bytes.buffer, bytes.byteOffset + at, Math.min(size, bytes.length - at));
}

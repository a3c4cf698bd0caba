import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { loadPrism } from './prism.ts';
import { createResampler, type StreamResampler } from './resample.ts';

/** Rates libopus decodes to directly; any other rate is decoded at 48 kHz and resampled. */
const OPUS_RATES = [8000, 12000, 16000, 24000, 48000];

/** An Ogg stream whose first page is an Opus head (a WhatsApp or Telegram voice note, `.opus`). */
export function isOggOpus(head: Uint8Array): boolean {
  const b = Buffer.from(head.buffer, head.byteOffset, Math.min(head.byteLength, 128));
  return b.subarray(0, 4).toString('latin1') === 'OggS' && b.includes('OpusHead', 0, 'latin1');
}

/**
 * prism-media's Opus decoder over @discordjs/opus (an optional native module), or undefined
 * when no Opus module loads: the caller falls back to ffmpeg.
 */
function opusDecoder(rate: number): Transform | undefined {
  try {
    return new (loadPrism().opus.Decoder)({ rate, channels: 1, frameSize: rate / 50 });
  } catch {
    return undefined;
  }
}

/**
 * Ogg/Opus without ffmpeg: prism-media's Ogg demuxer and Opus decoder, mono PCM16 at `rate`.
 * The encoder's pre-skip (the codec's start-up samples, from the Opus head) is dropped, as
 * players do. Undefined when no Opus module is installed.
 */
export async function oggOpusPcm(file: Readable, rate: number, highWaterMark: number): Promise<{ pcm: Readable; streams: Readable[] } | undefined> {
  const decodeRate = OPUS_RATES.includes(rate) ? rate : 48000;
  const decoder = opusDecoder(decodeRate);
  if (!decoder) return undefined;
  const resampler = await createResampler(decodeRate, rate);
  const demuxer = new (loadPrism().opus.OggDemuxer)();
  const shaper = new OpusPcm(resampler, highWaterMark);
  demuxer.once('head', (head: Buffer) => {
    if (head.length >= 12) shaper.skip = Math.round((head.readUInt16LE(10) * decodeRate) / 48000);
  });
  // Errors travel down the chain to the end the reader holds.
  const chain: Readable[] = [file, demuxer, decoder, shaper];
  for (let i = 0; i + 1 < chain.length; i++) chain[i]!.on('error', (e) => shaper.destroy(e));
  file.pipe(demuxer).pipe(decoder).pipe(shaper);
  return { pcm: shaper, streams: chain };
}

/** Decoded Opus packets (object mode) into a byte stream of PCM16 at the wanted rate, minus the pre-skip. */
class OpusPcm extends Transform {
  skip = 0;
  constructor(
    private readonly resampler: StreamResampler,
    highWaterMark: number,
  ) {
    super({ writableObjectMode: true, readableHighWaterMark: highWaterMark });
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    let pcm = chunk;
    if (this.skip > 0) {
      const drop = Math.min(this.skip, pcm.length >> 1);
      this.skip -= drop;
      pcm = pcm.subarray(drop * 2);
    }
    const even = pcm.length - (pcm.length % 2);
    const samples = new Int16Array(Uint8Array.from(pcm.subarray(0, even)).buffer);
    const out = this.resampler.push(samples);
    if (out.length) this.push(Buffer.from(out.buffer, out.byteOffset, out.byteLength));
    done();
  }

  override _destroy(err: Error | null, cb: (e: Error | null) => void): void {
    this.resampler.close();
    cb(err);
  }
}

import { Transform, type TransformCallback } from 'node:stream';
import type { StreamResampler } from './resample.ts';

/** Where a WAV file's samples are and how they are laid out, from its header alone. */
export interface WavLayout {
  channels: number;
  sampleRate: number;
  bits: 8 | 16 | 24 | 32 | 64;
  float: boolean;
  /** Byte offset of the first sample. */
  dataOffset: number;
  /** Bytes of samples, or undefined when the header does not say (a WAV written to a pipe). */
  dataBytes: number | undefined;
}

const PCM = 1;
const FLOAT = 3;
const EXTENSIBLE = 0xfffe;

/**
 * The layout of a PCM or float WAV whose header lies within `head`, or undefined for anything
 * this reader does not stream itself (ADPCM and other codecs, a data chunk beyond `head`): those
 * go through ffmpeg.
 */
export function wavLayout(head: Uint8Array): WavLayout | undefined {
  const b = Buffer.from(head.buffer, head.byteOffset, head.byteLength);
  if (b.length < 12 || b.toString('latin1', 0, 4) !== 'RIFF' || b.toString('latin1', 8, 12) !== 'WAVE') return undefined;
  let fmt: Omit<WavLayout, 'dataOffset' | 'dataBytes'> | undefined;
  for (let at = 12; at + 8 <= b.length; ) {
    const id = b.toString('latin1', at, at + 4);
    const size = b.readUInt32LE(at + 4);
    if (id === 'fmt ' && at + 24 <= b.length) {
      let tag = b.readUInt16LE(at + 8);
      if (tag === EXTENSIBLE && size >= 26 && at + 34 <= b.length) tag = b.readUInt16LE(at + 32); // the sub-format GUID's first two bytes
      const channels = b.readUInt16LE(at + 10);
      const sampleRate = b.readUInt32LE(at + 12);
      const bits = b.readUInt16LE(at + 22);
      const intOk = tag === PCM && (bits === 8 || bits === 16 || bits === 24 || bits === 32);
      const floatOk = tag === FLOAT && (bits === 32 || bits === 64);
      if (!(intOk || floatOk) || channels < 1 || sampleRate < 1) return undefined;
      fmt = { channels, sampleRate, bits, float: floatOk };
    }
    if (id === 'data') {
      if (!fmt) return undefined;
      // 0 and 0xFFFFFFFF: a writer that did not know the length (ffmpeg to a pipe).
      return { ...fmt, dataOffset: at + 8, dataBytes: size === 0 || size === 0xffffffff ? undefined : size };
    }
    at += 8 + size + (size % 2);
  }
  return undefined;
}

/**
 * A WAV's sample bytes (any layout `wavLayout` accepts) into mono PCM16 bytes at the resampler's
 * output rate: channels averaged, a partial sample frame carried to the next chunk. At the end the
 * resampler's tail is flushed so the length matches the source's duration.
 */
export class WavToPcm16 extends Transform {
  private carry = Buffer.alloc(0);
  private readonly frameBytes: number;
  private inSamples = 0;
  private outSamples = 0;

  constructor(
    private readonly layout: WavLayout,
    private readonly resampler: StreamResampler,
    highWaterMark: number,
  ) {
    super({ readableHighWaterMark: highWaterMark });
    this.frameBytes = (layout.bits / 8) * layout.channels;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    const data = this.carry.length ? Buffer.concat([this.carry, chunk]) : chunk;
    const frames = Math.floor(data.length / this.frameBytes);
    this.carry = Buffer.from(data.subarray(frames * this.frameBytes));
    const mono = new Int16Array(frames);
    const { channels, bits, float } = this.layout;
    const width = bits / 8;
    for (let i = 0; i < frames; i++) {
      let sum = 0;
      for (let c = 0; c < channels; c++) sum += sample(data, (i * channels + c) * width, bits, float);
      mono[i] = Math.max(-32768, Math.min(32767, Math.round(sum / channels)));
    }
    this.inSamples += frames;
    this.emit16(this.resampler.push(mono));
    done();
  }

  override _flush(done: TransformCallback): void {
    const { fromRate, toRate } = this.resampler;
    const expected = Math.round((this.inSamples * toRate) / fromRate);
    // The filter holds back a few milliseconds: zeros push them out, then the length is cut exact.
    for (let k = 0; k < 8 && this.outSamples < expected && fromRate !== toRate; k++) this.emit16(this.resampler.push(new Int16Array(4096)), expected);
    this.resampler.close();
    done();
  }

  override _destroy(err: Error | null, cb: (e: Error | null) => void): void {
    this.resampler.close();
    cb(err);
  }

  private emit16(s: Int16Array, cap = Infinity): void {
    const n = Math.min(s.length, cap - this.outSamples);
    if (n <= 0) return;
    this.outSamples += n;
    this.push(Buffer.from(s.buffer, s.byteOffset, n * 2));
  }
}

/** One sample as a PCM16 value. */
function sample(b: Buffer, at: number, bits: number, float: boolean): number {
  if (float) return (bits === 32 ? b.readFloatLE(at) : b.readDoubleLE(at)) * 32768;
  switch (bits) {
    case 8:
      return (b[at]! - 128) * 256;
    case 16:
      return b.readInt16LE(at);
    case 24:
      return b.readIntLE(at, 3) / 256;
    default:
      return b.readInt32LE(at) / 65536;
  }
}

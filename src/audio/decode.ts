import { open } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { decodeAll } from './audio-stream.ts';
import { AudioDecodeError, fileProblem } from './decode-error.ts';
import { ffmpegPcm } from './ffmpeg-stream.ts';
import { resample } from './resample.ts';
import { decodeWav, type PcmAudio } from './wav.ts';

export { AudioDecodeError } from './decode-error.ts';
export { AUDIO_STREAM_DEFAULTS, AudioStream, openAudioStream, type AudioDecoderKind, type AudioStreamOptions } from './audio-stream.ts';

export const isWav = (b: Uint8Array) =>
  b.length > 12 && Buffer.from(b.subarray(0, 4)).toString() === 'RIFF' && Buffer.from(b.subarray(8, 12)).toString() === 'WAVE';

/**
 * Any audio in memory (WAV of any rate and channel count, MP3, OGG/Opus, M4A/AAC, FLAC, the audio
 * track of a video) as mono PCM16 at `rate`. PCM WAV is read in-process (wavefile, libsamplerate);
 * everything else, and WAV codecs wavefile cannot read, is streamed through `openAudioStream`.
 * To read a long file without holding it, use `openAudioStream` itself.
 */
export async function decodeAudio(bytes: Uint8Array, rate: number): Promise<PcmAudio> {
  const wav = wholeWav(bytes);
  if (wav) return { samples: await resample(wav.samples, wav.sampleRate, rate), sampleRate: rate };
  return { samples: await decodeAll(bytes, { rate }), sampleRate: rate };
}

/**
 * Reads and decodes an audio file into one array; errors name the file and say what is wrong in
 * one line. The file is read whole only when it is a WAV; other formats are streamed from disk.
 */
export async function readAudioFile(path: string, rate: number): Promise<PcmAudio> {
  let head: Uint8Array;
  try {
    const fh = await open(path, 'r');
    try {
      const size = (await fh.stat()).size;
      head = Buffer.alloc(Math.min(size, 16));
      await fh.read(head, 0, head.length, 0);
      // The same path as decodeAudio for WAV, so what a recording sounds like does not change.
      if (isWav(head)) head = await fh.readFile();
    } finally {
      await fh.close();
    }
  } catch (err) {
    throw new AudioDecodeError(`${path}: ${fileProblem(err)}`);
  }
  const wav = wholeWav(head);
  if (wav) {
    try {
      return { samples: await resample(wav.samples, wav.sampleRate, rate), sampleRate: rate };
    } catch (err) {
      throw new AudioDecodeError(`${path}: ${(err as Error).message}`);
    }
  }
  return { samples: await decodeAll(path, { rate }), sampleRate: rate };
}

/** A PCM WAV wavefile reads, or undefined (an ADPCM or other compressed WAV: ffmpeg reads it). */
function wholeWav(bytes: Uint8Array): PcmAudio | undefined {
  if (!isWav(bytes)) return undefined;
  try {
    return decodeWav(bytes);
  } catch {
    return undefined;
  }
}

/** ffmpeg (through prism-media): whatever comes in, mono signed 16-bit little-endian at `rate` out. */
export async function ffmpegDecode(bytes: Uint8Array, rate: number): Promise<Int16Array> {
  const ff = ffmpegPcm({ stream: Readable.from([Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)]) }, rate);
  const parts: Buffer[] = [];
  for await (const c of ff.pcm as AsyncIterable<Buffer>) parts.push(c);
  await ff.done;
  const data = Buffer.concat(parts);
  if (data.length < 2) throw new AudioDecodeError('not a readable audio file (no audio in it)');
  const out = new Int16Array(data.length >> 1);
  new Uint8Array(out.buffer).set(data.subarray(0, out.length * 2));
  return out;
}

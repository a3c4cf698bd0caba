import { AudioDecodeError, isWav, openAudioStream } from '../audio/decode.ts';
import { FFMPEG_MISSING } from '../audio/decode-error.ts';
import { concatPcm } from '../audio/pcm.ts';
import { decodeWav } from '../audio/wav.ts';
import { resample } from '../audio/resample.ts';
import { badRequest } from './http/errors.ts';
import { diskPathOf } from './http/uploads.ts';

export interface DecodedAudio {
  samples: Int16Array;
  sampleRate: number;
  duration: number;
}

export interface DurationLimit {
  seconds: number;
  message: string;
}

/** Longest audio decoded when a route sets no limit of its own. @default 3600 s */
const DEFAULT_LIMIT: DurationLimit = { seconds: 60 * 60, message: 'Audio longer than 60 minutes is not supported' };

/**
 * Duration a WAV header declares (fmt byte rate and data size), read before the samples are:
 * a header that declares too much is refused without decoding anything.
 */
function declaredWavSeconds(b: Uint8Array, fileSize: number): number | undefined {
  const view = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  let at = 12;
  let byteRate: number | undefined;
  while (at + 8 <= view.length) {
    const id = view.toString('ascii', at, at + 4);
    const size = view.readUInt32LE(at + 4);
    if (id === 'fmt ' && at + 20 <= view.length) byteRate = view.readUInt32LE(at + 16);
    if (id === 'data') return byteRate ? Math.min(size, fileSize - at - 8) / byteRate : undefined;
    at += 8 + size + (size % 2);
  }
  return undefined;
}

/**
 * Any audio or video file as mono PCM16 at `rate`. WAV is read directly; everything else
 * (mp3, ogg, flac, m4a, and the audio track of mp4/mov/mkv/webm/avi) is streamed through
 * prism-media, which stops at the duration limit: a small file of hours of silence is never decoded whole.
 * An uploaded Blob is read from its file on disk.
 */
export async function decodeAudio(source: Uint8Array | Blob, rate = 16000, limit: DurationLimit = DEFAULT_LIMIT): Promise<DecodedAudio> {
  const size = source instanceof Blob ? source.size : source.byteLength;
  const head = source instanceof Blob ? new Uint8Array(await source.slice(0, 64 * 1024).arrayBuffer()) : source;
  if (isWav(head)) {
    const declared = declaredWavSeconds(head, size);
    if (declared !== undefined && declared > limit.seconds) throw badRequest(limit.message);
    const bytes = source instanceof Blob ? new Uint8Array(await source.arrayBuffer()) : source;
    let wav;
    try {
      wav = decodeWav(bytes);
    } catch (err) {
      throw badRequest(`could not read the WAV file: ${(err as Error).message}`);
    }
    if (wav.samples.length / wav.sampleRate > limit.seconds) throw badRequest(limit.message);
    let samples: Int16Array;
    try {
      samples = await resample(wav.samples, wav.sampleRate, rate);
    } catch (err) {
      throw badRequest(`could not read the WAV file: ${(err as Error).message}`);
    }
    return { samples, sampleRate: rate, duration: wav.samples.length / wav.sampleRate };
  }
  const path = source instanceof Blob ? diskPathOf(source) : undefined;
  const input = path ?? (source instanceof Blob ? new Uint8Array(await source.arrayBuffer()) : source);
  const samples = await boundedDecode(input, rate, limit);
  return { samples, sampleRate: rate, duration: samples.length / rate };
}

/**
 * Everything but WAV: streamed through `openAudioStream` (prism-media's ffmpeg transcoder, or its
 * Ogg/Opus demuxer and decoder), which stops just past the duration limit: passing it is how a
 * too-long file is recognised, without decoding the rest.
 */
async function boundedDecode(input: string | Uint8Array, rate: number, limit: DurationLimit): Promise<Int16Array> {
  const maxSamples = Math.ceil(limit.seconds * rate);
  const parts: Int16Array[] = [];
  let got = 0;
  try {
    const stream = await openAudioStream(input, { rate, maxSeconds: limit.seconds + 1 });
    for await (const frame of stream) {
      got += frame.length;
      if (got > maxSamples) {
        await stream.close();
        throw badRequest(limit.message);
      }
      parts.push(frame);
    }
  } catch (err) {
    if (!(err instanceof AudioDecodeError)) throw err;
    if (err.message.includes(FFMPEG_MISSING)) throw new Error(FFMPEG_MISSING);
    // The temporary path of an upload stays out of the answer.
    const why = typeof input === 'string' ? err.message.split(`${input}: `).join('') : err.message;
    const reason = /\((?:ffmpeg: )?(.+)\)$/.exec(why)?.[1];
    throw badRequest(`could not decode the audio file${reason ? `: ${reason}` : ''}`);
  }
  return concatPcm(parts);
}

import { ffmpegDecode, isWav } from '../audio/decode.ts';
import { decodeWav } from '../audio/wav.ts';
import { resample } from '../audio/resample.ts';
import { badRequest } from './http/errors.ts';

export interface DecodedAudio {
  samples: Int16Array;
  sampleRate: number;
  duration: number;
}

/**
 * Any audio or video file as mono PCM16 at `rate`. WAV is read directly; everything else
 * (mp3, ogg, m4a, and the audio track of mp4/mov/mkv/webm/avi) goes through ffmpeg.
 */
export async function decodeAudio(bytes: Uint8Array, rate = 16000, limit?: { seconds: number; message: string }): Promise<DecodedAudio> {
  if (isWav(bytes)) {
    let wav;
    try {
      wav = decodeWav(bytes);
    } catch (err) {
      throw badRequest(`could not read the WAV file: ${(err as Error).message}`);
    }
    if (limit && wav.samples.length / wav.sampleRate > limit.seconds) throw badRequest(limit.message);
    const samples = await resample(wav.samples, wav.sampleRate, rate);
    return { samples, sampleRate: rate, duration: wav.samples.length / wav.sampleRate };
  }
  let samples: Int16Array;
  try {
    samples = await ffmpegDecode(bytes, rate);
  } catch (err) {
    throw badRequest(`could not decode the audio file: ${(err as Error).message}`);
  }
  if (limit && samples.length / rate > limit.seconds) throw badRequest(limit.message);
  return { samples, sampleRate: rate, duration: samples.length / rate };
}

import { spawn } from 'node:child_process';
import { decodeWav } from '../audio/wav.ts';
import { resample } from '../audio/resample.ts';
import { badRequest } from './http/errors.ts';

export interface DecodedAudio {
  samples: Int16Array;
  sampleRate: number;
  duration: number;
}

const isWav = (b: Uint8Array) => b.length > 12 && Buffer.from(b.subarray(0, 4)).toString() === 'RIFF' && Buffer.from(b.subarray(8, 12)).toString() === 'WAVE';

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
  const samples = await ffmpegDecode(bytes, rate);
  if (limit && samples.length / rate > limit.seconds) throw badRequest(limit.message);
  return { samples, sampleRate: rate, duration: samples.length / rate };
}

function ffmpegDecode(bytes: Uint8Array, rate: number): Promise<Int16Array> {
  return new Promise((resolve, reject) => {
    const child = spawn('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-i', 'pipe:0', '-vn', '-ac', '1', '-ar', String(rate), '-f', 's16le', 'pipe:1'], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.stdin.on('error', () => {}); // ffmpeg may stop reading early on bad input
    child.on('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'ENOENT' ? new Error('ffmpeg is not installed (apt-get install ffmpeg)') : e),
    );
    child.on('close', (code) => {
      const data = Buffer.concat(out);
      if (code !== 0 || data.length < 2) {
        return reject(badRequest(`could not decode the audio file${err ? `: ${err.trim().split('\n').pop()}` : ''}`));
      }
      const copy = new Uint8Array(data.length - (data.length % 2));
      copy.set(data.subarray(0, copy.length));
      resolve(new Int16Array(copy.buffer));
    });
    child.stdin.end(Buffer.from(bytes));
  });
}

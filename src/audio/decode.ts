import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { resample } from './resample.ts';
import { decodeWav, type PcmAudio } from './wav.ts';

/** Audio that could not be read: not audio, a codec ffmpeg lacks, or no ffmpeg at all. */
export class AudioDecodeError extends Error {
  override readonly name = 'AudioDecodeError';
}

export const isWav = (b: Uint8Array) =>
  b.length > 12 && Buffer.from(b.subarray(0, 4)).toString() === 'RIFF' && Buffer.from(b.subarray(8, 12)).toString() === 'WAVE';

/**
 * Any audio file (WAV of any rate and channel count, MP3, OGG/Opus, M4A/AAC, FLAC, the audio
 * track of a video) as mono PCM16 at `rate`. PCM WAV is read in-process; everything else, and
 * WAV codecs wavefile cannot read, goes through the ffmpeg binary the setup installs.
 */
export async function decodeAudio(bytes: Uint8Array, rate: number): Promise<PcmAudio> {
  if (isWav(bytes)) {
    let wav: PcmAudio | undefined;
    try {
      wav = decodeWav(bytes);
    } catch {
      // An ADPCM or other compressed WAV: ffmpeg below reads it.
    }
    if (wav) return { samples: await resample(wav.samples, wav.sampleRate, rate), sampleRate: rate };
  }
  return { samples: await ffmpegDecode(bytes, rate), sampleRate: rate };
}

/** Reads and decodes an audio file; errors name the file and say what is wrong in one line. */
export async function readAudioFile(path: string, rate: number): Promise<PcmAudio> {
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'is a directory' : e.code === 'EACCES' ? 'permission denied' : e.message;
    throw new AudioDecodeError(`${path}: ${why}`);
  }
  try {
    return await decodeAudio(bytes, rate);
  } catch (err) {
    throw new AudioDecodeError(`${path}: ${(err as Error).message}`);
  }
}

/** ffmpeg: whatever comes in, mono signed 16-bit little-endian at `rate` out. */
export function ffmpegDecode(bytes: Uint8Array, rate: number): Promise<Int16Array> {
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
      reject(new AudioDecodeError(e.code === 'ENOENT' ? 'ffmpeg is not installed (run scripts/setup.sh, or apt-get install ffmpeg)' : e.message)),
    );
    child.on('close', (code) => {
      const data = Buffer.concat(out);
      if (code !== 0 || data.length < 2) {
        const last = err.trim().split('\n').pop();
        return reject(new AudioDecodeError(`not a readable audio file${last ? ` (ffmpeg: ${last})` : ''}`));
      }
      const copy = new Uint8Array(data.length - (data.length % 2));
      copy.set(data.subarray(0, copy.length));
      resolve(new Int16Array(copy.buffer));
    });
    child.stdin.end(Buffer.from(bytes));
  });
}

import { spawn } from 'node:child_process';
import { isWav } from '../audio/decode.ts';
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
 * (mp3, ogg, flac, m4a, and the audio track of mp4/mov/mkv/webm/avi) goes through ffmpeg, which
 * stops at the duration limit: a small file of hours of silence is never decoded whole.
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
  const input = path ? { path } : { bytes: source instanceof Blob ? new Uint8Array(await source.arrayBuffer()) : source };
  const samples = await boundedFfmpegDecode(input, rate, limit);
  return { samples, sampleRate: rate, duration: samples.length / rate };
}

/**
 * ffmpeg bounded by the duration limit and able to read an upload from its file on disk, which
 * the general `ffmpegDecode` of src/audio/decode.ts (whole bytes in, no limit) does not do.
 */
function boundedFfmpegDecode(input: { path: string } | { bytes: Uint8Array }, rate: number, limit: DurationLimit): Promise<Int16Array> {
  return new Promise((resolve, reject) => {
    const maxBytes = Math.ceil(limit.seconds * rate) * 2;
    // `-t` stops decoding just past the limit: passing it is how a too-long file is recognised.
    const args = ['-hide_banner', '-loglevel', 'error', '-nostdin', '-i', 'path' in input ? input.path : 'pipe:0', '-t', String(limit.seconds + 1)];
    const child = spawn('ffmpeg', [...args, '-vn', '-ac', '1', '-ar', String(rate), '-f', 's16le', 'pipe:1'], {
      stdio: ['path' in input ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    let got = 0;
    let tooLong = false;
    let err = '';
    child.stdout!.on('data', (c: Buffer) => {
      if (tooLong) return;
      got += c.length;
      if (got > maxBytes) {
        tooLong = true;
        out.length = 0;
        child.kill('SIGKILL');
        return;
      }
      out.push(c);
    });
    child.stderr!.on('data', (c: Buffer) => (err = (err + c.toString()).slice(-2000)));
    child.on('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'ENOENT' ? new Error('ffmpeg is not installed (apt-get install ffmpeg)') : e),
    );
    child.on('close', (code) => {
      if (tooLong) return reject(badRequest(limit.message));
      const data = Buffer.concat(out);
      out.length = 0;
      if (code !== 0 || data.length < 2) {
        // ffmpeg names its input: the temporary path stays out of the answer.
        const last = err.trim().split('\n').pop()?.split('path' in input ? input.path : 'pipe:0').join('input');
        return reject(badRequest(`could not decode the audio file${last ? `: ${last}` : ''}`));
      }
      const n = data.length >> 1;
      resolve(data.byteOffset % 2 === 0 ? new Int16Array(data.buffer, data.byteOffset, n) : new Int16Array(Uint8Array.from(data.subarray(0, 2 * n)).buffer));
    });
    if ('bytes' in input) {
      child.stdin!.on('error', () => {}); // ffmpeg may stop reading early on bad input
      child.stdin!.end(Buffer.from(input.bytes));
    }
  });
}

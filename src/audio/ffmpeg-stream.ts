import type { ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';
import type { Readable } from 'node:stream';
import type Prism from 'prism-media';
import { AudioDecodeError, FFMPEG_MISSING } from './decode-error.ts';
import { loadPrism } from './prism.ts';

let found = false;

/**
 * True when prism-media will find an ffmpeg it should run: the `ffmpeg-static` package, or
 * `ffmpeg` on the PATH. Checked first because prism's own search goes on to `./ffmpeg` in the
 * working directory, a binary nobody installed. A success is remembered, a failure is not (the
 * user may install ffmpeg while a server runs).
 */
export function ffmpegAvailable(): boolean {
  if (found) return true;
  try {
    createRequire(import.meta.url).resolve('ffmpeg-static');
    return (found = true);
  } catch {
    // not installed: the PATH decides
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    try {
      accessSync(join(dir, 'ffmpeg'), constants.X_OK);
      return (found = true);
    } catch {
      // not here
    }
  }
  return false;
}

/** ffmpeg's PCM output: read `pcm` at your pace (the pipe holds ffmpeg back), then await `done`. */
export interface FfmpegPcm {
  readonly pcm: Readable;
  readonly pid: number | undefined;
  /** Resolves when ffmpeg exits cleanly or was stopped by `stop`; rejects with its reason otherwise. */
  readonly done: Promise<void>;
  /** Kills ffmpeg and resolves once the process is gone: nothing is left running. */
  stop(): Promise<void>;
}

export interface FfmpegInput {
  /** A file ffmpeg opens itself (read with the `file:` protocol: a name is never a URL). */
  path?: string;
  /** Or bytes piped to its standard input. */
  stream?: Readable;
}

/**
 * Any audio ffmpeg reads, as mono signed 16-bit little-endian at `rate`, through prism-media's
 * FFmpeg transcoder. `maxSeconds` makes ffmpeg stop decoding there (`-t`).
 */
export function ffmpegPcm(input: FfmpegInput, rate: number, maxSeconds?: number): FfmpegPcm {
  const from = input.path !== undefined ? ['-nostdin', '-i', `file:${input.path}`] : ['-i', 'pipe:0'];
  const limit = maxSeconds !== undefined ? ['-t', String(maxSeconds)] : [];
  const args = ['-hide_banner', '-loglevel', 'error', ...from, ...limit, '-vn', '-ac', '1', '-ar', String(rate), '-f', 's16le'];
  if (!ffmpegAvailable()) throw new AudioDecodeError(FFMPEG_MISSING);
  let ff: Prism.FFmpeg;
  try {
    ff = new (loadPrism().FFmpeg)({ args });
  } catch (err) {
    // prism looks for the binary once (`ffmpeg -h`) and throws when there is none.
    throw new AudioDecodeError(/not found/i.test((err as Error).message) ? FFMPEG_MISSING : (err as Error).message);
  }
  const child: ChildProcess = ff.process;
  let stderr = '';
  let stopped = false;
  child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-2000)));
  // A write to a process that stopped reading (bad input, or killed) fails with EPIPE: the exit
  // code below is what decides. prism forwards its pipes' errors here.
  ff.on('error', () => {});
  const done = new Promise<void>((resolve, reject) => {
    child.once('error', (e: NodeJS.ErrnoException) => reject(new AudioDecodeError(e.code === 'ENOENT' ? FFMPEG_MISSING : e.message)));
    child.once('close', (code) => {
      if (stopped || code === 0) return resolve();
      // ffmpeg names its input in its messages: the file's name is given once, by the caller.
      const names = input.path !== undefined ? [`file:${input.path}`, input.path] : ['pipe:0'];
      let last = stderr.trim().split('\n').pop() ?? '';
      for (const n of names) last = last.split(n).join('input');
      reject(new AudioDecodeError(`not a readable audio file${last ? ` (ffmpeg: ${last})` : ''}`));
    });
  });
  done.catch(() => {}); // awaited by the reader; an early stop must not leave it unhandled
  if (input.stream) {
    child.stdin!.on('error', () => {});
    input.stream.on('error', () => child.kill('SIGKILL'));
    input.stream.pipe(ff);
  }
  // 'exit', not 'close': 'close' also waits for stdout to be read to its end, which a reader
  // that stopped never does.
  const exited = new Promise<void>((r) => {
    if (child.exitCode !== null || child.signalCode !== null) return r();
    child.once('exit', () => r());
    child.once('error', () => r()); // never started: nothing to wait for
  });
  return {
    pcm: child.stdout!,
    pid: child.pid,
    done,
    async stop() {
      stopped = true;
      input.stream?.destroy();
      // prism's transcoder shares its readable state with ffmpeg's stdout: destroying the
      // transcoder first would mark stdout destroyed without closing it, and a reader would wait
      // on it for ever. So the pipes are closed and the process killed here, directly.
      child.stdout!.destroy();
      child.stderr!.destroy();
      child.kill('SIGKILL');
      await exited;
    },
  };
}

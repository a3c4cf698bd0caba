/** Audio that could not be read: not audio, a codec ffmpeg lacks, or no ffmpeg at all. */
export class AudioDecodeError extends Error {
  override readonly name = 'AudioDecodeError';
}

/** What a user reads when a file needs ffmpeg and the binary is not on the PATH. */
export const FFMPEG_MISSING = 'ffmpeg is not installed (install ffmpeg: apt install ffmpeg, or run scripts/setup.sh)';

/** A file that cannot be opened, in a few words: "no such file", "is a directory"… */
export function fileProblem(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ENOENT') return 'no such file';
  if (e.code === 'EISDIR') return 'is a directory';
  if (e.code === 'EACCES' || e.code === 'EPERM') return 'permission denied';
  return e.message;
}

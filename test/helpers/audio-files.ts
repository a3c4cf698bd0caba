import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Runs the ffmpeg binary to make a test file; fails the test with ffmpeg's message. */
export function ffmpeg(args: string[]): void {
  const r = spawnSync('ffmpeg', ['-y', '-hide_banner', '-loglevel', 'error', ...args]);
  assert.equal(r.status, 0, `ffmpeg ${args.join(' ')}: ${r.stderr}`);
}

/** ffmpeg processes this test process started that are still there (Linux /proc; the loader's esbuild is not counted). */
export function ffmpegChildren(): number[] {
  const mine: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // Fields after the command's closing parenthesis: state, then the parent's pid.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && readFileSync(`/proc/${name}/comm`, 'utf8').trim() === 'ffmpeg') mine.push(Number(name));
    } catch {
      // gone between the listing and the read
    }
  }
  return mine;
}

import { firstValueFrom, filter, timer, race, map } from '../rx.ts';
import { ResamplingOutput } from '../transport/resampling-output.ts';
import type { RenderedAudio } from '../pipeline/fixed-lines.ts';
import type { Transport } from '../transport/types.ts';

/** A line rendered once (at start-up), played to callers no slot could be found for (or who wait for one). */
export type RenderedLine = RenderedAudio;

const FRAME_MS = 20;

/** Queues the line on the call's output, frame by frame, and returns that output (marks wait on it). */
export function playLine(transport: Transport, line: RenderedLine): ResamplingOutput {
  const out = new ResamplingOutput(transport.output);
  const step = Math.round((line.sampleRate * FRAME_MS) / 1000);
  for (let i = 0; i < line.samples.length; i += step) {
    out.write({ samples: line.samples.subarray(i, i + step), sampleRate: line.sampleRate, time: 0 });
  }
  return out;
}

/**
 * Plays the line, waits until the far end has heard it (or hung up, or the line's length plus a
 * margin passed), then hangs up. Never throws: the caller is gone either way.
 */
export async function playAndHangUp(transport: Transport, line: RenderedLine, reason = 'all lines busy'): Promise<void> {
  try {
    const out = playLine(transport, line);
    const seconds = line.samples.length / line.sampleRate;
    await firstValueFrom(
      race(
        timer(seconds * 1000 + 5_000).pipe(map(() => 'late')),
        transport.events$.pipe(
          filter((e) => e.type === 'hangup' || e.type === 'error'),
          map(() => 'gone'),
        ),
        new Promise<string>((resolve) => void out.mark('busy-line').then(() => resolve('played'), () => resolve('gone'))),
      ),
      { defaultValue: 'gone' },
    );
    await transport.hangup?.(reason);
  } catch {
    // The caller hung up or the socket broke: nothing more to say to them.
  } finally {
    await transport.output.close().catch(() => {});
  }
}

import { splitRecording } from '../analytics/channels.ts';
import type { Waveform } from './types.ts';

/** Waveform buckets per second: 50 draws a 60 s call at 3000 columns, a few KB of JSON. */
export const WAVEFORM_PER_SECOND = 50;

/**
 * The waveform of a stereo call recording (caller left, agent right): per bucket the largest
 * sample of each side, 0..1 to 2 decimals. The page draws this instead of decoding the audio, so
 * a page opened from disk (where a script may not read the WAV beside it) draws it too.
 */
export function waveformOf(wav: Uint8Array, perSecond = WAVEFORM_PER_SECOND): { waveform: Waveform; seconds: number } {
  const { caller, agent, sampleRate } = splitRecording(wav);
  const step = Math.max(1, Math.round(sampleRate / perSecond));
  const peaks = (pcm: Int16Array) => {
    const out: number[] = [];
    for (let i = 0; i < pcm.length; i += step) {
      let max = 0;
      const end = Math.min(pcm.length, i + step);
      for (let j = i; j < end; j++) max = Math.max(max, Math.abs(pcm[j]!));
      out.push(Math.round((max / 32768) * 100) / 100);
    }
    return out;
  };
  return { waveform: { perSecond: sampleRate / step, caller: peaks(caller), agent: peaks(agent) }, seconds: caller.length / sampleRate };
}

import type Wavefile from 'wavefile';
import { encodeWav, readPcm16Wav } from '../audio/wav.ts';
import { loadWavefile } from '../audio/wavefile.ts';
import type { Role } from './summary.ts';

/** The two sides of a stored call recording (caller left, agent right). */
export interface StereoCall {
  caller: Int16Array;
  agent: Int16Array;
  sampleRate: number;
}

/** Reads a stereo recording made by `CallRecorder`; a clear error for anything else. */
export function splitRecording(wav: Uint8Array): StereoCall {
  const direct = readPcm16Wav(wav);
  if (direct?.channels === 2) {
    const n = direct.samples.length / 2;
    const caller = new Int16Array(n);
    const agent = new Int16Array(n);
    for (let i = 0; i < n; i++) (caller[i] = direct.samples[2 * i]!), (agent[i] = direct.samples[2 * i + 1]!);
    return { caller, agent, sampleRate: direct.sampleRate };
  }
  let file: Wavefile.WaveFile;
  try {
    file = new (loadWavefile().WaveFile)(wav);
  } catch (err) {
    throw new Error(`the call recording is not a readable WAV file: ${(err as Error).message}`);
  }
  const fmt = file.fmt as { numChannels: number; sampleRate: number; bitsPerSample: number };
  if (fmt.numChannels !== 2 || fmt.bitsPerSample !== 16) {
    throw new Error(`the call recording must be 16-bit stereo (caller left, agent right), got ${fmt.numChannels} channel(s) of ${fmt.bitsPerSample} bits`);
  }
  const [caller, agent] = file.getSamples(false, Int16Array) as unknown as [Int16Array, Int16Array];
  return { caller, agent, sampleRate: fmt.sampleRate };
}

/**
 * One mono file of both sides, as a phone line would have carried them: the service diarizes a
 * single track. Sums (clipped) rather than averages, so neither side is halved in level.
 */
export function mixdown(c: StereoCall): Uint8Array {
  const n = Math.max(c.caller.length, c.agent.length);
  const mono = new Int16Array(n);
  for (let i = 0; i < n; i++) mono[i] = Math.max(-32768, Math.min(32767, (c.caller[i] ?? 0) + (c.agent[i] ?? 0)));
  return encodeWav(mono, c.sampleRate);
}

function energy(pcm: Int16Array, from: number, to: number): number {
  let sum = 0;
  for (let i = Math.max(0, from); i < Math.min(pcm.length, to); i++) sum += pcm[i]! * pcm[i]!;
  return sum;
}

/**
 * Which side each diarized speaker is: the channel that carries more of the speaker's energy
 * over their utterances. The recording knows who spoke on which line; the service's speaker
 * numbers do not, and a pitch-based diarizer may number the agent first or second.
 */
export function rolesOf(c: StereoCall, utterances: { speaker: number; start: number; end: number }[]): Map<number, Role> {
  const votes = new Map<number, { caller: number; agent: number }>();
  for (const u of utterances) {
    const from = Math.floor(u.start * c.sampleRate);
    const to = Math.ceil(u.end * c.sampleRate);
    const v = votes.get(u.speaker) ?? { caller: 0, agent: 0 };
    v.caller += energy(c.caller, from, to);
    v.agent += energy(c.agent, from, to);
    votes.set(u.speaker, v);
  }
  const roles = new Map<number, Role>();
  for (const [speaker, v] of votes) roles.set(speaker, v.caller === v.agent ? 'unknown' : v.caller > v.agent ? 'caller' : 'agent');
  return roles;
}

// A caller made of real people's recordings (the Arabic Speech Commands set), calling over the
// Twilio route: shared by the tests that speak with a real voice. The recordings are not in the
// repository: a fresh clone has none, and those tests skip (docs/sandbox.md#real-recordings-for-the-recognizer-bench).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { resample } from '../../src/audio/resample.ts';
import { decodeWav } from '../../src/audio/wav.ts';
import { wordFrames, wordSegments, WORD_FPS } from '../../src/sandbox/engines/word-features.ts';
import { FarEnd } from './far-end.ts';
import { twilioCall, waitFor, type Served, type ServedCall } from './serve.ts';
import { twilioProtocol } from './twilio-protocol.ts';
import { recordingsDir } from '../helpers/recordings.ts';

const AUDIO = recordingsDir();
const SPEECH = AUDIO === undefined ? undefined : join(AUDIO, 'ar-speech-commands');
/** Why the recorded-voice tests skip (no recordings), or false. */
export const noRecordings: string | false = SPEECH !== undefined && existsSync(SPEECH) ? false : `no recordings of real speech${SPEECH ? ` in ${SPEECH}` : ''} (set HIWAR_AUDIO_DIR)`;
const NAMES: Record<string, string> = { 'أربعة': 'four', 'ثمانية': 'eight', 'اثنان': 'two', 'واحد': 'one', 'نعم': 'yes', 'لا': 'no' };

/** One person's words at 8 kHz, each cut to its speech, `gapMs` apart, with a second of silence around. */
export async function recordedWords(speaker: string, words: string[], gapMs = 300): Promise<Int16Array> {
  const parts: Int16Array[] = [new Int16Array(8000)];
  for (const [i, w] of words.entries()) {
    const pcm = decodeWav(readFileSync(join(SPEECH!, `${NAMES[w]}_${speaker}.wav`))).samples;
    const segs = wordSegments(wordFrames(pcm, 'wide').energy);
    const [a, b] = [segs[0]![0], segs.at(-1)![1]];
    parts.push(await resample(pcm.subarray(Math.round((a / WORD_FPS) * 16000), Math.round(((b + 2) / WORD_FPS) * 16000)), 16000, 8000));
    if (i < words.length - 1) parts.push(new Int16Array(8 * gapMs));
  }
  parts.push(new Int16Array(8000));
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) out.set(p, (o += p.length) - p.length);
  return out;
}

/** A Twilio call to `s`, connected: its far end, the served call and what the agent has said. */
export async function recordedCall(s: Served, callSid: string) {
  const { streamUrl } = await twilioCall(s, callSid);
  const far = new FarEnd(streamUrl!, twilioProtocol(callSid, {}), s.clock);
  await far.start();
  await waitFor(() => s.calls.length === 1, 'the call started');
  const call: ServedCall = s.calls[0]!;
  const asked = (re: RegExp) => call.events.some((e) => e.type === 'agent_turn' && re.test(e.text));
  const turns = () => call.events.filter((e) => e.type === 'agent_turn').length;
  return { far, call, asked, turns };
}

import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import callCentre from '../../agents/call-centre/index.ts';
import { resample } from '../../src/audio/resample.ts';
import { decodeWav } from '../../src/audio/wav.ts';
import { wordFrames, wordSegments, WORD_FPS } from '../../src/sandbox/engines/word-features.ts';
import type { Agent } from '../../src/session/agent.ts';
import { confirmTask, digitsTask } from '../../src/tasks/index.ts';
import { FarEnd } from './far-end.ts';
import { startServe, twilioCall, waitFor, type Served } from './serve.ts';
import { twilioProtocol } from './twilio-protocol.ts';
import { recordingsDir } from '../helpers/recordings.ts';

// Real people's recordings (the Arabic Speech Commands set) are not in the repository: a fresh
// clone has none (docs/sandbox.md#real-recordings-for-the-recognizer-bench).
const AUDIO = recordingsDir();
const SPEECH = AUDIO === undefined ? undefined : join(AUDIO, 'ar-speech-commands');
const absent = SPEECH !== undefined && existsSync(SPEECH) ? false : `no recordings of real speech${SPEECH ? ` in ${SPEECH}` : ''} (set HIWAR_AUDIO_DIR)`;
const NAMES: Record<string, string> = { 'أربعة': 'four', 'ثمانية': 'eight', 'اثنان': 'two', 'واحد': 'one', 'نعم': 'yes', 'لا': 'no' };

/** One person's words at 8 kHz, each cut to its speech, 0.3 s apart, with a second of silence around. */
async function caller(speaker: string, words: string[]): Promise<Int16Array> {
  const parts: Int16Array[] = [new Int16Array(8000)];
  for (const w of words) {
    const pcm = decodeWav(readFileSync(join(SPEECH!, `${NAMES[w]}_${speaker}.wav`))).samples;
    const segs = wordSegments(wordFrames(pcm, 'wide').energy);
    const [a, b] = [segs[0]![0], segs.at(-1)![1]];
    parts.push(await resample(pcm.subarray(Math.round((a / WORD_FPS) * 16000), Math.round(((b + 2) / WORD_FPS) * 16000)), 16000, 8000), new Int16Array(2400));
  }
  parts.push(new Int16Array(8000));
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) out.set(p, (o += p.length) - p.length);
  return out;
}

describe('a caller made of real recordings, over the Twilio route', { skip: absent }, () => {
  let s: Served;
  const values: unknown[] = [];
  before(async () => {
    // An agent that asks for an account number (said digit by digit) and a yes/no question.
    const agent: Partial<Agent> = {
      greeting: 'أهلا بك.',
      intents: [],
      hooks: {
        onEnter: async (session) => {
          values.push(await session.runTask(digitsTask({ kind: 'custom', length: 4, prompt: 'ما رقم حسابك؟' })));
          values.push(await session.runTask(confirmTask('هل تريد كشف الحساب بالبريد؟')));
        },
      },
    };
    s = await startServe({ speed: 2, agent: { ...callCentre, ...agent } });
  });
  after(() => s?.close());

  test('says an account number digit by digit, confirms it with نعم and answers لا: the agent gets 4821 and false', async () => {
    const { streamUrl } = await twilioCall(s, 'CAHUMAN1');
    const far = new FarEnd(streamUrl!, twilioProtocol('CAHUMAN1', {}), s.clock);
    await far.start();
    await waitFor(() => s.calls.length === 1, 'the call started');
    const call = s.calls[0]!;
    const asked = (re: RegExp) => call.events.some((e) => e.type === 'agent_turn' && re.test(e.text));
    const turns = () => call.events.filter((e) => e.type === 'agent_turn').length;
    const story = () => call.events.filter((e) => e.type === 'user_turn' || e.type === 'agent_turn').map((e) => `${e.type}: ${'text' in e ? e.text : ''}`).join('\n  ');
    await waitFor(() => asked(/رقم حسابك/), 'the account number asked');
    const before = turns();
    await far.say(await caller('00000010', ['أربعة', 'ثمانية', 'اثنان', 'واحد']));
    await waitFor(() => turns() > before, 'the number read back', 90_000, story);
    await far.say(await caller('00000010', ['نعم']));
    await waitFor(() => asked(/البريد/), 'the yes/no question', 90_000, story);
    await far.say(await caller('00000004', ['لا']));
    await waitFor(() => values.length === 2, 'both answers taken', 90_000, story);
    assert.deepEqual(values, [{ ok: true, value: '4821' }, { ok: true, value: false }], story());
    far.hangup();
    await waitFor(() => s.server.calls.active === 0, 'the call ended');
  });
});

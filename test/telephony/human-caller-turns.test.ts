import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import callCentre from '../../agents/call-centre/index.ts';
import { resample } from '../../src/audio/resample.ts';
import { decodeWav } from '../../src/audio/wav.ts';
import { wordFrames, wordSegments, WORD_FPS } from '../../src/sandbox/engines/word-features.ts';
import type { Agent } from '../../src/session/agent.ts';
import type { SessionEvent, TurnMetrics } from '../../src/session/events.ts';
import { digitsTask } from '../../src/tasks/index.ts';
import { FarEnd } from './far-end.ts';
import { startServe, twilioCall, waitFor, type Served } from './serve.ts';
import { twilioProtocol } from './twilio-protocol.ts';
import { recordingsDir } from '../helpers/recordings.ts';

/**
 * The Arabic turn policy's documented cues (docs/arabic.md#turn-taking) with a real person's
 * voice: a number dictated a digit at a time with pauses longer than the endpointing is held
 * open until the digits a task waits for are all said, and a yes or a no to a yes/no question
 * ends the turn at once. Real recordings are not in the repository (a fresh clone skips).
 */
const AUDIO = recordingsDir();
const SPEECH = AUDIO === undefined ? undefined : join(AUDIO, 'ar-speech-commands');
const absent = SPEECH !== undefined && existsSync(SPEECH) ? false : `no recordings of real speech${SPEECH ? ` in ${SPEECH}` : ''} (set HIWAR_AUDIO_DIR)`;
const NAMES: Record<string, string> = { 'أربعة': 'four', 'ثمانية': 'eight', 'اثنان': 'two', 'واحد': 'one', 'نعم': 'yes', 'لا': 'no' };

/** One person's words at 8 kHz, each cut to its speech, `gapMs` apart, with a second of silence around. */
async function caller(speaker: string, words: string[], gapMs: number): Promise<Int16Array> {
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

const metricsOf = (events: SessionEvent[]): TurnMetrics[] => events.flatMap((e) => (e.type === 'metrics' ? [e.metrics] : []));

describe('the turn policy with a real voice, over the Twilio route', { skip: absent }, () => {
  let s: Served;
  const values: unknown[] = [];
  before(async () => {
    const agent: Partial<Agent> = {
      greeting: 'أهلا بك.',
      // The yes/no answer goes to the (scripted) model, so its turn has metrics: why it ended.
      intents: [{ name: 'keep', examples: ['لا'], reply: 'حسنًا، تبقى بطاقتك تعمل.' }, { name: 'block', examples: ['نعم'], reply: 'تم إيقاف البطاقة.' }],
      hooks: {
        onEnter: async (session) => {
          values.push(await session.runTask(digitsTask({ kind: 'custom', length: 4, prompt: 'ما آخر أربعة أرقام من بطاقتك؟' })));
          await session.say('هل تريد إيقاف البطاقة؟');
        },
      },
    };
    s = await startServe({ speed: 2, agent: { ...callCentre, ...agent } });
  });
  after(() => s?.close());

  test('four digits a second apart are one turn, held until the fourth; لا to a yes/no question ends at once', async () => {
    const { streamUrl } = await twilioCall(s, 'CATURNS1');
    const far = new FarEnd(streamUrl!, twilioProtocol('CATURNS1', {}), s.clock);
    await far.start();
    await waitFor(() => s.calls.length === 1, 'the call started');
    const call = s.calls[0]!;
    const asked = (re: RegExp) => call.events.some((e) => e.type === 'agent_turn' && re.test(e.text));
    const turns = () => call.events.filter((e) => e.type === 'agent_turn').length;
    const story = () => call.events.filter((e) => e.type === 'user_turn' || e.type === 'agent_turn' || e.type === 'metrics')
      .map((e) => `${e.type}: ${e.type === 'metrics' ? `${e.metrics.endOfTurnReason} ${e.metrics.endOfTurnCue}` : 'text' in e ? e.text : ''}`).join('\n  ');
    await waitFor(() => asked(/بطاقتك/), 'the digits asked');
    const before = turns();
    await far.say(await caller('00000010', ['أربعة', 'ثمانية', 'اثنان', 'واحد'], 1000));
    await waitFor(() => turns() > before, 'the number read back', 90_000, story);
    await far.say(await caller('00000010', ['نعم'], 0));
    await waitFor(() => asked(/إيقاف/), 'the yes/no question', 90_000, story);
    await far.say(await caller('00000004', ['لا'], 0));
    await waitFor(() => asked(/تبقى بطاقتك/), 'the answer to لا', 90_000, story);
    assert.deepEqual(values, [{ ok: true, value: '4821' }], story());
    const userTurns = call.events.flatMap((e) => (e.type === 'user_turn' ? [e.text] : []));
    assert.deepEqual(userTurns, ['أربعة ثمانية اثنان واحد', 'نعم', 'لا'], story());
    // The number: held at each pause (fewer digits than the task waits for), ended by the fourth.
    const [number, , no] = [1, 2, 3].map((turn) => metricsOf(call.events).find((m) => m.turn === turn));
    assert.equal(number?.endOfTurnReason, 'held-then-continued', story());
    assert.equal(number?.endOfTurnCue, 'digits:4', story());
    // لا to "هل تريد…؟": a whole answer, ended at the service's early end of speech.
    assert.equal(no?.endOfTurnReason, 'speech-final-complete', story());
    assert.equal(no?.endOfTurnCue, 'yes-no:no', story());
    far.hangup();
    await waitFor(() => s.server.calls.active === 0, 'the call ended');
  });
});

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import callCentre from '../../agents/call-centre/index.ts';
import type { Agent } from '../../src/session/agent.ts';
import type { SessionEvent, TurnMetrics } from '../../src/session/events.ts';
import { digitsTask } from '../../src/tasks/index.ts';
import { noRecordings as absent, recordedCall, recordedWords as caller } from './recorded-caller.ts';
import { startServe, waitFor, type Served } from './serve.ts';

/**
 * The Arabic turn policy's documented cues (docs/arabic.md#turn-taking) with a real person's
 * voice: a number dictated a digit at a time with pauses longer than the endpointing is held
 * open until the digits a task waits for are all said, and a yes or a no to a yes/no question
 * ends the turn at once. Real recordings are not in the repository (a fresh clone skips).
 */
const metricsOf = (events: SessionEvent[]): TurnMetrics[] => events.flatMap((e) => (e.type === 'metrics' ? [e.metrics] : []));

describe('the turn policy with a real voice, over the Twilio route', { skip: absent }, () => {
  let s: Served;
  const values: unknown[] = [];
  before(async () => {
    const agent: Partial<Agent> = {
      greeting: 'أهلا بك.',
      // The yes/no answer goes to the (scripted) model, so its turn has metrics: why it ended.
      // The answer to لا is long: a real "نعم" said over it is a backchannel.
      intents: [
        { name: 'keep', examples: ['لا'], reply: 'حسنًا، تبقى بطاقتك تعمل. وننصحك بمراجعة آخر العمليات في التطبيق، وإن رأيت عملية لا تعرفها فاتصل بنا فورًا على الرقم المجاني.' },
        { name: 'block', examples: ['نعم'], reply: 'تم إيقاف البطاقة.' },
      ],
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

  test('four digits a second apart are one turn, held until the fourth; لا to a yes/no question ends at once; نعم over the answer is a backchannel', async () => {
    const { far, call, asked, turns } = await recordedCall(s, 'CATURNS1');
    const story = () => call.events.filter((e) => e.type === 'user_turn' || e.type === 'agent_turn' || e.type === 'metrics')
      .map((e) => `${e.type}: ${e.type === 'metrics' ? `${e.metrics.endOfTurnReason} ${e.metrics.endOfTurnCue}` : 'text' in e ? e.text : ''}`).join('\n  ');
    await waitFor(() => asked(/بطاقتك/), 'the digits asked');
    const before = turns();
    await far.say(await caller('00000010', ['أربعة', 'ثمانية', 'اثنان', 'واحد'], 1000));
    await waitFor(() => turns() > before, 'the number read back', 90_000, story);
    await far.say(await caller('00000010', ['نعم'], 0));
    await waitFor(() => asked(/إيقاف/), 'the yes/no question', 90_000, story);
    await far.say(await caller('00000004', ['لا'], 0));
    // A second of the answer played, a real "نعم" over it (docs/arabic.md#backchannels).
    await waitFor(() => call.events.some((e) => e.type === 'reply_started' && e.turn === 3), 'the answer to لا started', 90_000, story);
    const from = far.played;
    await waitFor(() => far.played > from + 1, 'a second of the answer played', 90_000, story);
    await far.say(await caller('00000014', ['نعم'], 0));
    await waitFor(() => asked(/تبقى بطاقتك/), 'the answer to لا', 90_000, story);
    const answer = call.events.find((e) => e.type === 'agent_turn' && /تبقى بطاقتك/.test(e.text));
    assert.equal(answer?.type === 'agent_turn' && answer.interrupted, false, story());
    assert.ok(call.events.some((e) => e.type === 'interruption' && e.kind === 'backchannel'), story());
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

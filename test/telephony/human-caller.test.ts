import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import callCentre from '../../agents/call-centre/index.ts';
import type { Agent } from '../../src/session/agent.ts';
import { confirmTask, digitsTask } from '../../src/tasks/index.ts';
import { noRecordings as absent, recordedCall, recordedWords as caller } from './recorded-caller.ts';
import { startServe, waitFor, type Served } from './serve.ts';

// Real people's recordings (the Arabic Speech Commands set) are not in the repository: a fresh
// clone has none (docs/sandbox.md#real-recordings-for-the-recognizer-bench).

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
    const { far, call, asked, turns } = await recordedCall(s, 'CAHUMAN1');
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

/**
 * A user tests their agent's out-of-service behaviour through the public `hiwar/testing` API
 * alone: `runCall`'s `outOfService` has the sandbox refuse the key for one call (an empty wallet,
 * a key without access) after the line was rendered, as a server renders it at start-up; the
 * caller hears the line and the call ends out of service. `TestSandbox.refuseKey` does the same
 * for code of one's own, and gives the key back. The wallet running out mid-call, as the agent
 * begins its answer: the reply cut before a word of it was heard is no agent turn (the transcript
 * held an empty one), a typed `reply_dropped` event says why, and the caller hears the line.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Agent } from '../../src/index.ts';
import { runCall, startTestSandbox, type TestSandbox } from '../../src/testing/index.ts';

const agent: Agent = {
  name: 'florist',
  instructions: 'متجر ورد',
  greeting: 'أهلًا بك في متجر الورد.',
  voice: { voice_id: 'ar-hijazi-female-1' },
  outOfServiceLine: 'نعتذر، الخدمة غير متاحة حاليًا. حاول لاحقًا.',
  intents: [{ name: 'order', examples: ['أين طلبي'], reply: 'طلبك في الطريق وسيصلك اليوم.' }],
};
// The caller stays on the line long enough to hear it all.
const waits = [{ hangup: true as const, pauseMs: 30_000 }];

let sandbox: TestSandbox;
before(async () => {
  sandbox = await startTestSandbox({ progress: false });
});
after(() => sandbox.close());

for (const why of ['empty-wallet', 'no-access'] as const) {
  test(`runCall({ outOfService: '${why}' }): the caller hears the out-of-service line, and the call ends out of service`, async () => {
    const call = await runCall(agent, waits, { sandbox, outOfService: why });
    assert.match(call.ended, /^out of service: /, call.ended);
    // An empty wallet is found once the call is up: the greeting may have begun, cut before a
    // word was heard; it is then no turn of the agent's (a `reply_dropped` event says so).
    assert.deepEqual(
      call.agentTurns.map((t) => t.heardText ?? t.text),
      [agent.outOfServiceLine],
      'the caller heard the line, and nothing else',
    );
    assert.equal(call.agentTurns.at(-1)?.text, agent.outOfServiceLine, 'the last thing the agent said');
    const heard = call.recording().length;
    assert.ok(heard > 16_000, `the caller's recording holds the line (${heard} bytes)`);
    assert.ok(call.endedByAgent, 'the agent ended the call');
  });
}

test('refuseKey: the key refused until given back; the same sandbox serves the next call', async () => {
  const restore = sandbox.refuseKey();
  const refused = await runCall(agent, waits, { sandbox });
  assert.match(refused.ended, /^out of service: .*(wallet|balance)/i, refused.ended);
  restore();
  assert.throws(() => sandbox.refuseKey('expired' as never), /refuseKey: "empty-wallet" or "no-access"/);
  const call = await runCall(agent, [{ hangup: true, pauseMs: 4_000 }], { sandbox });
  assert.equal(call.agentTurns[0]?.text, agent.greeting, 'served again: the greeting');
  assert.doesNotMatch(call.ended, /out of service/);
});

test('the wallet runs out as the agent begins its answer: no empty agent turn, a reply_dropped event, the out-of-service line', async () => {
  let restore: (() => void) | undefined;
  const call = await runCall(agent, [{ say: 'أين طلبي' }, { hangup: true, pauseMs: 30_000 }], {
    sandbox,
    onEvent: (e) => {
      // The caller's turn is heard: the reply to it starts on a wallet that has just run out.
      if (e.type === 'user_turn' && !restore) restore = sandbox.refuseKey('empty-wallet');
    },
  });
  restore?.();
  assert.match(call.ended, /^out of service: .*wallet is empty/, call.ended);
  assert.deepEqual(
    call.agentTurns.map((t) => t.heardText ?? t.text),
    [agent.greeting, agent.outOfServiceLine],
    `no agent turn of nothing: ${JSON.stringify(call.agentTurns)}`,
  );
  assert.ok(!call.events.some((e) => e.type === 'agent_turn' && !e.heardText), 'no agent_turn event of nothing');
  const answer = call.events.find((e) => e.type === 'reply_started' && e.turn === 1);
  assert.ok(answer && answer.type === 'reply_started', 'the answer began');
  const dropped = call.events.find((e) => e.type === 'reply_dropped');
  assert.ok(dropped && dropped.type === 'reply_dropped', `a typed event says the reply was dropped: ${JSON.stringify(call.events.map((e) => e.type))}`);
  assert.equal(dropped.reply, answer.reply, 'the answer is the reply dropped');
  assert.equal(dropped.reason, call.ended, 'and why: the reason the call ends with');
  const line = call.events.find((e) => e.type === 'agent_turn' && e.line === 'out_of_service');
  assert.ok(line && call.events.indexOf(dropped) < call.events.indexOf(line), 'the line follows');
  assert.ok(call.recording().length > 16_000 * 3, 'the caller heard audio (the greeting and the line)');
});

/**
 * A user tests their agent's out-of-service behaviour through the public `hiwar/testing` API
 * alone: `runCall`'s `outOfService` has the sandbox refuse the key for one call (an empty wallet,
 * a key without access) after the line was rendered, as a server renders it at start-up; the
 * caller hears the line and the call ends out of service. `TestSandbox.refuseKey` does the same
 * for code of one's own, and gives the key back.
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

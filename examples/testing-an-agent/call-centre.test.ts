/**
 * Tests the call-centre agent (agents/call-centre) the way a team tests its own agent in CI:
 * offline, through `hiwar/testing`, with Node's test runner. Run it:
 *
 *   node --import tsx --test examples/testing-an-agent/call-centre.test.ts
 *
 * One sandbox serves every call of the file; each call is a scripted caller (lines it says, keys
 * it presses, a barge-in, a hang-up) against the agent, on a clock 3× real time.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { expectAgentSaid, expectHeard, expectNoErrors, expectToolCall, runCall, startTestSandbox, type TestSandbox } from 'hiwar/testing';
import callCentre, { HUMAN_DESK } from '../../agents/call-centre/index.ts';

let sandbox: TestSandbox;
before(async () => {
  sandbox = await startTestSandbox();
});
after(() => sandbox.close());

test('a balance question runs get_balance and the agent says the balance', async () => {
  const call = await runCall(callCentre, { steps: [{ say: 'كم رصيدي' }, { hangup: true }] }, { sandbox });
  expectHeard(call, 'كم رصيدي');
  expectToolCall(call, 'get_balance', { account: 'current' });
  expectAgentSaid(call, '12,500');
  expectNoErrors(call);
  assert.ok(call.metrics.every((m) => m.voiceToVoiceMs === undefined || m.voiceToVoiceMs > 0), 'latencies are measured');
});

test('pressing 2 blocks the card', async () => {
  const call = await runCall(callCentre, [{ dtmf: '2#' }, { hangup: true }], { sandbox });
  assert.deepEqual(call.userTurns, ['[DTMF: 2]']);
  const blocked = expectToolCall(call, 'block_card', { reason: 'lost' });
  assert.deepEqual(blocked.result, { blocked: true, last4: '4821', reason: 'lost', reference: 'BLK-48213', replacementDays: 5 });
  expectAgentSaid(call, 'تم إيقاف بطاقتك');
});

test('a caller who cuts the agent off for a human is transferred, and the agent remembers only what was heard', async () => {
  const call = await runCall(
    callCentre,
    [{ say: 'بطاقتي ضاعت أرجو إيقافها' }, { say: 'أريد التحدث مع موظف', bargeInAfterMs: 1500 }],
    { sandbox },
  );
  const cut = call.agentTurns.find((t) => t.interrupted);
  assert.ok(cut, 'the reply about the card was interrupted');
  assert.ok(cut.heardText!.length < cut.text.length, 'the caller heard only part of it');
  expectToolCall(call, 'transfer_to_human');
  assert.equal(call.endedByAgent?.transfer, HUMAN_DESK);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DRAIN_DEFAULTS } from '../../../src/server/calls.ts';
import { CallTokens } from '../../../src/server/tokens.ts';
import { CallRefused } from '../../../src/server/types.ts';
import type { Agent } from '../../../src/session/agent.ts';
import { agentWithVariables, fillVariables, MissingVariablesError, placeholders } from '../../../src/session/variables.ts';
import type { CallReport } from '../../../src/session/events.ts';
import { OutboundCalls, plivoOutbound, PlaceCallError, summaryOf, telnyxOutbound, twilioOutbound, vonageOutbound, type OutboundPlatform } from '../../../transports/telephony/index.ts';
import { notPlacedOf } from '../../../transports/telephony/campaign/dialer.ts';
import * as F from './fixtures.ts';
import { heldOpen } from '../../helpers/processes.ts';

const agent = { name: 'reminder', instructions: 'ذكّر {name} بموعد {due}. أجب بصيغة {"ok": true}.', greeting: 'مرحبًا {name}، معك سارة من بنك الواحة.' } as Agent;

test('variables: {name} filled in greeting and instructions, Arabic names allowed, other braces untouched', () => {
  assert.deepEqual(placeholders(agent.instructions), ['name', 'due']);
  const filled = agentWithVariables(agent, { name: 'خالد', due: '١٥ مارس' });
  assert.equal(filled.greeting, 'مرحبًا خالد، معك سارة من بنك الواحة.');
  assert.equal(filled.instructions, 'ذكّر خالد بموعد ١٥ مارس. أجب بصيغة {"ok": true}.');
  assert.equal(agent.greeting, 'مرحبًا {name}، معك سارة من بنك الواحة.', 'the agent itself is left as it was');
  assert.equal(fillVariables('أهلًا {الاسم}', { الاسم: 'منى' }), 'أهلًا منى');
  const plain = { ...agent, instructions: 'x', greeting: 'أهلًا' } as Agent;
  assert.equal(agentWithVariables(plain, {}), plain, 'an agent without variables is used as it is');
});

test('variables: a missing or empty one is an error naming each, never a spoken "{name}"', () => {
  assert.throws(() => agentWithVariables(agent, { name: 'خالد' }), (e: unknown) => e instanceof MissingVariablesError && e.missing.join() === 'due' && /\{due\}/.test(e.message));
  assert.throws(() => agentWithVariables(agent, { name: '', due: 'x' }), /missing call variable: name/);
  assert.throws(() => agentWithVariables(agent, {}), /missing call variables: name, due/);
});

test("each platform's status callbacks read as typed outcomes, the raw status kept", () => {
  const tw = twilioOutbound();
  const s = (status: string, d?: number) => F.twilioStatus('CA1', 'AC1', '+966500000001', '+966110000000', status, 0, d);
  assert.deepEqual(tw.status(s('ringing')), { status: 'ringing', raw: 'ringing', platformCallId: 'CA1' });
  assert.equal(tw.status(s('in-progress'))!.status, 'answered');
  assert.deepEqual(tw.status(s('completed', 42)), { status: 'completed', raw: 'completed', durationS: 42, platformCallId: 'CA1' });
  for (const [raw, out] of [['busy', 'busy'], ['no-answer', 'no-answer'], ['failed', 'failed'], ['canceled', 'canceled']]) assert.equal(tw.status(s(raw!))!.status, out);

  const tx = telnyxOutbound();
  const flat = (o: unknown, p = ''): Record<string, string> =>
    Object.assign({}, ...Object.entries(o as object).map(([k, v]) => (v && typeof v === 'object' ? flat(v, `${p}${k}.`) : { [p + k]: String(v) })));
  const e = (type: string, cause?: string) => flat(F.telnyxEvent(type, 'v3:x', 'c3Q=', '+966500000001', '+966110000000', cause ? { hangup_cause: cause } : {}));
  assert.equal(tx.status(e('call.answered'))!.status, 'answered');
  for (const [cause, out] of [['normal_clearing', 'completed'], ['user_busy', 'busy'], ['call_rejected', 'busy'], ['timeout', 'no-answer'], ['originator_cancel', 'canceled'], ['not_found', 'failed']]) {
    assert.deepEqual(tx.status(e('call.hangup', cause)), { status: out, raw: cause, platformCallId: 'v3:x' });
  }
  assert.equal(tx.status(e('streaming.started')), undefined, 'events about other things say nothing');

  const pl = plivoOutbound();
  const p = (status: string, extra: Record<string, string> = {}) => F.plivoCallback('u1', 'r1', '966500000001', '966110000000', status, extra);
  assert.deepEqual(pl.status(p('completed', { Duration: '30' })), { status: 'completed', raw: 'completed', durationS: 30, platformCallId: 'u1' });
  for (const [raw, out] of [['timeout', 'failed'], ['no-answer', 'no-answer'], ['cancel', 'busy'], ['busy', 'busy'], ['in-progress', 'answered']]) assert.equal(pl.status(p(raw!))!.status, out);
  assert.equal(pl.status(p('cancel', { HangupSource: 'API Request' }))!.status, 'canceled', 'a cancel an API request made');

  const vo = vonageOutbound();
  const v = (status: string, extra: Record<string, string> = {}) => F.vonageEvent('uu', '966500000001', '966110000000', status, extra);
  assert.deepEqual(vo.status(v('completed', { duration: '7' })), { status: 'completed', raw: 'completed', durationS: 7, platformCallId: 'uu' });
  for (const [raw, out] of [['started', 'queued'], ['unanswered', 'no-answer'], ['timeout', 'no-answer'], ['cancelled', 'canceled'], ['rejected', 'failed']]) assert.equal(vo.status(v(raw!))!.status, out);
});

test('the registry: checked before dialling; a call never goes back, a final outcome stays, a failing hook is only logged', async () => {
  const dialled: unknown[] = [];
  const fakeClient: OutboundPlatform = { ...twilioOutbound(), dial: async (req) => (dialled.push(req), { platformCallId: 'CA9' }) };
  const seen: string[] = [];
  const calls = new OutboundCalls(
    { tokens: new CallTokens(), agentOf: async () => agent },
    { platforms: { twilio: fakeClient }, from: '+966110000000', onStatus: (c) => (seen.push(c.status), assert.fail('a hook that throws')) },
  );
  const urls = () => ({ stream: 'ws://x/s', answer: 'http://x/a', status: 'http://x/st', after: 'http://x/af' });
  await assert.rejects(calls.place({ to: '+966500000001', variables: { name: 'x' } }, urls), (e: unknown) => e instanceof PlaceCallError && /missing call variable: due/.test((e as Error).message));
  await assert.rejects(calls.place({ to: '+966500000001', from: '0110000000', variables: { name: 'x', due: 'y' } }, urls), /"from" must be an E\.164 number/);
  assert.equal(dialled.length, 0);
  const c = await calls.place({ to: '+966500000001', variables: { name: 'x', due: 'y' } }, urls);
  assert.equal(c.platformCallId, 'CA9');
  const report = (status: string, extra: Record<string, string> = {}) => calls.report(c.id, 'twilio', { CallSid: 'CA9', CallStatus: status, ...extra });
  await report('in-progress');
  await report('ringing');
  assert.equal(calls.get(c.id)!.status, 'answered', 'a late ringing does not take the call back');
  await report('completed', { CallDuration: '5' });
  await report('failed');
  const done = await calls.outcome(c.id);
  assert.equal(done.outcome, 'completed');
  assert.equal(done.durationS, 5);
  assert.deepEqual(seen, ['answered', 'completed'], 'told of each change once');
  assert.equal(await calls.report(c.id, 'plivo', { CallStatus: 'busy' }), false, "another platform's callback names no call");
  assert.equal(await calls.report('out-unknown', 'twilio', { CallStatus: 'busy' }), false);
});

test('the registry and a draining server: a call is promised to the drain before its dial and withdrawn once it ends unanswered or its dial fails; nothing is dialled while draining', async () => {
  const told: string[] = [];
  const host = {
    draining: false,
    promise: (key: string, until: number, o?: { placed?: boolean; waitMs?: number }) => told.push(`promise ${key} placed=${o?.placed} wait=${o?.waitMs} life=${until - Date.now() >= 20_000 + new CallTokens().ttlMs - 1000}`),
    withdraw: (key: string) => told.push(`withdraw ${key}`),
  };
  let fail = false;
  const fakeClient: OutboundPlatform = {
    ...twilioOutbound(),
    dial: async (req) => {
      told.push(`dial ${req.id}`);
      if (fail) throw new Error('boom');
      return { platformCallId: `CA-${req.id}` };
    },
  };
  const calls = new OutboundCalls({ tokens: new CallTokens(), agentOf: async () => agent, host }, { platforms: { twilio: fakeClient }, from: '+966110000000', ringTimeoutS: 20 });
  const urls = () => ({ stream: 'ws://x/s', answer: 'http://x/a', status: 'http://x/st', after: 'http://x/af' });
  const c = await calls.place({ to: '+966500000001', variables: { name: 'x', due: 'y' } }, urls);
  assert.deepEqual(told, [`promise twilio:${c.id} placed=true wait=${20_000 + DRAIN_DEFAULTS.promisedMediaWaitMs} life=true`, `dial ${c.id}`], 'promised before the dial, for the ring timeout and the media wait');
  await calls.report(c.id, 'twilio', { CallSid: `CA-${c.id}`, CallStatus: 'no-answer' });
  assert.equal(told.at(-1), `withdraw twilio:${c.id}`, 'an unanswered call is no longer waited for');
  fail = true;
  await assert.rejects(calls.place({ to: '+966500000001', variables: { name: 'x', due: 'y' } }, urls), /boom/);
  assert.match(told.at(-1)!, /^withdraw twilio:out-/, 'a failed dial is withdrawn');
  host.draining = true;
  const before = told.length;
  await assert.rejects(calls.place({ to: '+966500000001', variables: { name: 'x', due: 'y' } }, urls), (e: unknown) => e instanceof CallRefused && e.reason === 'draining');
  assert.equal(told.length, before, 'nothing promised or dialled while draining');
  assert.equal(notPlacedOf(new CallRefused('draining')), 'server-draining', 'a campaign attempt refused so is typed, and retried as failed is');
});

test("an answered call's outcome waits for a session still running here, however long; one that ran nowhere here is given without its summary after the wait", async () => {
  const fakeClient: OutboundPlatform = { ...twilioOutbound(), dial: async () => ({ platformCallId: `CA${Math.random()}` }) };
  const calls = new OutboundCalls({ tokens: new CallTokens(), agentOf: async () => agent }, { platforms: { twilio: fakeClient }, from: '+966110000000', sessionWaitMs: 20 });
  const urls = () => ({ stream: 'ws://x/s', answer: 'http://x/a', status: 'http://x/st', after: 'http://x/af' });
  const answered = async () => {
    const c = await calls.place({ to: '+966500000001', variables: { name: 'x', due: 'y' } }, urls);
    const sid = c.platformCallId!;
    await calls.report(c.id, 'twilio', { CallSid: sid, CallStatus: 'in-progress' });
    return { c, done: () => calls.report(c.id, 'twilio', { CallSid: sid, CallStatus: 'completed', CallDuration: '9' }) };
  };
  // Timers fire in the order they are due: a 20 ms wait, had it started, fires before this one.
  const afterTheWait = () => new Promise((r) => setTimeout(r, 100));

  const here = await answered();
  await calls.sessionStarted(here.c.id);
  await here.done();
  let settled: Awaited<ReturnType<typeof calls.outcome>> | undefined;
  void calls.outcome(here.c.id, { session: true }).then((c) => (settled = c));
  const seen = () => settled;
  await afterTheWait();
  assert.equal(seen(), undefined, 'the session is still running here: its summary is waited for');
  calls.sessionEnded(here.c.id);
  await calls.noteSession(here.c.id, { ended: 'caller hung up', transcript: 'agent: مرحبًا', toolResults: {} });
  await afterTheWait();
  assert.equal(seen()?.outcome, 'completed');
  assert.equal(seen()?.session?.transcript, 'agent: مرحبًا', 'given with what the session learnt');

  // The session ends before the platform's last callback: its summary is in, the outcome is
  // not, and no wait may hand the waiter a call without one.
  const early = await answered();
  await calls.sessionStarted(early.c.id);
  let earlyDone: Awaited<ReturnType<typeof calls.outcome>> | undefined;
  void calls.outcome(early.c.id, { session: true }).then((c) => (earlyDone = c));
  const earlySeen = () => earlyDone;
  calls.sessionEnded(early.c.id);
  await calls.noteSession(early.c.id, { ended: 'caller hung up', transcript: 'caller: نعم', toolResults: {} });
  await afterTheWait();
  assert.equal(earlySeen(), undefined, 'the outcome is not known yet: still waited for');
  await early.done();
  await afterTheWait();
  assert.equal(earlySeen()?.outcome, 'completed');
  assert.equal(earlySeen()?.session?.transcript, 'caller: نعم');

  const elsewhere = await answered();
  await elsewhere.done();
  const alone = await heldOpen(calls.outcome(elsewhere.c.id, { session: true }));
  assert.equal(alone.outcome, 'completed');
  assert.equal(alone.session, undefined, 'no session ran here: given without a summary once the wait is over');
});

test("a call report as a campaign reads it: who answered and when it was decided, what the caller heard, and each task's value (a failed task none)", () => {
  const report = {
    agent: 'reminder',
    handoffs: [],
    llm: 'test',
    ended: 'caller hung up',
    durationSeconds: 30,
    notices: [],
    amd: { class: 'human', decisionMs: 1800, reason: 'short greeting then silence', action: 'greeted', retry: false, signals: { speechMs: 500, transcript: 'ألو' } },
    turns: [
      { role: 'agent', text: 'مرحبًا سارة، هل تؤكدين موعدك يوم الأحد؟', at: 3 },
      { role: 'user', text: 'نعم أؤكد', at: 6 },
      { role: 'agent', text: 'تم تأكيد موعدك، شكرًا لك وإلى اللقاء', heardText: 'تم تأكيد موعدك', interrupted: true, at: 9 },
    ],
    tasks: [
      { name: 'confirm_appointment', agent: 'reminder', at: 3, endedAt: 6, result: { ok: true, value: { confirmed: true, day: 'الأحد' } } },
      { name: 'new_date', agent: 'reminder', at: 6, endedAt: 8, result: { ok: false, reason: 'not asked' } },
    ],
  } as unknown as CallReport;
  assert.deepEqual(summaryOf(report), {
    amd: { class: 'human', action: 'greeted', decisionMs: 1800 },
    transcript: 'agent: مرحبًا سارة، هل تؤكدين موعدك يوم الأحد؟\ncaller: نعم أؤكد\nagent: تم تأكيد موعدك',
    toolResults: { confirm_appointment: { confirmed: true, day: 'الأحد' } },
    ended: 'caller hung up',
  });
  assert.deepEqual(summaryOf({ ...report, amd: undefined, turns: [], tasks: [] }), { ended: 'caller hung up' }, 'an unanswered call: nothing to carry');
});

test('a campaign reads what the tools returned too: the last result of each tool, a task of the same name over it, a failed tool nothing', () => {
  const report = {
    agent: 'reminder', handoffs: [], llm: 'test', ended: 'agent hung up', durationSeconds: 20, notices: [], turns: [],
    tasks: [{ name: 'confirm', agent: 'reminder', at: 1, endedAt: 2, result: { ok: true, value: 'yes' } }],
    tools: [
      { name: 'book_slot', at: 3, ms: 40, result: { slot: 'الأحد 10:00', booked: false } },
      { name: 'book_slot', at: 5, ms: 35, result: { slot: 'الأحد 11:00', booked: true } },
      { name: 'confirm', at: 6, ms: 5, result: 'from the tool' },
      { name: 'send_sms', at: 7, ms: 900, error: 'timeout' },
    ],
  } as unknown as CallReport;
  assert.deepEqual(summaryOf(report).toolResults, { book_slot: { slot: 'الأحد 11:00', booked: true }, confirm: 'yes' });
});

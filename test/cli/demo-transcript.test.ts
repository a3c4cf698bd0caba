import assert from 'node:assert/strict';
import { test } from 'node:test';
import { demoTranscript } from '../../src/cli/demo-transcript.ts';
import type { SessionEvent } from '../../src/session/events.ts';

/** Feeds events one by one and returns the lines printed after each. */
function feed(events: SessionEvent[]): string[][] {
  const lines: string[] = [];
  const on = demoTranscript((l) => lines.push(l));
  return events.map((e) => {
    const before = lines.length;
    on(e);
    return lines.slice(before);
  });
}

const greeting = 'أهلًا بك في بنك الواحة، معك سارة. كيف أخدمك؟';

test("the agent's words print as it starts saying them, not once it has finished", () => {
  const out = feed([
    { type: 'reply_started', reply: 1 },
    { type: 'agent_chunk', text: greeting, reply: 1 },
    { type: 'state', state: 'speaking' },
    { type: 'agent_turn', text: greeting, heardText: greeting, interrupted: false, reply: 1 },
    { type: 'user_turn', text: 'كم رصيدي', turn: 1 },
  ]);
  assert.deepEqual(out[1], [`  الوكيل  ◂ ${greeting}`], 'the greeting is on screen while it plays');
  assert.deepEqual(out[3], [], 'and not printed a second time when it ends');
  assert.deepEqual(out[4], ['  العميل  ▸ كم رصيدي']);
});

test('a reply the caller cut off is followed by what they heard of it', () => {
  const out = feed([
    { type: 'agent_chunk', text: 'تم إيقاف بطاقتك، وستصلك بطاقة جديدة خلال خمسة أيام.', reply: 3 },
    { type: 'interruption', kind: 'paused' },
    { type: 'interruption', kind: 'confirmed' },
    { type: 'agent_turn', text: 'تم إيقاف بطاقتك، وستصلك بطاقة جديدة خلال خمسة أيام.', heardText: 'تم إيقاف بطاقتك', interrupted: true, reply: 3 },
    { type: 'agent_chunk', text: 'سأحولك الآن.', reply: 4 },
    { type: 'agent_turn', text: 'سأحولك الآن.', heardText: '', interrupted: true, reply: 4 },
  ]);
  assert.deepEqual(out[1], [], 'a pause is not a barge-in yet');
  assert.match(out[2]![0]!, /barge-in: the agent stops/);
  assert.deepEqual(out[3], ['  (cut off [قوطع]: the caller heard «تم إيقاف بطاقتك»)']);
  assert.deepEqual(out[5], ['  (cut off [قوطع]: the caller heard none of it)']);
});

test('a reply the service could not voice says so; a turn with no chunk before it is printed whole', () => {
  const out = feed([
    { type: 'agent_chunk', text: greeting, reply: 1 },
    { type: 'agent_turn', text: '', heardText: '', interrupted: false, reply: 1 },
    { type: 'agent_turn', text: 'مع السلامة', heardText: 'مع السلامة', interrupted: false, reply: 2 },
  ]);
  assert.deepEqual(out[1], ['  (not heard: the service did not voice this reply)']);
  assert.deepEqual(out[2], ['  الوكيل  ◂ مع السلامة']);
});

test('a reply the call going out of service cut before a word was heard (reply_dropped) says so under its printed words', () => {
  const out = feed([
    { type: 'agent_chunk', text: 'طلبك في الطريق.', reply: 2 },
    { type: 'reply_dropped', reply: 2, reason: 'out of service: speech synthesis stopped: the wallet is empty (close 40201)' },
    { type: 'reply_dropped', reply: 5, reason: 'out of service: speech synthesis stopped: the wallet is empty (close 40201)' },
  ]);
  assert.deepEqual(out[1], ['  (not heard: the call went out of service first)']);
  assert.deepEqual(out[2], [], 'nothing printed of it, nothing to say');
});

test('the latency table says so in a line when no caller turn was answered, instead of a header over nothing', async () => {
  const { latencyTable } = await import('../../src/cli/demo.ts');
  const report = { agent: 'x', handoffs: [], tasks: [], llm: 'scripted', turns: [{ role: 'agent', text: greeting, heardText: greeting, interrupted: false, startedAt: 0 }], ended: 'caller hung up', durationSeconds: 3, notices: [] } as unknown as Parameters<typeof latencyTable>[0];
  const table = latencyTable(report, 3);
  assert.doesNotMatch(table, /voice-to-voice/, 'no empty table');
  assert.match(table, /^\nlatency: no reply to a caller turn in this call, so no per-turn table \(the caller hung up first, or was never heard\)$/);
});

test("a tool that threw, or whose arguments were refused, prints the error the model is handed, not a null result", () => {
  const call = (name: string) => ({ id: 'c1', name, arguments: '{}' });
  const out = feed([
    { type: 'tool', outcome: { call: call('loyalty_points'), result: null, error: 'backend down', threw: true, ms: 3 } },
    { type: 'tool', outcome: { call: call('get_balance'), result: null, error: 'invalid arguments: Required', ms: 0 } },
    { type: 'tool', outcome: { call: call('get_balance'), result: { balance: 12500 }, ms: 2 } },
  ]);
  assert.deepEqual(out, [['  (tool loyalty_points → error: backend down)'], ['  (tool get_balance → error: invalid arguments: Required)'], ['  (tool get_balance → {"balance":12500})']]);
});

test("lines that are not the model's words carry a tag: the greeting, a say, the model-error, out-of-service and closing lines; a reply has none", () => {
  const sorry = 'عذرًا، حدث خلل مؤقت. هل يمكنك إعادة طلبك؟';
  const out = feed([
    { type: 'reply_started', reply: 1, scripted: 'greeting' },
    { type: 'agent_chunk', text: greeting, reply: 1 },
    { type: 'agent_turn', text: greeting, heardText: greeting, interrupted: false, reply: 1 },
    { type: 'reply_started', reply: 2, turn: 1 },
    { type: 'agent_chunk', text: 'رصيدك ألف ريال.', reply: 2 },
    { type: 'agent_turn', text: 'رصيدك ألف ريال.', heardText: 'رصيدك ألف ريال.', interrupted: false, reply: 2 },
    { type: 'reply_started', reply: 3, turn: 2 },
    { type: 'agent_chunk', text: sorry, reply: 3, line: 'model_error' },
    { type: 'reply_started', reply: 4, scripted: 'scripted' },
    { type: 'agent_turn', text: 'لحظة من فضلك.', heardText: 'لحظة من فضلك.', interrupted: false, reply: 4 },
    { type: 'reply_started', reply: 5, line: 'out_of_service' },
    { type: 'agent_chunk', text: 'الخدمة غير متاحة.', reply: 5 },
    { type: 'reply_started', reply: 6, line: 'closing' },
    { type: 'agent_chunk', text: 'الخدمة غير متاحة.', reply: 6 },
  ]);
  assert.deepEqual(out.flat(), [
    `  الوكيل  ◂ [greeting] ${greeting}`,
    '  الوكيل  ◂ رصيدك ألف ريال.',
    `  الوكيل  ◂ [model-error line] ${sorry}`,
    '  الوكيل  ◂ [scripted] لحظة من فضلك.',
    '  الوكيل  ◂ [out-of-service line] الخدمة غير متاحة.',
    '  الوكيل  ◂ [closing line] الخدمة غير متاحة.',
  ]);
});

test('a tool prints as it starts (a slow one shows while the caller waits), then with what it returned', () => {
  const out = feed([
    { type: 'tool_started', name: 'get_balance', callId: 'c1', args: { account: '1234' }, reply: 2 },
    { type: 'tool', outcome: { call: { id: 'c1', name: 'get_balance', arguments: '{"account":"1234"}' }, result: { balance: 12500 }, ms: 900 }, reply: 2 },
  ]);
  assert.deepEqual(out, [['  (tool get_balance working…)'], ['  (tool get_balance → {"balance":12500})']]);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { encodeWav } from '../../src/audio/wav.ts';
import type { CallReport } from '../../src/session/events.ts';
import { turnMetrics } from '../../src/session/metrics.ts';
import { filterRows, parseFilter, rowOf } from '../../src/review/list.ts';
import { buildReviewModel, heardSplit, latencyOf, placeTurns } from '../../src/review/model.ts';
import { waveformOf } from '../../src/review/peaks.ts';
import { esc, scriptJson } from '../../src/review/html.ts';
import type { CallRecord } from '../../src/analytics/call-record.ts';

const report = (over: Partial<CallReport> = {}): CallReport => ({
  agent: 'bank',
  llm: 'scripted',
  ended: 'caller hung up',
  durationSeconds: 20,
  notices: [],
  handoffs: [{ from: 'bank', to: 'cards', carry: 'summary', at: 12 }],
  tasks: [{ name: 'digits:card', agent: 'cards', at: 13, endedAt: 16, result: { ok: false, reason: 'no answer' } }],
  tools: [{ name: 'get_balance', at: 6.5, ms: 3 }, { name: 'block_card', at: 11, ms: 2, error: 'refused' }],
  turns: [
    { role: 'agent', text: 'أهلًا بك', heardText: 'أهلًا بك', at: 2, startedAt: 0.5 },
    { role: 'user', text: 'كم رصيدي', at: 5.2, startedAt: 3.9, speechEndedAt: 4.6 },
    {
      role: 'agent',
      text: 'رصيدك ١٢٥٠٠ ريال وهل تريد شيئا آخر',
      heardText: 'رصيدك ١٢٥٠٠ ريال',
      interrupted: true,
      at: 8,
      startedAt: 6,
      metrics: { interrupted: true, endOfSpeechToFinalMs: 300, turnDecisionMs: 400, llmFirstTokenMs: 250, llmFirstSentenceMs: 150, ttsFirstAudioMs: 180, playoutStartMs: 20, voiceToVoiceMs: 1300 },
    },
    // No first word's time (an older report): placed from its words, after the turn ahead.
    { role: 'user', text: 'لا شكرا', at: 10 },
  ],
  ...over,
});

test('turns are placed on the recording: shifted by the offset, a caller turn from its first word to its last, an agent turn from its first audio to its end', () => {
  const m = buildReviewModel({ report: report(), waveform: { perSecond: 50, caller: [], agent: [] }, seconds: 21, offsetSeconds: 0.25 });
  const spans = m.turns.map((t) => [t.role, t.start, t.end]);
  assert.deepEqual(spans, [
    ['agent', 0.75, 2.25],
    ['user', 4.15, 4.85],
    ['agent', 6.25, 8.25],
    // 2 words × 0.45 s before the decision at 10 s (+0.25)
    ['user', 9.35, 10.25],
  ]);
  assert.equal(m.seconds, 21);
  assert.equal(m.worstLatencyMs, 1300);
});

test('a caller turn without word times never starts before the turn ahead of it ends', () => {
  const turns = placeTurns(
    [
      { role: 'agent', text: 'x', at: 9, startedAt: 3 },
      { role: 'user', text: 'واحد اثنان ثلاثة أربعة خمسة ستة', at: 10 },
    ],
    (t) => t,
  );
  assert.equal(turns[1]!.start, 9);
  assert.equal(turns[1]!.end, 10);
});

test('heard against meant: an interrupted reply splits into the words the caller heard and the rest', () => {
  const m = buildReviewModel({ report: report(), waveform: { perSecond: 50, caller: [], agent: [] }, seconds: 20 });
  const cut = m.turns[2]!;
  assert.equal(cut.interrupted, true);
  assert.equal(cut.heard, 'رصيدك ١٢٥٠٠ ريال');
  assert.equal(cut.unheard, 'وهل تريد شيئا آخر');
  assert.equal(m.turns[0]!.heard, 'أهلًا بك');
  assert.equal(m.turns[0]!.unheard, undefined);
  // Nothing heard at all: the whole reply is unheard.
  assert.deepEqual(heardSplit('تم إيقاف بطاقتك', '', true), { heard: '', unheard: 'تم إيقاف بطاقتك' });
  // Heard text that is not the reply's start is shown as is, the reply as unheard.
  assert.deepEqual(heardSplit('أ ب ج', 'د', true), { heard: 'د', unheard: 'أ ب ج' });
});

test('latency parts: recognition, decision, model (first token + first sentence), synthesis, playout, summing to voice-to-voice', () => {
  const times = { speechEnd: 1000, finalAt: 1300, decidedAt: 1700, firstToken: 1950, firstChunk: 2100, firstAudio: 2280, firstSent: 2300 };
  const metrics = { ...turnMetrics(times), interrupted: false };
  assert.equal(metrics.llmFirstSentenceMs, 150, 'measured where the first sentence goes to synthesis');
  const l = latencyOf(metrics)!;
  assert.deepEqual(
    l.parts.map((p) => [p.part, p.ms]),
    [
      ['recognition', 300],
      ['decision', 400],
      ['model', 400],
      ['synthesis', 180],
      ['playout', 20],
    ],
  );
  assert.equal(l.totalMs, 1300);
  assert.equal(
    l.parts.reduce((n, p) => n + p.ms, 0),
    l.totalMs,
  );
  // A part that was not reached is left out, not drawn as 0.
  const partial = latencyOf({ interrupted: false, endOfSpeechToFinalMs: 200, ttsFirstAudioMs: 90 })!;
  assert.deepEqual(
    partial.parts.map((p) => p.part),
    ['recognition', 'synthesis'],
  );
  assert.equal(partial.totalMs, 290);
  assert.equal(latencyOf({ interrupted: false }), undefined);
});

test('markers: tool calls (a failed one marked), handoffs and tasks, in time order on the recording', () => {
  const m = buildReviewModel({ report: report(), waveform: { perSecond: 50, caller: [], agent: [] }, seconds: 20, offsetSeconds: 1 });
  assert.deepEqual(m.markers, [
    { kind: 'tool', at: 7.5, label: 'get_balance' },
    { kind: 'tool', at: 12, label: 'block_card', failed: true },
    { kind: 'handoff', at: 13, label: 'bank → cards' },
    { kind: 'task', at: 14, label: 'digits:card', failed: true },
  ]);
});

test('the waveform holds each side apart: the caller (left) loud where only it spoke, the agent (right) where only it did', () => {
  const rate = 8000;
  const stereo = new Int16Array(rate * 2 * 2); // 2 s
  for (let i = 0; i < rate; i++) stereo[2 * i] = i % 2 ? 16000 : -16000; // caller, first second
  for (let i = rate; i < 2 * rate; i++) stereo[2 * i + 1] = 8000; // agent, second second
  const { waveform, seconds } = waveformOf(encodeWav(stereo, rate, 2), 10);
  assert.equal(seconds, 2);
  assert.equal(waveform.perSecond, 10);
  assert.equal(waveform.caller.length, 20);
  assert.ok(waveform.caller.slice(0, 10).every((v) => v > 0.45));
  assert.ok(waveform.caller.slice(10).every((v) => v === 0));
  assert.ok(waveform.agent.slice(0, 10).every((v) => v === 0));
  assert.ok(waveform.agent.slice(10).every((v) => v > 0.2 && v < 0.3));
  assert.throws(() => waveformOf(encodeWav(new Int16Array(10), rate, 1)), /stereo/);
});

test('the list: a row per stored call (worst latency, AMD class, outcome), filters from the query string, bad numbers refused', () => {
  const record = (id: string, over: Partial<CallReport>, outcome?: string): CallRecord => ({
    version: 1,
    jobId: id,
    call: { callId: id, provider: 'twilio', parameters: {}, from: '+966500000000', direction: 'inbound' },
    agent: over.agent ?? 'bank',
    endedAt: '2026-11-26T08:00:00.000Z',
    outcome,
    recording: { key: `recordings/${id}.wav`, sampleRate: 16000, seconds: 20, channels: 2 },
    report: report(over),
  });
  const rows = [
    rowOf(record('a', {}, 'completed')),
    rowOf(record('b', { agent: 'shop', turns: [], amd: { class: 'machine-voicemail', decisionMs: 900, reason: 'long greeting', action: 'voicemail', retry: false, signals: {} as never } }, 'agent-hangup')),
  ];
  assert.equal(rows[0]!.worstLatencyMs, 1300);
  assert.equal(rows[0]!.outcome, 'completed');
  assert.equal(rows[1]!.worstLatencyMs, undefined);
  assert.equal(rows[1]!.amd, 'machine-voicemail');
  const only = (q: string) => filterRows(rows, parseFilter(new URLSearchParams(q), 50)).map((r) => r.id);
  assert.deepEqual(only(''), ['a', 'b']);
  assert.deepEqual(only('agent=shop'), ['b']);
  assert.deepEqual(only('amd=machine-voicemail'), ['b']);
  assert.deepEqual(only('outcome=completed'), ['a']);
  assert.deepEqual(only('slowerThan=1000'), ['a']);
  assert.deepEqual(only('slowerThan=2000'), []);
  assert.deepEqual(only('limit=1'), ['a']);
  assert.throws(() => parseFilter(new URLSearchParams('slowerThan=fast'), 50), /slowerThan must be a number/);
  assert.throws(() => parseFilter(new URLSearchParams('limit=500'), 50), /limit must be a number from 1 to 50/);
});

test('text from a call cannot break out of the page: HTML escaped, JSON safe inside a script element', () => {
  assert.equal(esc('<b a="1">&\''), '&#60;b a=&#34;1&#34;&#62;&#38;&#39;');
  const json = scriptJson({ text: '</script><script>alert(1)</script>\u2028' });
  assert.ok(!json.includes('</script'));
  assert.deepEqual(JSON.parse(json), { text: '</script><script>alert(1)</script>\u2028' });
});

test("lines apart from the model's replies: an agent turn's line (greeting, scripted, a fixed line) reaches the page's model and the page's text, a reply has none", async () => {
  const turns: CallReport['turns'] = [
    { role: 'agent', text: 'أهلًا بك', heardText: 'أهلًا بك', at: 2, line: 'greeting' },
    { role: 'user', text: 'كم رصيدي', at: 5 },
    { role: 'agent', text: 'رصيدك ألف ريال', heardText: 'رصيدك ألف ريال', at: 8 },
    { role: 'agent', text: 'عذرًا، حدث خلل مؤقت.', heardText: 'عذرًا، حدث خلل مؤقت.', at: 11, line: 'model_error' },
    { role: 'agent', text: 'الخدمة غير متاحة.', heardText: 'الخدمة غير متاحة.', at: 14, line: 'out_of_service' },
  ];
  const m = buildReviewModel({ report: report({ turns }), waveform: { perSecond: 50, caller: [], agent: [] }, seconds: 20 });
  assert.deepEqual(m.turns.map((t) => t.line), ['greeting', undefined, undefined, 'model_error', 'out_of_service']);
  const { renderCallPage } = await import('../../src/review/page.ts');
  const html = await renderCallPage(m, { audioSrc: 'call.wav' });
  const tags = [...html.matchAll(/<span class="tag line" data-line="([a-z_]+)">([^<]+)<\/span>/g)].map((x) => [x[1], x[2]]);
  assert.deepEqual(tags, [['greeting', 'التحية (نص ثابت)'], ['model_error', 'رسالة الاعتذار عن تعذّر الرد'], ['out_of_service', 'رسالة تعذّر الخدمة']]);
});

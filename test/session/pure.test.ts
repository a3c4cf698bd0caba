import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InterruptionPolicy } from '../../src/pipeline/interruption.ts';
import { TurnDetector } from '../../src/pipeline/turns.ts';
import type { ListenEvent } from '../../src/service/ws/listen-events.ts';
import { REPORT_TOOL_RESULT_MAX, reportedToolResult } from '../../src/session/report.ts';

const results = (transcript: string, is_final: boolean, speech_final: boolean, end = 1): ListenEvent => ({
  type: 'Results', channel: 0, turn_id: 0, transcript, is_final, speech_final, confidence: null,
  words: transcript ? transcript.split(' ').map((w, i) => ({ word: w, start: i * 0.3, end: end + i * 0.3 })) : [],
});
const started: ListenEvent = { type: 'SpeechStarted', channel: 0, ts: 0.1 };
const utteranceEnd = (t: number): ListenEvent => ({ type: 'UtteranceEnd', channel: 0, turn_id: 0, last_word_end: t });

test('turns: speech_final ends the turn; interims do not', () => {
  const d = new TurnDetector();
  assert.deepEqual(d.onEvent(started, 0), []);
  assert.deepEqual(d.onEvent(results('أريد', false, false), 100), []);
  const [turn] = d.onEvent(results('أريد معرفة رصيدي', true, true), 900);
  assert.equal(turn?.text, 'أريد معرفة رصيدي');
  assert.equal(turn?.finalAt, 900);
  assert.equal(d.onEvent(utteranceEnd(1.6), 910).length, 0, 'UtteranceEnd after the decision adds nothing');
});

test('turns: a forced split stays in the same turn and the fragments join', () => {
  const d = new TurnDetector();
  const words = (text: string, from: number, speechFinal = false): ListenEvent => ({ ...results(text, true, speechFinal), words: text.split(' ').map((w, i) => ({ word: w, start: from + i * 0.3, end: from + i * 0.3 + 0.25 })) }) as ListenEvent;
  assert.deepEqual(d.onEvent(words('الجزء الأول من كلام طويل', 2), 60_000), []);
  const [turn] = d.onEvent(words('والجزء الثاني', 60, true), 65_000);
  assert.equal(turn?.text, 'الجزء الأول من كلام طويل والجزء الثاني');
  // The turn spans the first fragment's first word to the last fragment's last (the review page places it so).
  assert.equal(turn?.firstWordStart, 2);
  assert.equal(turn?.lastWordEnd, 60.55);
  const [next] = d.onEvent(words('نعم', 70, true), 70_000);
  assert.equal(next?.firstWordStart, 70, 'the next turn starts afresh');
});

test('turns: UtteranceEnd is the backup when the final lacked speech_final', () => {
  const d = new TurnDetector();
  d.onEvent(results('نعم', true, false), 500);
  const [turn] = d.onEvent(utteranceEnd(0.8), 600);
  assert.equal(turn?.text, 'نعم');
  assert.equal(turn?.lastWordEnd, 1);
});

test('turns: an extra delay waits, and new speech within it keeps the turn open', () => {
  const d = new TurnDetector({ endDelayMs: 500 });
  assert.deepEqual(d.onEvent(results('أريد', true, true), 1000), []);
  assert.deepEqual(d.tick(1400), []);
  d.onEvent(started, 1450);
  assert.deepEqual(d.tick(1600), [], 'the caller went on');
  const [turn] = d.onEvent(results('إيقاف بطاقتي', true, true), 2500);
  assert.equal(turn, undefined);
  assert.equal(d.tick(3000)[0]?.text, 'أريد إيقاف بطاقتي');
});

test('turns: an empty final (noise) is not a turn', () => {
  const d = new TurnDetector();
  assert.deepEqual(d.onEvent(results('', true, true), 100), []);
});

test('interruption: speech pauses, words confirm', () => {
  const p = new InterruptionPolicy({ minWords: 2 });
  assert.equal(p.onEvent(started, 0, true), 'pause');
  assert.equal(p.onEvent(results('انتظر', false, false), 200, true), undefined, 'one word is not enough');
  assert.equal(p.onEvent(results('انتظر لحظة', false, false), 400, true), 'interrupt');
});

test('interruption: a backchannel ("آه", "إيه تمام") confirms nothing and its final resumes the agent; words after it cut', () => {
  const p = new InterruptionPolicy();
  assert.equal(p.onEvent(started, 0, true), 'pause');
  assert.equal(p.onEvent(results('آه', false, false), 200, false), undefined, 'آه is no words');
  assert.equal(p.onEvent(results('إيه تمام', true, false), 500, false), 'resume');
  assert.equal(p.onEvent(started, 1000, true), 'pause');
  assert.equal(p.onEvent(results('آه', false, false), 1200, false), undefined);
  assert.equal(p.onEvent(results('آه بس', false, false), 1400, false), 'interrupt', 'a word beyond the backchannel cuts');
  // "لا" is never one; a task awaiting a yes or a no takes "نعم" as its answer; the list can be turned off.
  assert.equal(new InterruptionPolicy().onEvent(results('لا', false, false), 100, true), 'interrupt');
  assert.equal(new InterruptionPolicy().onEvent(results('نعم', false, false), 100, true, { yesNo: true }), 'interrupt');
  assert.equal(new InterruptionPolicy({ backchannels: false }).onEvent(results('آه', false, false), 100, true), 'interrupt');
  assert.equal(new InterruptionPolicy().isBackchannel('ممم آه'), true);
  assert.equal(new InterruptionPolicy().isBackchannel('طيب'), false, 'طيب takes the floor');
});

test('interruption: an empty final or the timeout is a false alarm and the agent resumes', () => {
  const p = new InterruptionPolicy({ falseInterruptionTimeoutMs: 1000 });
  assert.equal(p.onEvent(started, 0, true), 'pause');
  assert.equal(p.onEvent(results('', true, true), 300, true), 'resume');
  assert.equal(p.onEvent(started, 1000, true), 'pause');
  assert.equal(p.tick(1500, true), undefined);
  assert.equal(p.tick(2000, true), 'resume');
});

test('interruption: nothing while the agent is silent; duration alone can confirm when configured', () => {
  const p = new InterruptionPolicy({ minSpeechMs: 700, pauseOnSpeech: false });
  assert.equal(p.onEvent(started, 0, false), undefined);
  assert.equal(p.onEvent(started, 100, true), undefined);
  assert.equal(p.tick(500, true), undefined);
  assert.equal(p.tick(800, true), 'interrupt');
  assert.equal(new InterruptionPolicy({ enabled: false }).onEvent(started, 0, true), undefined);
});

test('interruption: with a pause on speech start, speech that lasts still confirms the cut', () => {
  const p = new InterruptionPolicy({ minSpeechMs: 700, pauseOnSpeech: true, falseInterruptionTimeoutMs: 5000 });
  assert.equal(p.onEvent(started, 100, true), 'pause');
  assert.equal(p.deadline, 800);
  assert.equal(p.tick(500, false), undefined, 'paused: the agent is silent, the caller still talking');
  assert.equal(p.tick(800, false), 'interrupt');
});

test('metrics: durations between the milestones of a turn; missing ones are left out', async () => {
  const { turnMetrics } = await import('../../src/session/metrics.ts');
  const m = turnMetrics({ speechEnd: 1000, finalAt: 1700, decidedAt: 1700, firstToken: 2000, firstChunk: 2100, firstAudio: 2400, firstSent: 2450 });
  assert.deepEqual(m, { kind: 'spoken', endOfSpeechToFinalMs: 700, turnDecisionMs: 0, llmFirstTokenMs: 300, llmFirstSentenceMs: 100, ttsFirstAudioMs: 300, playoutStartMs: 50, voiceToVoiceMs: 1450 });
  // The parts cover voice to voice without a gap.
  assert.equal(m.endOfSpeechToFinalMs! + m.turnDecisionMs! + m.llmFirstTokenMs! + m.llmFirstSentenceMs! + m.ttsFirstAudioMs! + m.playoutStartMs!, m.voiceToVoiceMs);
  const partial = turnMetrics({ speechEnd: undefined, finalAt: 1700, decidedAt: 1800, firstToken: 0, firstChunk: 0, firstAudio: 0, firstSent: undefined });
  assert.equal(partial.voiceToVoiceMs, undefined);
  assert.equal(partial.turnDecisionMs, 100);
});

test('heard text: the share of the spoken audio maps back onto whole written words', async () => {
  const { heardPrefix } = await import('../../src/pipeline/playout.ts');
  const { normalizeForSpeech } = await import('../../src/text/normalize.ts');
  const text = 'رصيدك 12,500 ريال الآن';
  const spoken = normalizeForSpeech(text); // "رصيدك اثنا عشر ألفًا وخمسمئة ريال سعودي الآن"
  assert.equal(heardPrefix(text, spoken, 0.15, normalizeForSpeech), 'رصيدك');
  assert.equal(heardPrefix(text, spoken, 0.5, normalizeForSpeech), 'رصيدك', 'halfway through the number: the number was not heard whole');
  assert.equal(heardPrefix(text, spoken, 0.9, normalizeForSpeech), 'رصيدك 12,500 ريال');
  assert.equal(heardPrefix(text, spoken, 1, normalizeForSpeech), text);
  assert.equal(heardPrefix(text, spoken, 0.02, normalizeForSpeech), '');
});

test('deadlines: the detectors say when they next need the time, so nothing ticks', () => {
  // Without the turn policy ("أريد" alone would be held as unfinished: turn-policy.test.ts).
  const d = new TurnDetector({ endDelayMs: 500, policy: false });
  assert.equal(d.deadline, undefined);
  d.onEvent(results('أريد', true, true), 1000);
  assert.equal(d.deadline, 1500);
  assert.equal(d.tick(1500)[0]?.text, 'أريد');
  assert.equal(d.deadline, undefined);
  const p = new InterruptionPolicy({ falseInterruptionTimeoutMs: 1000, minSpeechMs: 700 });
  assert.equal(p.deadline, undefined);
  p.onEvent(started, 100, true);
  assert.equal(p.deadline, 800, 'the long-speech confirmation comes before the false-alarm timeout');
  assert.equal(p.tick(800, true), 'interrupt');
  assert.equal(p.deadline, undefined);
});

test("a tool's result in the call report: a JSON copy, nothing when it is too long or not JSON", () => {
  const value = { balance: 12500, when: new Date(0), skip: undefined };
  const kept = reportedToolResult(value);
  assert.deepEqual(kept, { result: { balance: 12500, when: '1970-01-01T00:00:00.000Z' } }, 'as JSON carries it');
  value.balance = 1;
  assert.equal((kept.result as { balance: number }).balance, 12500, 'a copy: the tool changing its object later does not change the report');
  assert.deepEqual(reportedToolResult('x'.repeat(REPORT_TOOL_RESULT_MAX)), {}, 'over the limit once quoted');
  assert.deepEqual(reportedToolResult('x'.repeat(REPORT_TOOL_RESULT_MAX - 2)), { result: 'x'.repeat(REPORT_TOOL_RESULT_MAX - 2) }, 'at the limit');
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.deepEqual(reportedToolResult(cyclic), {});
  assert.deepEqual(reportedToolResult(10n), {});
  assert.deepEqual(reportedToolResult(undefined), {});
});

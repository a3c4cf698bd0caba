/**
 * Latency figures for every kind of turn (docs/telephony.md#metrics): a keyed turn's run from the
 * last key pressed, a line no caller turn asked for (a hook's `say`, the greeting) from when the
 * session took it up; both reach the server's stage histogram under their `turn` label. On a
 * virtual clock: the times are exact.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import callCentre from '../../agents/call-centre/index.ts';
import type { ReplyOutcome } from '../../src/pipeline/reply.ts';
import { ServerMetrics } from '../../src/server/metrics.ts';
import type { SessionEvent } from '../../src/session/events.ts';
import { Keypad } from '../../src/session/keypad.ts';
import { createLogger } from '../../src/session/logger.ts';
import type { LaneRequest } from '../../src/session/reply-lane.ts';
import { recordReply, type ReplyRecordHost } from '../../src/session/reply-record.ts';
import { ReportBuilder } from '../../src/session/report.ts';
import type { AnsweredTurn } from '../../src/session/task-runner.ts';
import type { CallControl } from '../../src/transport/types.ts';
import { VirtualClock } from '../../src/transport/clock.ts';

/** A keypad whose entries are recorded: for the model (`answered`), or for a task when `task` is set. */
function keypad(clock: VirtualClock, task = false) {
  const toModel: LaneRequest[] = [];
  const toTask: Omit<AnsweredTurn, 'turnNumber'>[] = [];
  const pad = new Keypad(undefined, {
    clock,
    agent: () => callCentre,
    control: () => ({}) as CallControl,
    task: () => (task ? ({} as never) : undefined),
    isEnding: () => false,
    emit: () => {},
    threw: (hook, err) => assert.fail(`${hook}: ${err}`),
    callerSaid: (_text, _input, answered) => (task ? (toTask.push(answered), true) : false),
    answer: (req) => toModel.push(req),
  });
  pad.start();
  return { pad, toModel, toTask };
}

test('a keyed turn is timed from its last key: at once after the terminator, after the pause else; for the model or a task', async () => {
  const clock = new VirtualClock(10_000);
  const { pad, toModel } = keypad(clock);
  pad.key('4');
  await clock.advance(300);
  pad.key('2');
  await clock.advance(1999);
  assert.equal(toModel.length, 0, 'the pause is not over');
  await clock.advance(1);
  assert.equal(toModel[0]?.keyed, true);
  assert.equal(toModel[0]?.speechEndAt, 10_300);
  assert.deepEqual([toModel[0]?.turn?.finalAt, toModel[0]?.turn?.decidedAt], [10_300, 12_300]);

  const forTask = keypad(clock, true);
  forTask.pad.key('1');
  await clock.advance(250);
  forTask.pad.key('#');
  assert.equal(forTask.toTask.length, 1);
  assert.deepEqual({ ...forTask.toTask[0], turn: undefined }, { speechEndAt: 12_550, keyed: true, turn: undefined });
  assert.deepEqual([forTask.toTask[0]?.turn.finalAt, forTask.toTask[0]?.turn.decidedAt], [12_550, 12_550]);
});

/** What `recordReply` told: events, the report's agent turns. */
function recorder() {
  const events: SessionEvent[] = [];
  const report = new ReportBuilder(new VirtualClock(0));
  const host: ReplyRecordHost = {
    report,
    log: createLogger('silent'),
    emit: (e) => events.push(e),
    setState: () => {},
    fail: () => assert.fail('no failure expected'),
    threw: (hook, err) => assert.fail(`${hook}: ${err}`),
    toolThrew: (tool, err) => assert.fail(`${tool}: ${err}`),
    handoff: () => {},
  };
  return { host, events, report };
}

const outcome = (times: ReplyOutcome['times']): ReplyOutcome => ({ text: 'تم', heard: 'تم', interrupted: false, endCall: false, times });

test("a keyed turn's reply has the turn's figures (no recognition part); a line has its own, in line_metrics, not in the report", () => {
  const { host, events, report } = recorder();
  // Keys: last one at 10 300, entry decided at 12 300 (the pause); the model answers.
  const keyed: LaneRequest = { turn: { text: '[DTMF: 42]', lastWordEnd: undefined, finalAt: 10_300, decidedAt: 12_300 }, speechEndAt: 10_300, keyed: true, turnNumber: 3 };
  recordReply(host, callCentre, keyed, outcome({ firstToken: 12_500, firstChunk: 12_560, firstAudio: 12_640, firstSent: 12_660 }), 1, 12_300);
  // A hook's `say`: taken up at 20 000, no model.
  recordReply(host, callCentre, { text: 'معك قسم الحسابات' }, outcome({ firstToken: 0, firstChunk: 20_010, firstAudio: 20_090, firstSent: 20_100 }), 2, 20_000);

  const metrics = events.filter((e) => e.type === 'metrics' || e.type === 'line_metrics');
  assert.deepEqual(metrics, [
    {
      type: 'metrics',
      reply: 1,
      metrics: {
        interrupted: false,
        kind: 'keyed',
        turn: 3,
        endOfSpeechToFinalMs: undefined,
        turnDecisionMs: 2000,
        llmFirstTokenMs: 200,
        llmFirstSentenceMs: 60,
        ttsFirstAudioMs: 80,
        playoutStartMs: 20,
        voiceToVoiceMs: 2360,
      },
    },
    {
      type: 'line_metrics',
      reply: 2,
      metrics: { interrupted: false, kind: 'line', llmFirstTokenMs: undefined, llmFirstSentenceMs: undefined, ttsFirstAudioMs: 80, playoutStartMs: 10, lineToVoiceMs: 100 },
    },
  ]);
  const agentTurns = report.build({ agent: 'bank', llm: 'scripted', ended: 'completed' }).turns.filter((t) => t.role === 'agent');
  assert.equal(agentTurns[0]?.metrics?.kind, 'keyed');
  assert.equal(agentTurns[1]?.metrics, undefined, "a line is no caller turn's reply in the report");
});

test('the server counts both in its stage histogram, labelled by the kind of turn; only caller turns count as turns', async () => {
  const m = new ServerMetrics({ defaultMetrics: false });
  m.observe('pcm', { type: 'metrics', metrics: { interrupted: false, kind: 'spoken', voiceToVoiceMs: 900 } });
  m.observe('pcm', { type: 'metrics', metrics: { interrupted: false, kind: 'keyed', turnDecisionMs: 2000, voiceToVoiceMs: 2360 } });
  m.observe('pcm', { type: 'line_metrics', metrics: { interrupted: false, kind: 'line', ttsFirstAudioMs: 80, lineToVoiceMs: 100 } });
  // A report written before kinds were recorded: a caller turn's metrics are a spoken turn's.
  m.observe('pcm', { type: 'metrics', metrics: { interrupted: false, voiceToVoiceMs: 700 } });
  const text = await m.text();
  const count = (stage: string, turn: string) => Number(new RegExp(`hiwar_turn_stage_seconds_count\\{stage="${stage}",turn="${turn}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
  assert.equal(count('voice_to_voice', 'spoken'), 2);
  assert.equal(count('voice_to_voice', 'keyed'), 1);
  assert.equal(count('turn_decision', 'keyed'), 1);
  assert.equal(count('line_to_voice', 'line'), 1);
  assert.equal(count('tts_first_audio', 'line'), 1);
  assert.equal(count('voice_to_voice', 'line'), 0);
  assert.match(text, /hiwar_turns_total\{provider="pcm"\} 3\n/);
});

test("a spoken turn's stages in the histogram add up to its voice_to_voice, the model's first sentence included", async () => {
  const m = new ServerMetrics({ defaultMetrics: false });
  const parts = { endOfSpeechToFinalMs: 300, turnDecisionMs: 450, llmFirstTokenMs: 150, llmFirstSentenceMs: 250, ttsFirstAudioMs: 40, playoutStartMs: 10 };
  m.observe('twilio', { type: 'metrics', metrics: { interrupted: false, kind: 'spoken', ...parts, voiceToVoiceMs: 1200 } });
  const text = await m.text();
  const sum = (stage: string) => Number(new RegExp(`hiwar_turn_stage_seconds_sum\\{stage="${stage}",turn="spoken"\\} ([\\d.e-]+)`).exec(text)?.[1] ?? NaN);
  assert.equal(sum('llm_first_sentence'), 0.25);
  const stages = ['stt_final', 'turn_decision', 'llm_first_token', 'llm_first_sentence', 'tts_first_audio', 'playout_start'].reduce((t, s) => t + sum(s), 0);
  assert.ok(Math.abs(stages - sum('voice_to_voice')) < 1e-9, `${stages} s of stages against ${sum('voice_to_voice')} s voice to voice`);
});

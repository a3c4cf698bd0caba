import assert from 'node:assert/strict';
import { test } from 'node:test';
import callCentre from '../../agents/call-centre/index.ts';
import type { AudioFrame } from '../../src/audio/frame.ts';
import { HumVoice, loudCaller, ScriptRecognizer, sessionWithoutService } from '../helpers/script-stages.ts';
import { ENERGY_VAD_DEFAULTS } from '../../src/pipeline/energy-vad.ts';
import { outcomeOf } from '../../src/server/call-end.ts';
import { SteadyScaledClock } from '../../src/testing/steady-clock.ts';
import type { Clock } from '../../src/transport/clock.ts';
import { CALL_ACTION_DEFAULTS } from '../../src/session/call-actions.ts';
import type { ChatHistory } from '../../src/session/history.ts';

test('a session runs on a recognizer and a voice of its own (no service), with a text transform before speech', async () => {
  const clock = new SteadyScaledClock(3);
  const line = 'كم رصيدي';
  // What the caller "says": 0.6 s of loud audio; the recognizer knows it as the script's line.
  const caller = loudCaller(clock, line);
  const voice = new HumVoice();
  const session = sessionWithoutService({
    transport: caller,
    agent: callCentre,
    clock,
    stages: {
      recognizer: new ScriptRecognizer(clock, [line]),
      voice: () => voice,
      transformText: (t) => t.replace('حسابك', 'حسابك يا عميلنا'),
    },
  });
  try {
    const report = await session.run();
    caller.callerHangsUp();
    assert.deepEqual(report.turns.filter((t) => t.role === 'user').map((t) => t.text), [line]);
    const reply = report.turns.find((t) => t.role === 'agent' && t.text.includes('12,500'));
    assert.ok(reply, `the balance reply: ${report.turns.map((t) => t.text).join(' | ')}`);
    assert.doesNotMatch(reply.text, /عميلنا/, 'the report keeps the text as written');
    assert.ok(voice.said.some((s) => s.includes('حسابك يا عميلنا')), `the voice was given the transformed text: ${voice.said.join(' | ')}`);
    assert.ok(caller.agentSpans.length >= 2, 'the greeting and the reply reached the caller as audio');
  } finally {
    clock.stop();
  }
});

/** Writes down, in order, each loud frame the recognizer is handed (and its length, ms). */
class LoggingRecognizer extends ScriptRecognizer {
  constructor(
    clock: Clock,
    script: string[],
    private readonly log: string[],
  ) {
    super(clock, script, false);
  }
  override push(frame: AudioFrame): void {
    if (frame.samples.some((s) => Math.abs(s) > 1000)) this.log.push(`loud ${(frame.samples.length / frame.sampleRate) * 1000}`);
    super.push(frame);
  }
}

/** The caller cuts into the greeting; when each interruption event came (caller seconds), and the caller's line. */
async function bargeIn(localVad: 'energy' | false, log?: string[], humLevel?: number) {
  const clock = new SteadyScaledClock(3);
  const line = 'لحظة من فضلك';
  const caller = loudCaller(clock, line, [{ hangup: true }], 400);
  const session = sessionWithoutService({
    transport: caller,
    agent: { ...callCentre, interruption: { ...callCentre.interruption, localVad } },
    clock,
    stages: { recognizer: log ? new LoggingRecognizer(clock, [line], log) : new ScriptRecognizer(clock, [line], false), voice: () => new HumVoice(humLevel) },
  });
  const events: { kind: string; at: number }[] = [];
  session.events$.subscribe((e) => {
    if (e.type === 'interruption') events.push({ kind: e.kind, at: caller.elapsed() });
    if (e.type === 'interruption' && log) log.push(e.kind);
  });
  try {
    await session.run();
    caller.callerHangsUp();
    return { events, line: caller.lines.find((l) => l.text === line)! };
  } finally {
    clock.stop();
  }
}

test("localVad 'energy': the agent pauses on the caller's first loud frames, before any event of the recognizer; its words still confirm the cut", async () => {
  const { events, line } = await bargeIn('energy');
  assert.ok(line, 'the caller spoke');
  assert.deepEqual(events.map((e) => e.kind).slice(0, 2), ['paused', 'confirmed'], JSON.stringify(events));
  const paused = events[0]!.at;
  assert.ok(paused >= line.start && paused < line.end, `paused at ${paused.toFixed(3)} s, inside the caller's line ${line.start.toFixed(3)}–${line.end.toFixed(3)} s (the recognizer answers only after it)`);
});

test("localVad 'energy': the frame that completes the detector's minSpeechMs pauses the agent before the recognizer is handed that frame", async () => {
  const log: string[] = [];
  await bargeIn('energy', log);
  const paused = log.indexOf('paused');
  assert.ok(paused > 0, log.slice(0, 10).join(', '));
  // The loud audio handed to the recognizer before the pause is less than the detector needs: the
  // deciding frame went to the detector (and the clear out) first, its uplink write after.
  const loudMs = log.slice(0, paused).reduce((ms, e) => ms + Number(e.split(' ')[1]), 0);
  assert.ok(loudMs < ENERGY_VAD_DEFAULTS.minSpeechMs, `${loudMs} ms of loud audio reached the recognizer before the pause: ${log.slice(0, paused + 1).join(', ')}`);
  assert.ok(loudMs >= ENERGY_VAD_DEFAULTS.minSpeechMs - 20, `${loudMs} ms: the frames before the deciding one`);
});

test("localVad 'energy': the session tells the detector what the agent plays; a caller no louder than its echo could be does not pause it (words still cut)", async () => {
  // The agent hums at 16000 (84 dB); the caller's 4000 (72 dB) is 12 dB under it: as loud as the
  // echo the detector assumes (echoReturnLossDb), so not the caller by level alone.
  const { events } = await bargeIn('energy', undefined, 16000);
  assert.deepEqual(events.map((e) => e.kind).slice(0, 1), ['confirmed'], JSON.stringify(events));
});

test('without a local VAD the same recognizer (no SpeechStarted) pauses nothing: the cut waits for its words', async () => {
  const { events, line } = await bargeIn(false);
  assert.deepEqual(events.map((e) => e.kind), ['confirmed'], JSON.stringify(events));
  assert.ok(events[0]!.at >= line.end, 'after the line');
});

test('endCallAfterTools on a line that cannot transfer: the agent hangs up after its reply, and the call is not counted as transferred', async () => {
  const clock = new SteadyScaledClock(3);
  const line = 'أريد التحدث مع موظف';
  const caller = loudCaller(clock, line, []);
  // A phone line with no transfer (Exotel, FreeSWITCH, Asterisk without a hook) has none to call.
  Object.assign(caller, { transfer: undefined });
  const session = sessionWithoutService({ transport: caller, agent: callCentre, clock, stages: { recognizer: new ScriptRecognizer(clock, [line]), voice: () => new HumVoice() } });
  try {
    const report = await session.run();
    caller.callerHangsUp();
    assert.ok(report.turns.some((t) => t.role === 'agent' && t.text.startsWith('سأحولك')), report.turns.map((t) => t.text).join(' | '));
    // It ended as 'transferred', and hiwar serve counted a transfer that never happened (outcome transferred).
    assert.equal(report.ended, 'agent hung up after its reply (endCallAfterTools)');
    assert.equal(outcomeOf(report.ended, false), 'agent-hangup');
    assert.equal(caller.endedByAgent?.hangup, 'agent hung up after its reply (endCallAfterTools)');
  } finally {
    clock.stop();
  }
});

test('endCallAfterTools when the transfer itself fails (a REST hook that throws): the agent hangs up instead of leaving the caller on a silent line', async () => {
  const clock = new SteadyScaledClock(3);
  const line = 'أريد التحدث مع موظف';
  const caller = loudCaller(clock, line, []);
  Object.assign(caller, { transfer: async () => Promise.reject(new Error('the platform refused the transfer (HTTP 422)')) });
  const session = sessionWithoutService({ transport: caller, agent: callCentre, clock, stages: { recognizer: new ScriptRecognizer(clock, [line]), voice: () => new HumVoice() } });
  const actions: unknown[] = [];
  session.events$.subscribe((e) => e.type === 'call_action' && actions.push([e.action, e.ok]));
  try {
    // Before, the call went on in silence after "I am transferring you" until the caller hung up.
    const report = await session.run();
    caller.callerHangsUp();
    assert.deepEqual(actions, [['transfer', false]]);
    assert.equal(report.ended, 'agent hung up after its reply (endCallAfterTools)');
  } finally {
    clock.stop();
  }
});

/** The call-centre agent with its transfer not ending the call: a failed transfer leaves the caller with the agent. */
const staying = { ...callCentre, name: 'staying', endCallAfterTools: [] };

for (const [what, thrown, kind, source] of [
  ['the platform refused it (HTTP 422)', Object.assign(new Error('Telnyx refused the transfer'), { status: 422 }), 'protocol', 'transport'],
  ['the platform could not be reached', new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) }), 'network', 'transport'],
  ["the hook's own code threw", new Error('callId is undefined'), 'hook', 'agent'],
] as const) {
  test(`a transfer that fails when the call goes on (${what}): the caller hears the agent stays, the model's history says it failed, the error is of kind ${kind}`, async () => {
    const clock = new SteadyScaledClock(3);
    const line = 'أريد التحدث مع موظف';
    const caller = loudCaller(clock, line, [{ hangup: true, pauseMs: 1500 }]);
    Object.assign(caller, { transfer: async () => Promise.reject(thrown) });
    const session = sessionWithoutService({ transport: caller, agent: staying, clock, stages: { recognizer: new ScriptRecognizer(clock, [line]), voice: () => new HumVoice() } });
    const errors: { kind: string; source: string; message: string }[] = [];
    session.events$.subscribe((e) => e.type === 'error' && errors.push({ kind: e.kind, source: e.source, message: e.message }));
    try {
      const report = await session.run();
      const said = report.turns.filter((t) => t.role === 'agent').map((t) => t.text);
      const transferring = said.findIndex((t) => t.startsWith('سأحولك'));
      // Before, nothing followed "I am transferring you": the caller waited on a silent line.
      assert.ok(transferring >= 0 && said[transferring + 1] === CALL_ACTION_DEFAULTS.transferFailedLine, said.join(' | '));
      assert.equal(report.ended, 'caller hung up');
      assert.deepEqual(errors.map((e) => [e.kind, e.source]), [[kind, source]]);
      assert.match(errors[0]!.message, /transfer to \+966/);
      const history = (session as unknown as { history: ChatHistory }).history.messages();
      const note = history.findIndex((m) => m.role === 'system' && m.content.includes('تعذّر تحويل المكالمة'));
      assert.ok(note > 0, 'the model is told the transfer failed');
      assert.equal(history[note + 1]?.content, CALL_ACTION_DEFAULTS.transferFailedLine, 'and then what the caller heard');
    } finally {
      clock.stop();
    }
  });
}

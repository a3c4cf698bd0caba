/**
 * A handoff to an agent no `Agent.handoffs` lists, offline: the session teaches the recognizer
 * that agent's phrases (`SessionOptions.teach`) while the call goes on. Teaching held the reply
 * that handed off, so the caller heard nothing for as long as the phrases took to voice (seconds
 * a phrase on a busy machine). On a recognizer and a voice of the test's own, on a steady clock.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { z } from 'zod';
import callCentre from '../../agents/call-centre/index.ts';
import { defineTool } from '../../src/llm/types.ts';
import type { Agent } from '../../src/session/agent.ts';
import type { CallReport, SessionEvent } from '../../src/session/events.ts';
import { handoff, HANDOFF_DEFAULTS } from '../../src/session/handoff.ts';
import { SteadyScaledClock } from '../../src/testing/steady-clock.ts';
import { HumVoice, loudCaller, ScriptRecognizer, sessionWithoutService } from '../helpers/script-stages.ts';

const desk: Agent = { ...callCentre, name: 'desk', greeting: undefined, intents: [], tools: [], hooks: { onEnter: (session) => void session.say('معك قسم البطاقات.') } };
/** Hands the call to the desk without listing it in `handoffs`. */
const front: Agent = {
  ...callCentre,
  name: 'front',
  toolFiller: false,
  tools: [defineTool({ name: 'to_desk', description: 'To the cards desk', parameters: z.object({}), execute: () => handoff(desk, { carry: 'none' }) })],
  intents: [{ name: 'cards', examples: ['بطاقتي ضاعت'], tool: { name: 'to_desk' }, reply: 'أحولك إلى قسم البطاقات.' }],
};

/** One call: the caller asks for the desk and waits; teaching the desk's phrases takes `teachMs` of call time. */
async function call(teachMs: number): Promise<{ report: CallReport; events: SessionEvent[]; taught: { agent: string; from: number; to: number }[] }> {
  const clock = new SteadyScaledClock(3);
  const line = 'بطاقتي ضاعت';
  const caller = loudCaller(clock, line, [{ hangup: true, pauseMs: teachMs + 12_000 }]);
  const taught: { agent: string; from: number; to: number }[] = [];
  const session = sessionWithoutService({
    transport: caller,
    agent: front,
    clock,
    stages: { recognizer: new ScriptRecognizer(clock, [line]), voice: () => new HumVoice() },
    teach: async (agent) => {
      const from = clock.now();
      await clock.sleep(teachMs);
      taught.push({ agent: agent.name, from, to: clock.now() });
    },
  });
  const events: SessionEvent[] = [];
  session.events$.subscribe((e) => events.push(e));
  try {
    const report = await session.run();
    caller.callerHangsUp();
    return { report, events, taught };
  } finally {
    clock.stop();
  }
}

test("a slow teaching of an unlisted agent's phrases: the call goes on, the agent says a short line, and its onEnter comes once the phrases are taught", async () => {
  const { report, events, taught } = await call(8000);
  assert.deepEqual(events.filter((e) => e.type === 'handoff_unlisted'), [{ type: 'handoff_unlisted', from: 'front', to: 'desk', teaching: true }]);
  assert.deepEqual(taught.map((t) => t.agent), ['desk'], "the desk's phrases were taught, whole");
  const said = report.turns.filter((t) => t.role === 'agent').map((t) => ({ text: t.text, agent: t.agent, at: report.startClock! + t.at * 1000 }));
  const texts = said.map((t) => t.text);
  const short = said.find((t) => t.text === HANDOFF_DEFAULTS.teachingLine);
  const onEnter = said.find((t) => t.text === 'معك قسم البطاقات.');
  assert.ok(short, `the caller heard the short line while the phrases were taught: ${texts.join(' | ')}`);
  assert.equal(short.agent, 'desk', 'in the next agent\'s voice');
  assert.ok(short.at < taught[0]!.to, `said during the teaching (${short.at} < ${taught[0]!.to}), not after it`);
  assert.ok(onEnter, `onEnter's line was said: ${texts.join(' | ')}`);
  assert.ok(onEnter.at >= taught[0]!.to, "onEnter (the line the caller answers) came after the phrases were taught");
  assert.deepEqual(texts.slice(-3), ['أحولك إلى قسم البطاقات.', HANDOFF_DEFAULTS.teachingLine, 'معك قسم البطاقات.']);
});

test('a teaching done within HANDOFF_DEFAULTS.teachingLineAfterMs says no line: onEnter follows at once', async () => {
  const { report, taught } = await call(0);
  assert.deepEqual(taught.map((t) => t.agent), ['desk']);
  const texts = report.turns.filter((t) => t.role === 'agent').map((t) => t.text);
  assert.deepEqual(texts.slice(-2), ['أحولك إلى قسم البطاقات.', 'معك قسم البطاقات.'], texts.join(' | '));
});

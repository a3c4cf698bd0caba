// Answering-machine detection in a real call: the session against the sandbox over its sockets,
// a simulated phone line at 8 kHz that answers with a person's "ألو", a voicemail greeting and
// its beep, or a carrier's tones and announcement.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import callCentre from '../../agents/call-centre/index.ts';
import { concatPcm, silence } from '../../src/audio/pcm.ts';
import { ServerMetrics } from '../../src/server/metrics.ts';
import type { Agent } from '../../src/session/agent.ts';
import { AgentSession } from '../../src/session/agent-session.ts';
import type { SessionEvent } from '../../src/session/events.ts';
import { createLogger } from '../../src/session/logger.ts';
import { SimulatedCaller, type CallerStep } from '../../src/testing/simulated-caller.ts';
import { SteadyScaledClock } from '../../src/testing/steady-clock.ts';
import { compose } from '../helpers/amd-audio.ts';
import { call, SPEED } from '../helpers/call.ts';
import { runSandbox, voiced, type Running } from '../helpers/sandbox.ts';

let sb: Running;
before(async () => (sb = await runSandbox()));
after(() => sb.close());

const RATE = 8000;
const VOICEMAIL = 'مرحبًا، معك بنك الواحة. نرجو أن تتصل بنا على الرقم المجاني.';

/**
 * The call answered by `steps` at 8 kHz. `hangUpAfter`: the caller hangs up once the session has
 * emitted an event it matches (the line the test waits for said to its end), whenever that comes.
 */
async function answered(steps: CallerStep[], audio: Map<string, Int16Array>, agent: Partial<Agent>, hangUpAfter?: (e: SessionEvent) => boolean) {
  const clock = new SteadyScaledClock(SPEED);
  const caller = new SimulatedCaller(RATE, steps, audio, clock, { agentSpeaksFirst: false, call: { direction: 'outbound' } });
  const session = new AgentSession({ client: sb.client, transport: caller, agent: { ...callCentre, ...agent }, clock, logger: createLogger('silent') });
  const events: SessionEvent[] = [];
  session.events$.subscribe((e) => {
    events.push(e);
    // A moment later: the event's own handlers (the report's turn) see the call still up.
    if (hangUpAfter?.(e)) setTimeout(() => caller.callerHangsUp(), 100).unref();
  });
  const report = await session.run();
  caller.callerHangsUp();
  clock.stop();
  const amd = events.find((e): e is Extract<SessionEvent, { type: 'amd' }> => e.type === 'amd');
  return { report, events, caller, amd };
}

test('a person who says "ألو" and waits is greeted; the "ألو" is not a turn', async () => {
  const audio = new Map([['ألو', await voiced(sb.client, 'ألو', RATE)]]);
  const entered = 'معك سارة من بنك الواحة.';
  // The caller hangs up once the onEnter line is said (a fixed pause after the greeting raced the
  // voicing of that line on a loaded machine: the line was cut before its first word).
  const saidEntered = (e: SessionEvent) => e.type === 'agent_turn' && e.text === entered;
  const { report, amd, caller } = await answered([{ say: 'ألو', pauseMs: 400 }, { hangup: true, pauseMs: 60_000 }], audio, {
    answeringMachine: { enabled: true },
    hooks: { onEnter: (session) => void session.say(entered) },
  }, saidEntered);
  assert.equal(amd?.decision.class, 'human', amd?.decision.reason);
  assert.equal(amd.action, 'greeted');
  assert.equal(report.amd?.class, 'human');
  assert.equal(report.amd.retry, false);
  assert.ok(report.amd.decisionMs > 0);
  // The agent's onEnter waits for the decision: its line comes after the greeting, not at the answer.
  assert.deepEqual(report.turns.filter((t) => t.role === 'agent').map((t) => t.text), [callCentre.greeting, entered]);
  assert.deepEqual(report.turns.filter((t) => t.role === 'user'), [], 'the answer the detector heard is no user turn');
  // The greeting comes after the caller's "ألو", not over it.
  assert.ok(caller.agentSpans[0]!.start >= caller.lines[0]!.end, `greeting at ${caller.agentSpans[0]!.start} s, "ألو" ended at ${caller.lines[0]!.end} s`);
});

test('a voicemail greeting gets the message after its beep, then the agent hangs up', async () => {
  const greeting = await voiced(sb.client, 'مرحبًا، لقد وصلت إلى البريد الصوتي لأحمد، أنا غير متاح حاليًا، اترك رسالتك', RATE);
  const line = concatPcm([greeting, silence(0.5, RATE), compose([{ tone: 1000, ms: 400 }], 0)]);
  const { report, amd, caller } = await answered([{ say: 'vm', pauseMs: 300 }], new Map([['vm', line]]), {
    answeringMachine: { enabled: true, onMachine: 'voicemail' },
    voicemail: VOICEMAIL,
    // Not entered on a machine: its line said at once went over the voicemail's greeting.
    hooks: { onEnter: (session) => void session.say('معك سارة من بنك الواحة.') },
  });
  assert.equal(amd?.decision.class, 'machine-voicemail', amd?.decision.reason);
  assert.equal(amd.action, 'voicemail');
  assert.ok(amd.decision.signals.beep, 'the beep was heard');
  assert.ok(report.amd?.beepEndAt !== undefined);
  assert.deepEqual(report.turns.map((t) => [t.role, t.text]), [['agent', VOICEMAIL]]);
  assert.equal(report.ended, 'agent hung up: voicemail left');
  assert.ok(caller.endedByAgent?.hangup);
  // The message starts once the beep is over (the greeting's line ends with the beep).
  assert.ok(caller.agentSpans[0]!.start >= caller.lines[0]!.end - 0.02, `message at ${caller.agentSpans[0]!.start} s, beep ended at ${caller.lines[0]!.end} s`);
  const heard = caller.agentSpans.reduce((n, s) => n + s.end - s.start, 0);
  assert.ok(heard > 1.5, `${heard.toFixed(2)} s of the message played before the hang-up`);
});

test('a carrier announcement after its tones is hung up on, silently, and marked for a retry', async () => {
  const tones = compose([{ tone: 914, ms: 330 }, { tone: 1371, ms: 330 }, { tone: 1777, ms: 330 }, { silence: 200 }], 0);
  const line = concatPcm([tones, await voiced(sb.client, 'الرقم المطلوب مغلق أو خارج نطاق التغطية', RATE)]);
  const { report, amd, caller } = await answered([{ say: 'carrier', pauseMs: 300 }], new Map([['carrier', line]]), { answeringMachine: { enabled: true, onMachine: 'voicemail' }, voicemail: VOICEMAIL });
  assert.equal(amd?.decision.class, 'machine-unavailable', amd?.decision.reason);
  assert.equal(amd.action, 'hangup');
  assert.equal(report.amd?.retry, true);
  assert.equal(report.ended, 'agent hung up: machine-unavailable');
  assert.deepEqual(report.turns, [], 'nothing said to a recording');
  assert.ok(caller.endedByAgent?.hangup);
});

test('a scripted test call (hiwar/testing) of a detecting agent: the person speaks first and is greeted', async () => {
  const c = await call(sb.client, [{ say: 'نعم', pauseMs: 400 }, { hangup: true, pauseMs: 1500 }], { agent: { answeringMachine: { enabled: true } } });
  assert.equal(c.report.amd?.class, 'human', c.report.amd?.reason);
  // The greeting (the caller may hang up between its sentences: as far as it was said).
  const said = c.report.turns.find((t) => t.role === 'agent')?.text ?? '';
  assert.ok(said.length > 10 && callCentre.greeting!.startsWith(said), `agent said "${said}"`);
});

test('an agent that would leave a voicemail without a message is refused when the session is made', () => {
  const clock = new SteadyScaledClock(1);
  const caller = new SimulatedCaller(RATE, [], new Map(), clock);
  const make = (agent: Partial<Agent>) => new AgentSession({ client: sb.client, transport: caller, agent: { ...callCentre, ...agent }, clock, logger: createLogger('silent') });
  assert.throws(() => make({ answeringMachine: { enabled: true, onMachine: 'voicemail' } }), /agent\.voicemail/);
  assert.throws(() => make({ answeringMachine: { enabled: true, onMachine: 'record' as 'hangup' } }), /'hangup' or 'voicemail', not record/);
  assert.throws(() => make({ answeringMachine: { enabled: true, detector: { greetingMs: -5 } } }), /greetingMs/);
  caller.callerHangsUp();
  clock.stop();
});

test('decisions are counted by class with their time in the server metrics', async () => {
  const m = new ServerMetrics({ defaultMetrics: false });
  const decision = { class: 'machine-voicemail' as const, at: 0, decisionMs: 7300, reason: 'beep', signals: { speechMs: 6000, transcript: '' } };
  m.observe('twilio', { type: 'amd', decision, action: 'voicemail' });
  m.observe('twilio', { type: 'amd', decision: { ...decision, class: 'human', decisionMs: 1800 }, action: 'greeted' });
  const text = await m.text();
  assert.match(text, /hiwar_amd_decisions_total\{class="machine-voicemail"\} 1/);
  assert.match(text, /hiwar_amd_decisions_total\{class="human"\} 1/);
  assert.match(text, /hiwar_amd_decision_seconds_bucket\{le="2",class="human"\} 1/);
  assert.match(text, /hiwar_amd_decision_seconds_sum\{class="machine-voicemail"\} 7\.3/);
});

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import callCentre from '../../agents/call-centre/index.ts';
import { TURN_DEFAULTS } from '../../src/pipeline/turns.ts';
import { ServiceClient } from '../../src/service/index.ts';
import type { SessionEvent, TurnMetrics } from '../../src/session/events.ts';
import { digitsTask } from '../../src/tasks/digits-task.ts';
import { call, hangUpOnce, userTurns } from '../helpers/call.ts';
import { runSandbox, type Running } from '../helpers/sandbox.ts';

/**
 * Whole calls on the sandbox (stall-free clock, test/helpers/call.ts) with the Arabic turn
 * policy: what ended each turn is read from its metrics (`endOfTurnReason`), never from wall time.
 */
let sb: Running;
before(async () => {
  sb = await runSandbox({ keys: [{ key: 'sk-turns-main-001', credits: 1e9, concurrency: 16 }] });
});
after(() => sb.close());
const client = () => new ServiceClient({ apiKey: 'sk-turns-main-001', baseUrl: sb.sandbox.url, maxRetries: 0 });

const metricsOf = (events: SessionEvent[]): TurnMetrics[] => events.flatMap((e) => (e.type === 'metrics' ? [e.metrics] : []));
const dictated = [
  { say: 'صفر خمسة صفر' },
  { say: 'تسعة ستة ثلاثة', continueAfterMs: 800 },
  { say: 'واحد اثنين ثلاثة أربعة', continueAfterMs: 800 },
];
const DIGITS = 'صفر خمسة صفر تسعة ستة ثلاثة واحد اثنين ثلاثة أربعة';

test('a complete question ("كم رصيدي؟") ends on the service\'s speech_final, not after the ordinary silence', async () => {
  const c = await call(client(), [{ say: 'كم رصيدي؟' }], { onSession: hangUpOnce((e) => e.type === 'metrics') });
  assert.deepEqual(userTurns(c), ['كم رصيدي']);
  const [m] = metricsOf(c.events);
  assert.equal(m?.endOfTurnReason, 'speech-final-complete', JSON.stringify(m));
  assert.equal(m?.endOfTurnCue, 'question:كم');
  // /listen at 250 ms of endpointing; the agent's ordinary silence is its stt.endpointing (600 ms).
  assert.equal(m?.endOfTurnWaitMs, -(callCentre.stt!.endpointing! - TURN_DEFAULTS.listenEndpointingMs));
});

test('a number dictated in three groups with 800 ms pauses is one turn in a digits task', async () => {
  let result: unknown;
  const c = await call(client(), [...dictated, { say: 'نعم' }], {
    agent: { hooks: { onEnter: (s) => void s.runTask(digitsTask({ kind: 'phone' })).then((r) => (result = r)) } },
    onSession: hangUpOnce((e) => e.type === 'task_ended'),
  });
  assert.equal(userTurns(c)[0], DIGITS, JSON.stringify(userTurns(c)));
  assert.deepEqual(result, { ok: true, value: '+966509631234' });
});

test('a number dictated in groups without a task: held as a phone number begun, one turn; without the policy, three', async () => {
  const c = await call(client(), dictated, { onSession: hangUpOnce((e) => e.type === 'metrics') });
  assert.deepEqual(userTurns(c), [DIGITS]);
  assert.equal(metricsOf(c.events)[0]?.endOfTurnReason, 'held-then-continued');
  // The control: the same short endpointing without the policy ends a turn at each pause.
  const off = await call(client(), dictated, { agent: { turn: { policy: false }, stt: { ...callCentre.stt, endpointing: TURN_DEFAULTS.listenEndpointingMs } } });
  const heard = off.events.filter((e) => e.type === 'transcript' || e.type === 'notice');
  assert.deepEqual(userTurns(off), ['صفر خمسة صفر', 'تسعة ستة ثلاثة', 'واحد اثنين ثلاثة أربعة'], JSON.stringify({ heard, lines: off.caller.lines }));
  assert.ok(metricsOf(off.events).every((m) => m.endOfTurnReason === 'speech-final'));
});

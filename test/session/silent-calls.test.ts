/**
 * Calls that used to go silent without an error, each created over real sockets with the
 * sandbox's fault injection: every one must recover, or end with a spoken line and a typed
 * error event.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Llm, LlmEvent, LlmRequest } from '../../src/llm/types.ts';
import { ServiceClient } from '../../src/service/index.ts';
import callCentre from '../../agents/call-centre/index.ts';
import { agentTurns, call, hangUpOnce, userTurns } from '../helpers/call.ts';
import { createLogger } from '../../src/session/logger.ts';
import { runSandbox, type Running } from '../helpers/sandbox.ts';

let sb: Running;
before(async () => {
  sb = await runSandbox({ keys: [{ key: 'sk-silent-main-001', credits: 1e9, concurrency: 32 }] });
});
after(() => sb.close());
const client = () => new ServiceClient({ apiKey: 'sk-silent-main-001', baseUrl: sb.sandbox.url, maxRetries: 0 });

const OUT_OF_SERVICE = 'نعتذر، الخدمة غير متاحة حاليًا. يرجى الاتصال بنا لاحقًا.';
const APOLOGY = 'عذرًا، حدث خلل مؤقت. هل يمكنك إعادة طلبك؟';
/**
 * A patient caller: it waits through long silences (call time) and hangs up only once the agent's
 * turn has been heard to its end (`heardTurn`), so the wait costs nothing on a quick machine and
 * covers a loaded one, where a stalled socket's fallback can take tens of seconds of call time.
 */
const WAIT = { hangup: true, pauseMs: 120_000 };
/**
 * Every call here ends within this much call time or fails (the caller's waits above and its
 * lines fit in it): a limit on the call's stall-free clock, not the wall's, so that a hung call
 * still fails and a loaded machine does not.
 */
const CEILING_MS = 600_000;
const PATIENT = { onSession: hangUpOnce((e) => e.type === 'agent_turn'), maxWaitMs: 120_000, ceilingMs: CEILING_MS };
const agentAudioSeconds = (c: Awaited<ReturnType<typeof call>>) => c.caller.agentSpans.reduce((n, s) => n + s.end - s.start, 0);
/**
 * Seconds of agent audio the caller was played, counted in samples: unlike the spans (clock
 * times), this does not grow when a loaded machine delivers frames late.
 */
const agentAudioPlayed = (c: Awaited<ReturnType<typeof call>>) =>
  (c.caller as unknown as { agentTrack: { samples: Int16Array }[] }).agentTrack.reduce((n, f) => n + f.samples.length, 0) / c.caller.inputRate;

test('black-holed /listen: ping/pong notices it, the call reconnects with replay, no caller line is lost', async () => {
  // The connection goes dark two seconds into the call (during the greeting) and stays open.
  sb.sandbox.state.faults.listenBlackhole = { afterAudioS: 2, times: 1 };
  try {
    const c = await call(client(), [{ say: 'أريد معرفة رصيد حسابي' }, { say: 'متى يفتح الفرع غدا' }], {
      agent: { stt: { liveness: { pingIntervalMs: 300, pongTimeoutMs: 700, eventTimeoutMs: 0 } } },
      ceilingMs: CEILING_MS,
    });
    assert.ok(c.events.some((e) => e.type === 'notice' && /reconnecting/.test(e.message)), 'the dead socket was noticed');
    assert.ok(c.events.some((e) => e.type === 'notice' && /reconnected/.test(e.message)));
    assert.deepEqual(userTurns(c), ['أريد معرفة رصيد حسابي', 'متى يفتح الفرع غدا']);
    assert.match(agentTurns(c)[1]!.text, /12,500/);
    assert.match(agentTurns(c)[2]!.text, /الأحد إلى الخميس/);
    assert.equal(c.report.ended, 'caller hung up');
  } finally {
    sb.sandbox.state.faults.listenBlackhole = undefined;
  }
});

test('TTS audio stops mid-sentence: the rest comes over HTTP from where it stopped; heard once, recorded as heard', async () => {
  const clean = await call(client(), [{ say: 'متى يفتح الفرع غدا' }], { agent: { greeting: undefined }, ceilingMs: CEILING_MS });
  sb.sandbox.state.faults.ttsStall = { afterAudioS: 0.8, times: 1 };
  try {
    // The caller stays on the line through the stall instead of hanging up.
    const lines: { level: number; msg: string }[] = [];
    const c = await call(client(), [{ say: 'متى يفتح الفرع غدا' }, WAIT], {
      agent: { greeting: undefined, voice: { ...callCentre.voice, firstAudioTimeoutMs: 4000 } },
      logger: createLogger('info', { write: (l: string) => void lines.push(JSON.parse(l)) }),
      ...PATIENT,
    });
    assert.ok(c.events.some((e) => e.type === 'notice' && /switched to HTTP: audio stopped mid-sentence/.test(e.message)));
    // One log line for it, at warn (the notice's info line said the same again).
    assert.deepEqual(lines.filter((l) => /switched to HTTP/.test(l.msg)).map((l) => l.level), [40]);
    // Typed as well, so /metrics (hiwar_errors_total) and the trace count it: synthesis timed out, the call went on.
    const typed = c.events.filter((e) => e.type === 'error');
    assert.ok(typed.some((e) => e.type === 'error' && e.source === 'tts' && e.kind === 'timeout' && !e.fatal && /switched to HTTP/.test(e.message)), JSON.stringify(typed));
    const reply = agentTurns(c)[0]!;
    assert.equal(reply.text, agentTurns(clean)[0]!.text);
    assert.equal(reply.interrupted, false);
    assert.equal(reply.heardText, reply.text);
    // Neither cut short nor repeated: the caller heard as much audio as without the fault.
    const heard = agentAudioPlayed(c);
    const expected = agentAudioPlayed(clean);
    assert.ok(Math.abs(heard - expected) < 0.5, `heard ${heard.toFixed(2)} s, a clean call ${expected.toFixed(2)} s`);
  } finally {
    sb.sandbox.state.faults.ttsStall = undefined;
  }
});

/** A model that waits `firstMs` (real time) before its first token, then `thenMs` before the rest. */
function stallingModel(firstMs: number, thenMs = 0): Llm {
  return {
    name: 'stalling',
    async *stream(req: LlmRequest): AsyncGenerator<LlmEvent> {
      await sleep(firstMs, undefined, { signal: req.signal });
      yield { type: 'text', delta: 'فرعنا يفتح ' };
      await sleep(thenMs, undefined, { signal: req.signal });
      yield { type: 'text', delta: 'من الأحد إلى الخميس.' };
    },
  };
}

test('a model that never answers: a filler line, then the apology at the first-token deadline, and a typed timeout', async () => {
  const c = await call(client(), [{ say: 'متى يفتح الفرع غدا' }, WAIT], {
    llm: stallingModel(600_000),
    ...PATIENT,
    agent: { greeting: undefined, fillerLine: 'لحظة من فضلك', modelDeadlines: { fillerAfterMs: 300, firstTokenMs: 2500 } },
  });
  const reply = agentTurns(c)[0]!;
  assert.match(reply.text, /^لحظة من فضلك/);
  assert.ok(reply.text.endsWith(APOLOGY), reply.text);
  assert.equal(reply.heardText, reply.text);
  const err = c.events.find((e) => e.type === 'error');
  assert.ok(err && err.type === 'error' && err.source === 'llm' && err.kind === 'timeout' && !err.fatal, JSON.stringify(err));
  // The filler and the apology: nothing of the model's, so the turn is the session's fixed line.
  const turn = c.events.find((e) => e.type === 'agent_turn');
  assert.equal(turn?.type === 'agent_turn' && turn.line, 'model_error');
  assert.deepEqual(c.events.flatMap((e) => (e.type === 'agent_chunk' ? [e.line ?? null] : [])), [null, 'model_error'], 'the filler is not the apology');
});

test('a model that stalls after its first token times out at the idle deadline; the caller hears the apology', async () => {
  const c = await call(client(), [{ say: 'متى يفتح الفرع غدا' }, WAIT], {
    llm: stallingModel(0, 600_000),
    ...PATIENT,
    agent: { greeting: undefined, modelDeadlines: { idleMs: 2000 } },
  });
  const reply = agentTurns(c)[0]!;
  assert.match(reply.text, /فرعنا يفتح/);
  assert.ok(reply.text.endsWith(APOLOGY), reply.text);
  assert.ok(c.events.some((e) => e.type === 'error' && e.source === 'llm' && e.kind === 'timeout'));
  // The model's words came first: the turn is the model's; the apology's chunk alone is the fixed line.
  const turn = c.events.find((e) => e.type === 'agent_turn');
  assert.ok(turn?.type === 'agent_turn' && turn.line === undefined, JSON.stringify(turn));
  assert.ok(c.events.some((e) => e.type === 'agent_chunk' && e.text === APOLOGY && e.line === 'model_error'));
});

test('recognition down for good: reconnects give up, the out-of-service line is spoken once, then the call ends', async () => {
  let downed = false;
  try {
    const c = await call(client(), [{ say: 'أريد معرفة رصيد حسابي' }, { say: 'متى يفتح الفرع غدا' }], {
      onSession: (session, caller) => {
        const timer = setInterval(() => {
          if (!downed && caller.lines.length >= 1) {
            downed = true;
            sb.sandbox.state.faults.listenDown = true;
            session.dropRecognition();
          }
        }, 10);
        timer.unref();
      },
      ceilingMs: CEILING_MS,
    });
    assert.ok(downed);
    assert.match(c.report.ended, /^out of service/);
    const lines = agentTurns(c).filter((t) => t.text === OUT_OF_SERVICE);
    assert.equal(lines.length, 1, 'said and recorded once');
    assert.ok(agentAudioSeconds(c) > 0);
    const err = c.events.find((e) => e.type === 'error' && e.fatal);
    assert.ok(err && err.type === 'error' && err.source === 'stt' && err.kind === 'network', JSON.stringify(err));
    assert.match(err.message, /reconnects gave up/);
  } finally {
    sb.sandbox.state.faults.listenDown = false;
  }
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ModelTimeoutError, noticeSlowStart, withDeadlines } from '../../src/llm/deadlines.ts';
import type { Llm, LlmEvent } from '../../src/llm/types.ts';
import { classifyFailure } from '../../src/session/failure.ts';
import { VirtualClock } from '../../src/transport/clock.ts';
import { InsufficientBalanceError, TransportError } from '../../src/service/errors.ts';
import { APIConnectionError, AuthenticationError as OpenAiAuthError } from 'openai';

/** Model time runs 20× faster than real time: deadlines of seconds take tens of ms. */
const clock = { now: () => performance.now() * 20, sleep: (ms: number, signal?: AbortSignal) => sleep(ms / 20, undefined, signal ? { signal } : undefined) };

/** A model that waits `gaps[i]` (model ms) before its i-th token, and notes when it was aborted. */
function slowModel(gaps: number[]): Llm & { aborted: boolean } {
  const model = {
    name: 'slow',
    aborted: false,
    async *stream(req: { signal: AbortSignal }): AsyncGenerator<LlmEvent> {
      req.signal.addEventListener('abort', () => (model.aborted = true));
      for (const [i, gap] of gaps.entries()) {
        await clock.sleep(gap, req.signal);
        yield { type: 'text', delta: `t${i} ` };
      }
    },
  };
  return model;
}

async function collect(llm: Llm): Promise<string[]> {
  const out: string[] = [];
  for await (const e of llm.stream({ messages: [], tools: [], signal: new AbortController().signal })) if (e.type === 'text') out.push(e.delta);
  return out;
}

test('a model that never answers is given up at the first-token deadline, and its request aborted', async () => {
  const model = slowModel([60_000]);
  const err = await collect(withDeadlines(model, { firstTokenMs: 3000, idleMs: 3000 }, clock)).catch((e) => e);
  assert.ok(err instanceof ModelTimeoutError);
  assert.equal(err.phase, 'first-token');
  await sleep(20);
  assert.equal(model.aborted, true);
});

test('a model that stalls after its first token times out at the idle deadline', async () => {
  const got: string[] = [];
  const llm = withDeadlines(slowModel([100, 100, 60_000]), { firstTokenMs: 3000, idleMs: 2000 }, clock);
  const err = await (async () => {
    for await (const e of llm.stream({ messages: [], tools: [], signal: new AbortController().signal })) if (e.type === 'text') got.push(e.delta);
  })().catch((e) => e);
  assert.deepEqual(got, ['t0 ', 't1 ']);
  assert.ok(err instanceof ModelTimeoutError && err.phase === 'idle');
});

test('a model within its deadlines passes through untouched', async () => {
  assert.deepEqual(await collect(withDeadlines(slowModel([100, 200, 200]), { firstTokenMs: 3000, idleMs: 2000 }, clock)), ['t0 ', 't1 ', 't2 ']);
});

/** A model on a virtual clock: token i after gaps[i] ms of that clock. */
function virtualModel(clock: VirtualClock, gaps: number[]): Llm {
  return {
    name: 'virtual',
    async *stream(req) {
      for (const [i, gap] of gaps.entries()) {
        await clock.sleep(gap, req.signal);
        yield { type: 'text', delta: `t${i}` };
      }
    },
  };
}

test('one deadline timer per request, not one per token: a 40-token stream starts one sleep', async () => {
  const clock = new VirtualClock();
  let sleeps = 0;
  const counted = { now: () => clock.now(), sleep: (ms: number, signal?: AbortSignal) => (sleeps++, clock.sleep(ms, signal)) };
  const llm = withDeadlines(virtualModel(clock, new Array(40).fill(20)), { firstTokenMs: 8000, idleMs: 8000 }, counted);
  const got: string[] = [];
  const done = (async () => {
    for await (const e of llm.stream({ messages: [], tools: [], signal: new AbortController().signal })) if (e.type === 'text') got.push(e.delta);
  })();
  await clock.advance(40 * 20);
  await done;
  assert.equal(got.length, 40);
  assert.equal(sleeps, 1, 'the per-request watchdog, never re-armed while tokens flow');
  assert.equal(clock.pending, 0, 'its timer is cancelled when the stream ends');
});

test('the idle deadline counts from the wait that outlasts it, also when the first-token limit is longer', async () => {
  const clock = new VirtualClock();
  const llm = withDeadlines(virtualModel(clock, [100, 60_000]), { firstTokenMs: 3000, idleMs: 1000 }, clock);
  let failedAt = -1;
  let err: unknown;
  const done = (async () => {
    for await (const _ of llm.stream({ messages: [], tools: [], signal: new AbortController().signal }));
  })().catch((e) => ((failedAt = clock.now()), (err = e)));
  for (let t = 0; t < 3000 && failedAt < 0; t += 50) await clock.advance(50);
  await done;
  assert.ok(err instanceof ModelTimeoutError && err.phase === 'idle', String(err));
  assert.ok(failedAt >= 1100 && failedAt <= 1150, `given up at ${failedAt} ms (token at 100, idle limit 1000)`);
});

test('time the consumer holds a token is not the model\'s: a slow consumer does not time the model out', async () => {
  const clock = new VirtualClock();
  const llm = withDeadlines(virtualModel(clock, [100, 100, 100]), { firstTokenMs: 1000, idleMs: 1000 }, clock);
  const got: string[] = [];
  const done = (async () => {
    for await (const e of llm.stream({ messages: [], tools: [], signal: new AbortController().signal })) {
      if (e.type === 'text') got.push(e.delta);
      await clock.sleep(5000);
    }
  })();
  for (let t = 0; t < 20_000 && got.length < 3; t += 100) await clock.advance(100);
  await clock.advance(5000);
  await done;
  assert.deepEqual(got, ['t0', 't1', 't2']);
});

test('a slow first item yields one "slow" notice before it; a quick one none', async () => {
  async function* late() {
    await clock.sleep(3000);
    yield 'a';
    yield 'b';
  }
  const seen: unknown[] = [];
  for await (const x of noticeSlowStart(late(), 1000, clock)) seen.push(x);
  assert.deepEqual(seen, [{ type: 'slow' }, 'a', 'b']);
  const quick: unknown[] = [];
  for await (const x of noticeSlowStart((async function* () { yield 'a'; })(), 1000, clock)) quick.push(x);
  assert.deepEqual(quick, ['a']);
});

test('with `started`, items that do not start the reply keep the one timer running: "slow" comes between them', async () => {
  async function* crawl() {
    yield 'a';
    await clock.sleep(3000);
    yield 'b';
    await clock.sleep(3000);
    yield 'c';
  }
  let started = false;
  const seen: unknown[] = [];
  for await (const x of noticeSlowStart(crawl(), 1000, clock, () => started)) {
    seen.push(x);
    if (x === 'b') started = true;
  }
  assert.deepEqual(seen, ['a', { type: 'slow' }, 'b', 'c']);
  // Started by its first item, as without `started`: no notice however slow the rest.
  const quick: unknown[] = [];
  for await (const x of noticeSlowStart(crawl(), 1000, clock, () => quick.length > 0)) quick.push(x);
  assert.deepEqual(quick, ['a', 'b', 'c']);
});

test('failures get a kind and a clean message, never the raw SDK text', () => {
  const model = classifyFailure(new TypeError("Cannot read properties of undefined (reading 'choices')"), 'llm');
  assert.deepEqual(model, { kind: 'model', message: 'the language model failed to produce an answer' });
  assert.equal(classifyFailure(new ModelTimeoutError('first-token', 8000), 'llm').kind, 'timeout');
  assert.equal(classifyFailure(new InsufficientBalanceError({ status: 402, errorMessage: 'x' }), 'tts').kind, 'balance');
  assert.equal(classifyFailure(new TransportError('x', 'network'), 'tts').kind, 'network');
  assert.equal(classifyFailure(new APIConnectionError({ message: 'socket hang up' }), 'llm').kind, 'network');
  const auth = classifyFailure(new OpenAiAuthError(401, undefined, 'Incorrect API key provided: sk-abc', new Headers()), 'llm');
  assert.equal(auth.kind, 'auth');
  assert.ok(!auth.message.includes('sk-abc'));
});

test('resumePoint: the seam moves to the quietest 10 ms near the target, never outside the window', async () => {
  const { resumePoint } = await import('../../src/pipeline/resume-point.ts');
  const rate = 16000;
  const pcm = new Int16Array(rate).fill(1000);
  pcm.fill(0, 8800, 9000); // a pause between two words, 50 ms after the target
  const cut = resumePoint(pcm, 8000, 2400, rate);
  assert.ok(cut >= 8800 && cut <= 9000, String(cut));
  assert.equal(resumePoint(pcm, 0, 2400, rate), 0);
  assert.equal(resumePoint(pcm, 20000, 2400, rate), pcm.length);
  const flat = new Int16Array(rate).fill(1000);
  assert.ok(Math.abs(resumePoint(flat, 8000, 2400, rate) - 8000) <= 80);
});

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as realSleep } from 'node:timers/promises';
import { z } from 'zod';
import { defineTool, type Llm, type LlmRequest, type Tool } from '../../src/llm/types.ts';
import type { SpeechSink } from '../../src/pipeline/playout.ts';
import { ReplyStage, type ReplyOptions, type ReplyStageEvent, type Voice } from '../../src/pipeline/reply.ts';
import type { SpeechChunk } from '../../src/pipeline/speaker.ts';
import { SpokenForm, speechLength } from '../../src/pipeline/spoken.ts';
import { ChatHistory } from '../../src/session/history.ts';
import { VirtualClock } from '../../src/transport/clock.ts';
import { ModelTimeoutError } from '../../src/llm/deadlines.ts';
import { kindOfError } from '../../src/session/failure.ts';
import { PacedOutput } from '../../src/transport/paced-output.ts';
import { turnMetrics } from '../../src/session/metrics.ts';

const RATE = 16000;
/** Speech takes 60 ms per letter said (marks take no time), like a real voice's pace. */
const MS_PER_LETTER = 60;

/** A voice on the virtual clock: each chunk's audio comes `latencyMs` after its text. */
class FakeVoice implements Voice {
  sent: string[] = [];
  aborted = 0;
  constructor(private readonly clock: VirtualClock, private readonly latencyMs = 100) {}
  async speak(chunks: AsyncIterable<SpeechChunk>, sink: SpeechSink, signal: AbortSignal, onFirstAudio?: (at: number) => void): Promise<void> {
    signal.addEventListener('abort', () => this.aborted++, { once: true });
    for await (const c of chunks) {
      this.sent.push(c.spoken);
      await this.clock.sleep(this.latencyMs, signal).catch(() => {});
      if (signal.aborted) return;
      onFirstAudio?.(this.clock.now());
      sink.beginSegment(c.text, c.spoken);
      sink.append(new Int16Array(Math.round((speechLength(c.spoken) * MS_PER_LETTER * RATE) / 1000)).fill(500), RATE);
      sink.closeSegment();
    }
  }
}

const saying = (text: string, fail = false): Llm => ({
  name: 'fixed',
  async *stream(_req: LlmRequest) {
    for (const word of text.split(' ')) yield { type: 'text', delta: `${word} ` };
    if (fail) throw new Error('upstream 503');
  },
});

/** A diacritizer that marks every letter, as tashkil does (the text doubles in length). */
const tashkil = { diacritize: async (text: string) => ({ diacritized_text: text.replace(/([\u0621-\u064A])/g, '$1\u064E') }) } as never;

function setup(opts: { llm: Llm; diacritize?: boolean; endCallAfterTools?: string[]; clock?: VirtualClock; modelClock?: VirtualClock; tools?: Tool[]; options?: ReplyOptions }) {
  const clock = opts.clock ?? new VirtualClock();
  const output = new PacedOutput(RATE, clock);
  const voice = new FakeVoice(clock);
  const history = new ChatHistory('system');
  const events: ReplyStageEvent[] = [];
  const stage = new ReplyStage(
    { llm: opts.llm, voice, output, clock, history, spoken: new SpokenForm(tashkil, { diacritize: opts.diacritize }), tools: opts.tools ?? [], events: (e) => events.push(e), ...(opts.modelClock ? { modelClock: opts.modelClock } : {}) },
    { endCallAfterTools: opts.endCallAfterTools, ...opts.options },
  );
  return { clock, output, voice, history, events, stage };
}

const NINE = 'نرجو منك الانتظار قليلا حتى نتحقق من بيانات حسابك';

test('reply: text to audio to the caller; times from the clock; nothing left running after it', async () => {
  const { clock, stage, history, events, output } = setup({ llm: saying('رصيدك الحالي كبير.') });
  history.addUser('كم رصيدي');
  const run = stage.run({}, new AbortController().signal);
  await clock.advance(5000);
  const r = await run;
  assert.equal(r.text, 'رصيدك الحالي كبير.');
  assert.equal(r.heard, r.text);
  assert.equal(r.interrupted, false);
  assert.equal(r.times.firstToken, 0, 'the model answered at once');
  assert.equal(r.times.firstAudio, 100, 'audio came back after the voice latency');
  assert.equal(r.times.firstSent, 100, 'and left the transport at once');
  assert.ok(events.some((e) => e.type === 'speaking'));
  assert.deepEqual(history.messages().at(-1), { role: 'assistant', content: r.text });
  assert.equal(output.pending(), 0);
  assert.equal(clock.pending, 0, 'no polling loop left behind');
});

test('reply with diacritization cut off halfway: about half the words count as heard', async () => {
  const { clock, stage, voice, history } = setup({ llm: saying(NINE), diacritize: true });
  const ctrl = new AbortController();
  const run = stage.run({ text: undefined }, ctrl.signal);
  await clock.advance(1);
  const spoken = voice.sent.join(' ');
  assert.ok(spoken.length > 1.8 * NINE.length, 'synthesis got the diacritized text');
  const durationMs = speechLength(NINE) * MS_PER_LETTER;
  await clock.advance(100 + durationMs / 2);
  ctrl.abort();
  await clock.advance(1);
  const r = await run;
  assert.equal(r.interrupted, true);
  const words = r.heard.split(' ').length;
  assert.ok(words >= 4 && words <= 5, `heard ${words} of 9 words: "${r.heard}"`);
  assert.ok(NINE.startsWith(r.heard));
  assert.equal(history.messages().at(-1)!.content, `${r.heard}…`);
  assert.equal(voice.aborted, 1, 'the voice was stopped (it clears the service)');
});

test('reply: a failing model is followed by the apology line; a tool ending the call is reported', async () => {
  const failing = setup({ llm: saying('لحظة من فضلك.', true) });
  const run = failing.stage.run({}, new AbortController().signal);
  await failing.clock.advance(10_000);
  const r = await run;
  assert.equal(r.text, 'لحظة من فضلك. عذرًا، حدث خلل مؤقت. هل يمكنك إعادة طلبك؟');
  assert.ok(failing.events.some((e) => e.type === 'llm_error' && /upstream 503/.test(e.message)));

  const tool: Llm = {
    name: 'tool',
    async *stream(req) {
      if (req.messages.at(-1)!.role === 'tool') yield { type: 'text', delta: 'مع السلامة.' };
      else yield { type: 'tool_calls', calls: [{ id: '1', name: 'goodbye', arguments: '{}' }] };
    },
  };
  const ending = setup({ llm: tool, endCallAfterTools: ['goodbye'] });
  const run2 = ending.stage.run({ turn: { text: 'شكرا', lastWordEnd: 1, finalAt: 0, decidedAt: 0 } }, new AbortController().signal);
  await ending.clock.advance(5000);
  const r2 = await run2;
  assert.equal(r2.endCall, true);
  assert.equal(r2.heard, 'مع السلامة.');
  assert.deepEqual(ending.history.messages().map((m) => m.role), ['system', 'user', 'assistant', 'tool', 'assistant']);
});

test('reply: the model request is written before the playout and the voice are set up, also when the turn is decided inside a promise callback', async () => {
  // node:http writes a request on a kept-alive connection in a process.nextTick after
  // `request()`; a reply decided in a promise callback must let that tick run before its setup.
  const order: string[] = [];
  const llm: Llm = {
    name: 'http-like',
    async *stream() {
      process.nextTick(() => order.push('request written'));
      await new Promise<void>((r) => setTimeout(r, 5));
      yield { type: 'text', delta: 'تم.' };
    },
  };
  const { clock, stage, voice, history } = setup({ llm });
  const speak = voice.speak.bind(voice);
  voice.speak = (...args) => {
    order.push('voice set up');
    return speak(...args);
  };
  history.addUser('هل تم؟');
  // Decided in a promise callback, as a turn decision is (after the recognizer's final).
  const { run } = await Promise.resolve().then(() => ({ run: stage.run({}, new AbortController().signal) }));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(order.slice(0, 2), ['request written', 'voice set up']);
  await new Promise((r) => setTimeout(r, 10));
  await clock.advance(5000);
  await run;
});

/** A tool that takes 300 ms of real time, and a model that calls it before it writes. */
const slowTool = defineTool({ name: 'lookup', description: 'slow', parameters: z.object({}), execute: async () => (await realSleep(300), { ok: true }) });
const toolThenText: Llm = {
  name: 'tool',
  async *stream(req) {
    if (req.messages.at(-1)!.role === 'tool') yield { type: 'text', delta: 'وجدت طلبك.' };
    else yield { type: 'tool_calls', calls: [{ id: '1', name: 'lookup', arguments: '{}' }] };
  },
};

/**
 * A reply to one turn, with real time for the fillers' waits and the model's or tool's pace:
 * the virtual clock only stamps, moved on while they take their time.
 */
async function fillerReply(llm: Llm, options: ReplyOptions) {
  const clock = new VirtualClock();
  await clock.advance(1000);
  const { stage } = setup({ llm, clock, tools: [slowTool], options });
  const run = stage.run({ turn: { text: 'أين طلبي', lastWordEnd: 1, finalAt: 1000, decidedAt: 1000 } }, new AbortController().signal);
  const ticking = setInterval(() => void clock.advance(20), 10);
  return run.finally(() => clearInterval(ticking));
}

test("a model that writes a word and then crawls gets the filler before its first sentence; a tool's own filler is not doubled by it", async () => {
  const crawling: Llm = {
    name: 'crawling',
    async *stream() {
      yield { type: 'text', delta: 'وجدت ' };
      await realSleep(300);
      yield { type: 'text', delta: 'طلبك.' };
    },
  };
  const options = { fillerLine: 'لحظة من فضلك.', fillerAfterMs: 50, toolFiller: { line: 'انتظر قليلا.', afterMs: 50 } };
  assert.match((await fillerReply(crawling, options)).text, /^لحظة من فضلك\. وجدت طلبك\.$/, 'a crawling model');
  assert.match((await fillerReply(toolThenText, options)).text, /^انتظر قليلا\. وجدت طلبك\.$/, 'a tool first');
});

test("reply times after a filler: the parts stay in order (a filler said before the model's text made the first sentence's time negative)", async () => {
  const slowModel: Llm = {
    name: 'slow',
    async *stream() {
      await realSleep(300);
      yield { type: 'text', delta: 'وجدت طلبك.' };
    },
  };
  for (const [what, llm, options] of [
    ['the tool filler', toolThenText, { toolFiller: { line: 'لحظة من فضلك.', afterMs: 50 } }],
    ["the model's filler", slowModel, { fillerLine: 'لحظة من فضلك.', fillerAfterMs: 50 }],
  ] as const) {
    const r = await fillerReply(llm, options);
    assert.match(r.text, /^لحظة من فضلك\. وجدت طلبك\.$/, what);
    assert.ok(r.times.firstToken > 0 && r.times.firstChunk >= r.times.firstToken, `${what}: first token at ${r.times.firstToken}, first chunk (the filler) at ${r.times.firstChunk}`);
  }
});


test("reply times when the model fails before any token: the failure is the model's part, the apology its first sentence, so the parts add up to voice to voice (a gap the review page's bars and the stage histogram could not place)", async () => {
  const clock = new VirtualClock();
  await clock.advance(1000);
  const down: Llm = {
    name: 'down',
    async *stream() {
      await clock.sleep(400);
      throw new Error('connect ECONNREFUSED 127.0.0.1:9');
    },
  };
  const { stage, events } = setup({ llm: down, clock });
  const run = stage.run({ turn: { text: 'كم رصيدي', lastWordEnd: 1, finalAt: 1000, decidedAt: 1000 } }, new AbortController().signal);
  await clock.advance(10_000);
  const r = await run;
  assert.equal(r.text, 'عذرًا، حدث خلل مؤقت. هل يمكنك إعادة طلبك؟');
  assert.ok(events.some((e) => e.type === 'llm_error'));
  assert.equal(r.times.firstToken, 1400, 'the model answered, with its failure, 400 ms after the decision');
  assert.ok(r.times.firstChunk >= r.times.firstToken && r.times.firstAudio >= r.times.firstChunk, JSON.stringify(r.times));
  const m = turnMetrics({ speechEnd: 900, finalAt: 1000, decidedAt: 1000, ...r.times });
  const parts = [m.endOfSpeechToFinalMs, m.turnDecisionMs, m.llmFirstTokenMs, m.llmFirstSentenceMs, m.ttsFirstAudioMs, m.playoutStartMs];
  assert.ok(parts.every((x) => x !== undefined), JSON.stringify(m));
  assert.equal(Math.round(parts.reduce((a, b) => a! + b!, 0)! * 10) / 10, m.voiceToVoiceMs);
});

test('a model that writes a word and then one every few seconds, with no filler: the apology at the first-sentence deadline, a typed timeout, the model stopped', async () => {
  const clock = new VirtualClock();
  let stopped = false;
  let words = 0;
  // Every 5 s a word: the idle deadline (8 s between tokens) never expires, no sentence ever ends.
  const crawling: Llm = {
    name: 'crawling',
    async *stream(req: LlmRequest) {
      req.signal.addEventListener('abort', () => (stopped = true), { once: true });
      for (;;) {
        yield { type: 'text', delta: 'وجدت ' };
        words++;
        await clock.sleep(5000, req.signal);
      }
    },
  };
  const { stage, events } = setup({ llm: crawling, clock, modelClock: clock });
  const run = stage.run({ turn: { text: 'أين طلبي', lastWordEnd: 1, finalAt: 0, decidedAt: 0 } }, new AbortController().signal);
  await clock.advance(5_500);
  assert.ok(!events.some((e) => e.type === 'llm_error'), 'not given up before the deadline');
  await clock.advance(60_000);
  const r = await run;
  assert.equal(words, 2, 'the model was read until the deadline (6 s after its first word), and no further');
  assert.ok(stopped, "the model's request was aborted");
  assert.ok(r.text.endsWith('عذرًا، حدث خلل مؤقت. هل يمكنك إعادة طلبك؟'), r.text);
  const err = events.find((e) => e.type === 'llm_error');
  assert.ok(err && err.type === 'llm_error' && err.error instanceof ModelTimeoutError && err.error.phase === 'first-sentence', JSON.stringify(err));
  assert.equal(kindOfError(err.error, 'llm'), 'timeout', 'typed as a model timeout (llm/timeout)');
  assert.equal(r.interrupted, false);
});

test("the first sentence's deadline counts from the first token: a model that thinks for 10 s, then answers at once, is not given up", async () => {
  const clock = new VirtualClock();
  const thinking: Llm = {
    name: 'thinking',
    async *stream(req: LlmRequest) {
      await clock.sleep(10_000, req.signal);
      yield { type: 'text', delta: 'وجدت ' };
      await clock.sleep(1000, req.signal);
      yield { type: 'text', delta: 'طلبك.' };
    },
  };
  const { stage, events } = setup({ llm: thinking, clock, modelClock: clock });
  const run = stage.run({ turn: { text: 'أين طلبي', lastWordEnd: 1, finalAt: 0, decidedAt: 0 } }, new AbortController().signal);
  await clock.advance(30_000);
  const r = await run;
  assert.equal(r.text, 'وجدت طلبك.');
  assert.ok(!events.some((e) => e.type === 'llm_error'), JSON.stringify(events));
});

import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import type { WebSocket } from 'ws';
import type { SpeechSink } from '../../src/pipeline/playout.ts';
import { Speaker, SpeakerFatal, type SpeechChunk } from '../../src/pipeline/speaker.ts';
import { realClock } from '../../src/transport/clock.ts';
import { until } from '../helpers/deadline.ts';
import { json, startFake, type Fake } from '../helpers/fake-service.ts';

type Mode = 'ok' | 'silent' | 'dies-after-first' | 'dies-mid-sentence' | 'broke';
let mode: Mode = 'ok';
let socketMessages: Record<string, unknown>[] = [];
let httpTexts: string[] = [];
let http429 = 0;
const b64 = (n: number, v: number) => Buffer.from(new Int16Array(n).fill(v).buffer).toString('base64');

/** A TTS socket peer speaking the real protocol; its failures are chosen per test. */
function ttsPeer(ws: WebSocket): void {
  const send = (o: object) => ws.send(JSON.stringify(o));
  let flushed = 0;
  ws.on('message', (data) => {
    const msg = JSON.parse(data.toString());
    socketMessages.push(msg);
    if (msg.type === 'initConnection') {
      if (mode === 'broke') return send({ type: 'error', errorCode: 40201, errorMessage: 'Insufficient wallet balance' });
      return send({ type: 'connectionInitialized' });
    }
    // As the service: closeConnection is answered by closing (without it, close() waited out its 5 s).
    if (msg.type === 'closeConnection') return ws.close(1000);
    if (msg.type === 'text' && msg.flush) {
      flushed++;
      if (mode === 'silent') return;
      if (mode === 'dies-after-first' && flushed > 1) return ws.terminate();
      const rate = 24000;
      // 50 ms of the sentence, then the connection drops.
      if (mode === 'dies-mid-sentence') return ws.send(JSON.stringify({ audio: b64(1200, flushed), sampleRate: rate, isFinal: false }), () => ws.terminate());
      send({ audio: b64(2400, flushed), sampleRate: rate, isFinal: false });
      send({ audio: b64(2400, flushed), sampleRate: rate, isFinal: false });
      send({ audio: '', sampleRate: rate, isFinal: true });
    }
  });
}

let fake: Fake;
before(async () => {
  fake = await startFake(
    {
      'POST /text-to-speech/{model}': (req, res) => {
        const body = JSON.parse(req.body.toString());
        if (http429-- > 0) return json(res, 429, { errorCode: 42901, errorMessage: 'Too many requests' }, { 'retry-after': '0' });
        httpTexts.push(body.text);
        res.writeHead(200, { 'content-type': `audio/raw;codec=pcm16;rate=${body.sample_rate};channels=1` });
        res.end(Buffer.from(new Int16Array(body.sample_rate / 10).fill(9).buffer));
      },
    },
    { '/websocket/text-to-speech': ttsPeer },
  );
});
after(() => fake.close());
beforeEach(() => {
  mode = 'ok';
  socketMessages = [];
  httpTexts = [];
  http429 = 0;
});

/** Records segments as the playout would see them. */
class Sink implements SpeechSink {
  segments: { text: string; samples: number; rates: Set<number> }[] = [];
  beginSegment(text: string): void {
    this.segments.push({ text, samples: 0, rates: new Set() });
  }
  closeSegment(): void {}
  append(samples: Int16Array, rate: number): void {
    this.segments.at(-1)!.samples += samples.length;
    this.segments.at(-1)!.rates.add(rate);
  }
}

async function* chunks(...texts: string[]): AsyncGenerator<SpeechChunk> {
  for (const text of texts) yield { text, spoken: text };
}

/** The first audio's budget is short where a silent socket is waited out, generous where the socket answers (a loaded machine's first answer can take longer than 300 ms). */
function speaker(notices: string[], sampleRate = 48000, firstAudioTimeoutMs = 300) {
  // Each notice as `cause: reason`: the typed cause and the line a reader acts on.
  return new Speaker(fake.client(), { voice_id: 'v', sampleRate, firstAudioTimeoutMs }, realClock(), (n) => notices.push(`${n.cause}: ${n.reason}`));
}

test('speaker: a 48 kHz transport gets the socket at 24 kHz, one segment per chunk, rates kept', async () => {
  const notices: string[] = [];
  const s = speaker(notices, 48000, 20_000);
  await s.start();
  assert.equal(s.mode, 'socket');
  assert.equal(socketMessages[0]!.output_format, 'pcm_24000');
  const sink = new Sink();
  await s.speak(chunks('واحد', 'اثنان'), sink, new AbortController().signal);
  assert.deepEqual(sink.segments.map((x) => [x.text, x.samples, [...x.rates]]), [['واحد', 4800, [24000]], ['اثنان', 4800, [24000]]]);
  assert.deepEqual(notices, []);
  await s.close();
});

test('speaker: a silent socket falls back to HTTP for the rest, at the transport rate, nothing twice', async () => {
  mode = 'silent';
  const notices: string[] = [];
  const s = speaker(notices);
  await s.start();
  const sink = new Sink();
  await s.speak(chunks('واحد', 'اثنان', 'ثلاثة'), sink, new AbortController().signal);
  // Why, in words: how long it waited and what sets the wait (a busy machine shows here).
  assert.match(notices.join(), /^no-audio: no audio from the socket 300 ms after the text was sent \(firstAudioTimeoutMs: a slow service or a busy machine\)$/);
  assert.equal(s.mode, 'http');
  assert.deepEqual(httpTexts, ['واحد', 'اثنان', 'ثلاثة']);
  assert.deepEqual(sink.segments.map((x) => [x.text, [...x.rates]]), [['واحد', [48000]], ['اثنان', [48000]], ['ثلاثة', [48000]]]);
  await s.close();
});

test('speaker: the socket dying mid-reply hands only the unvoiced chunks to HTTP', async () => {
  mode = 'dies-after-first';
  const notices: string[] = [];
  const s = speaker(notices, 16000, 20_000);
  await s.start();
  const sink = new Sink();
  await s.speak(chunks('واحد', 'اثنان'), sink, new AbortController().signal);
  assert.match(notices.join(), /^socket-closed: socket closed \(\d+/);
  assert.deepEqual(httpTexts, ['اثنان']);
  assert.deepEqual(sink.segments.map((x) => x.text), ['واحد', 'اثنان']);
  await s.close();
});

test('speaker: the socket dying mid-sentence: HTTP voices the rest of that sentence from where it stopped, not all of it again', async () => {
  mode = 'dies-mid-sentence';
  const notices: string[] = [];
  const s = speaker(notices, 16000);
  await s.start();
  const sink = new Sink();
  await s.speak(chunks('واحد'), sink, new AbortController().signal);
  assert.match(notices.join(), /^socket-closed: socket closed \(\d+/);
  assert.deepEqual(httpTexts, ['واحد']);
  // One segment: 50 ms from the socket (1200 samples at 24 kHz), then HTTP's 100 ms rendering
  // (1600 samples at 16 kHz) from about 50 ms in; before, a second segment with all of it,
  // the caller hearing the sentence's start twice.
  assert.deepEqual(sink.segments.map((x) => x.text), ['واحد']);
  const fromHttp = sink.segments[0]!.samples - 1200;
  assert.ok(fromHttp > 400 && fromHttp < 1200, `the rest of the sentence only: ${fromHttp} samples from HTTP`);
  await s.close();
});

test('speaker: an empty wallet is fatal at start; 429 over HTTP is retried with backoff', async () => {
  mode = 'broke';
  await assert.rejects(speaker([]).start(), (err) => err instanceof SpeakerFatal && /Insufficient/.test(err.message));
  mode = 'silent';
  http429 = 2;
  const s = speaker([]);
  await s.start();
  const sink = new Sink();
  await s.speak(chunks('واحد'), sink, new AbortController().signal);
  assert.deepEqual(httpTexts, ['واحد'], 'voiced after two refusals');
  await s.close();
});

test('speaker: a cut-off reply clears what the service still generates', async () => {
  mode = 'silent';
  const s = new Speaker(fake.client(), { voice_id: 'v', sampleRate: 16000, firstAudioTimeoutMs: 10_000 }, realClock());
  await s.start();
  const ctrl = new AbortController();
  const done = s.speak(chunks('واحد'), new Sink(), ctrl.signal);
  // Cut once the service has the text, and the clear waited for where it arrives (fixed 100 ms
  // pauses ran out before the socket was read on a loaded machine).
  await until(() => socketMessages.some((m) => m.type === 'text' && m.flush), 'the text at the service');
  ctrl.abort();
  await done;
  await until(() => socketMessages.some((m) => m.type === 'clear'), 'clear over the socket');
  await s.close();
});

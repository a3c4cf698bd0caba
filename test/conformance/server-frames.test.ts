/**
 * Server frames in the shapes the service sends
 * (docs/service-behaviour.md#what-the-live-listen-socket-sends,
 * docs/service-behaviour.md#the-text-to-speech-sockets-messages,
 * docs/service-behaviour.md#other-http-answers), including the forms recorded from the live
 * service (`model: "munsit-v2"`, transcripts with spaces to trim, `fileSize` as text, `isFinal`
 * on intermediate TTS batches, both error shapes), replayed by a real HTTP/WebSocket peer
 * against hiwar's client.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import { filter, firstValueFrom, toArray } from '../helpers/rx.ts';
import type { WebSocket } from 'ws';
import { encodeWav } from '../../src/audio/wav.ts';
import { AuthenticationError, type ListenEvent, type TtsEvent } from '../../src/service/index.ts';
import { GenerationEnd } from '../../src/service/ws/tts-generation.ts';
import { within } from '../helpers/deadline.ts';
import { KEY, formOf, json, startFake, type Fake, type Recorded } from '../helpers/fake-service.ts';

const b64 = (n: number, v: number) => Buffer.from(new Int16Array(n).fill(v).buffer).toString('base64');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A tenth of a second of silence in a real container, made by ffmpeg. */
export const encoded = (format: string) =>
  new Uint8Array(spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', 'anullsrc=r=16000:cl=mono', '-t', '0.1', '-f', format, '-'], { maxBuffer: 1 << 24 }).stdout);

/** The live /listen as recorded: the served build in Metadata, a padded final, flat events. */
function listenPeer(ws: WebSocket, req: Recorded): void {
  const send = (o: object) => ws.send(JSON.stringify(o));
  send({ type: 'Metadata', session_id: 'a1b2', correlation_id: null, model: 'munsit-v2', protocol_version: 1, channels: 1, sample_rate: Number(req.query.get('sample_rate')), dropped_hotwords: [] });
  ws.on('message', (data, binary) => {
    if (binary) return;
    if (JSON.parse(data.toString()).type !== 'CloseStream') return;
    send({ type: 'SpeechStarted', channel: 0, ts: 0.25 });
    send({ type: 'Results', channel: 0, turn_id: 0, transcript: '', words: [], is_final: false, speech_final: false, language: 'ar', confidence: null });
    send({ type: 'Results', channel: 0, turn_id: 0, transcript: 'مرحبا كيف', words: [{ word: 'مرحبا', start: 0.04, end: 0.4 }], is_final: false, speech_final: false, language: 'ar', confidence: null });
    send({ type: 'Results', channel: 0, turn_id: 0, transcript: '  مرحبا كيف حالك  ', words: [], is_final: true, speech_final: true, language: 'ar', confidence: 0.93 });
    send({ type: 'UtteranceEnd', channel: 0, turn_id: 0, last_word_end: 1.28 });
    send({ type: 'Gender', channel: 0, turn_id: 0, label: 'male', score: 0.99 });
    send({ type: 'Sentiment', channel: 0, turn_id: 0, label: 'neutral', score: 0.64 });
    send({ type: 'Error', code: 4002, message: 'Finalize is not supported', recoverable: true });
    send({ type: 'Metadata', session_id: 'a1b2', audio_seconds_billed: 3.56, turn_count: 1 });
    ws.close(1000);
  });
}

/**
 * The TTS socket as one client reported the live one: isFinal on every audio batch, batches of
 * one generation a few ms apart, and the documented empty end marker after them.
 */
function ttsPeer(ws: WebSocket, req: Recorded): void {
  const send = (o: object) => ws.send(JSON.stringify(o));
  ws.on('message', async (data) => {
    const m = JSON.parse(data.toString());
    if (m.type === 'initConnection') {
      if (req.query.get('x-api-key') !== KEY || m.x_api_key !== KEY) return send({ type: 'error', errorCode: 40101, errorMessage: 'Unauthorized' });
      return send({ type: 'connectionInitialized' });
    }
    if (m.type === 'text' && m.text === 'legacy-error') return send({ type: 'error', message: 'generation failed' });
    if (m.type === 'text' && m.flush && m.text.trim()) {
      const v = m.text.trim().length;
      for (let i = 0; i < 4; i++) {
        send({ audio: b64(240, v), sampleRate: 24000, isFinal: true });
        await sleep(20);
      }
      send({ audio: '', sampleRate: 24000, isFinal: true });
    }
    if (m.type === 'closeConnection') ws.close(1000);
  });
}

let fake: Fake;
before(async () => {
  fake = await startFake(
    {
      'POST /audio/transcribe': (_req, res) =>
        json(res, 200, {
          statusCode: 200,
          message: 'Success',
          data: {
            transcriptionId: 't-1', transcription: 'نعم موافق', summary: '', duration: 1.2,
            timestamps: [{ word: 'نعم', start: 0.1, end: 0.4 }],
            stats: { fileName: 'call.mp3', fileSize: '0.08 MB', creditsConsumed: 2 },
          },
        }),
      'GET /voices': (_req, res) => json(res, 200, { voices: [{ voice_id: 'ar-najdi-male-2', name: 'Saad', languages: ['ar'], dialect: ['najdi'] }] }),
    },
    { '/listen': listenPeer, '/websocket/text-to-speech': ttsPeer },
  );
});
after(() => fake.close());

test('/listen: Metadata naming the build served, empty interims, a padded final trimmed, every /listen event parsed', async () => {
  const sock = await fake.client().openListen({ model: 'munsit', sample_rate: 16000 });
  assert.equal(fake.calls.at(-1)!.query.get('model'), 'munsit');
  assert.equal((await sock.opened()).model, 'munsit-v2');
  const all = firstValueFrom(sock.events$.pipe(toArray()));
  const closing = await sock.finish();
  const events = await all;
  const types = events.map((e) => e.type);
  assert.deepEqual(types.filter((t) => t !== 'Metadata' && t !== 'Closed'), ['SpeechStarted', 'Results', 'Results', 'Results', 'UtteranceEnd', 'Gender', 'Sentiment', 'Error']);
  const finals = events.filter((e): e is Extract<ListenEvent, { type: 'Results' }> => e.type === 'Results' && e.is_final);
  assert.equal(finals[0]!.transcript, 'مرحبا كيف حالك');
  const err = events.find((e) => e.type === 'Error');
  assert.ok(err && err.type === 'Error' && err.code === 4002 && err.recoverable === true);
  assert.equal(closing?.audio_seconds_billed, 3.56);
  assert.ok(!types.includes('Malformed'));
});

test('file transcription: the envelope unwrapped, fileSize as the live service writes it, the file named by its content', async () => {
  const mp3 = encoded('mp3');
  const wav = encodeWav(new Int16Array(1600), 16000);
  const r = await fake.client().transcribe({ file: { data: wav, filename: 'recording' }, model: 'munsit', return_timestamps: true });
  assert.equal(r.transcription, 'نعم موافق');
  assert.equal(r.stats?.fileSize, '0.08 MB');
  assert.equal(r.stats?.creditsConsumed, 2);
  const form = await formOf(fake.calls.at(-1)!);
  assert.equal((form.get('file') as File).name, 'recording.wav');
  assert.equal(form.get('model'), 'munsit');
  assert.equal(form.get('return_timestamps'), 'true');
  await fake.client().transcribe({ file: new Blob([wav as Uint8Array<ArrayBuffer>]) });
  assert.equal(((await formOf(fake.calls.at(-1)!)).get('file') as File).name, 'audio.wav');
  await fake.client().transcribe({ file: { data: mp3, filename: 'call.wav' } });
  assert.equal(((await formOf(fake.calls.at(-1)!)).get('file') as File).name, 'call.mp3', 'a wrong extension is corrected');
});

test('voices: a {voices: [...]} wrapper is accepted', async () => {
  const voices = await fake.client().listVoices();
  assert.equal(voices[0]!.voice_id, 'ar-najdi-male-2');
});

test('TTS socket: default auth is query + initConnection; isFinal on every batch still ends each chunk once, with all its audio', async () => {
  const tts = await fake.client().openTts({ voice_id: 'ar-hijazi-female-2' });
  const q = fake.calls.at(-1)!.query;
  assert.equal(q.get('x-api-key'), KEY);
  const got: TtsEvent[] = [];
  tts.events$.subscribe((e) => got.push(e));
  for (const text of ['أ', 'بب', 'ججج']) {
    tts.sendText(text, { flush: true });
    await tts.finalReceived();
  }
  await tts.close();
  // Per chunk: its four batches (sample value = its text's length), then one generationEnd.
  const seq = got.filter((e) => e.type === 'audio' || e.type === 'generationEnd').map((e) => (e.type === 'audio' ? e.pcm[0] : 'end'));
  assert.deepEqual(seq, [1, 1, 1, 1, 'end', 2, 2, 2, 2, 'end', 3, 3, 3, 3, 'end']);
  // Read the spec's way, the first batch would have ended the first chunk.
  const trusting = await fake.client().openTts({ voice_id: 'v', generationEnd: { rule: 'is-final' } });
  const ends = firstValueFrom(trusting.events$.pipe(filter((e) => e.type === 'audio' || e.type === 'generationEnd'), toArray()));
  const ended = firstValueFrom(trusting.events$.pipe(filter((e) => e.type === 'generationEnd' || e.type === 'closed')));
  trusting.sendText('أ', { flush: true });
  // Its first generationEnd waited for (a fixed 300 ms ran out before the first batch was read on
  // a loaded machine); what came before it is what is asserted.
  await within(ended, 20_000, 'a generationEnd from the trusting socket');
  await trusting.close();
  assert.deepEqual((await ends).map((e) => e.type).slice(0, 2), ['audio', 'generationEnd']);
});

test('TTS socket: both error shapes; header-only auth refused 40101 as live', async () => {
  const tts = await fake.client().openTts({ voice_id: 'v' });
  const err = firstValueFrom(tts.events$.pipe(filter((e) => e.type === 'error')));
  tts.sendText('legacy-error');
  const e = await err;
  assert.ok(e.type === 'error' && e.error.errorMessage === 'generation failed');
  await tts.close();
  await assert.rejects(fake.client().openTts({ voice_id: 'v', auth: 'header' }), (x: unknown) => x instanceof AuthenticationError && x.errorCode === 40101);
});

test('generation end rule on virtual time: quiet gap after isFinal, stall without one, is-final trusting', () => {
  let now = 0;
  const timers: { at: number; fn: () => void }[] = [];
  const clock = {
    set: (fn: () => void, ms: number) => {
      const t = { at: now + ms, fn };
      timers.push(t);
      return t;
    },
    clear: (h: unknown) => timers.splice(timers.indexOf(h as never) >>> 0, timers.includes(h as never) ? 1 : 0),
  };
  const advance = (ms: number) => {
    now += ms;
    for (const t of timers.filter((x) => x.at <= now)) {
      timers.splice(timers.indexOf(t), 1);
      t.fn();
    }
  };
  let ends = 0;
  const stalls: boolean[] = [];
  const g = new GenerationEnd((stalled) => (ends++, stalls.push(stalled)), { rule: 'quiet-gap', quietGapMs: 300, stallMs: 3000 }, clock);
  g.frame(true, true); // an intermediate batch flagged isFinal
  advance(100);
  g.frame(true, false);
  advance(250);
  assert.equal(ends, 0, 'audio kept coming: not the end');
  g.frame(false, true);
  advance(299);
  assert.equal(ends, 0);
  advance(1);
  assert.equal(ends, 1, 'quiet gap after the end marker');
  g.frame(true, false);
  advance(2999);
  assert.equal(ends, 1);
  advance(1);
  assert.equal(ends, 2, 'a server that never says isFinal still ends after a stall');
  assert.deepEqual(stalls, [false, true], 'an end by the stall rule says so (the audio may have been cut off)');
  const trusting = new GenerationEnd(() => ends++, { rule: 'is-final' }, clock);
  trusting.frame(true, true);
  assert.equal(ends, 3);
  assert.equal(trusting.trustsMarkers, true);
});

test('the learning rule: quiet gaps until a generation ends with the empty end message, then that message alone', () => {
  const timers: (() => void)[] = [];
  const clock = { set: (fn: () => void) => timers.push(fn), clear: (h: unknown) => (timers[(h as number) - 1] = () => {}) };
  const fire = () => timers.splice(0).forEach((f) => f());
  let ends = 0;
  const g = new GenerationEnd(() => ends++, { rule: 'learn' }, clock);
  // A server whose last batch carries the isFinal (no end message): the rule keeps the gap.
  g.frame(true, true);
  g.frame(true, true);
  fire();
  assert.equal(ends, 1);
  assert.equal(g.trustsMarkers, false);
  // Batches flagged isFinal, then the empty end message: learned.
  g.frame(true, true);
  g.frame(false, true);
  fire();
  assert.equal(ends, 2);
  assert.equal(g.trustsMarkers, true);
  // From now on each end message ends one generation, even back to back, with no timer.
  g.frame(true, true);
  g.frame(true, false);
  assert.equal(ends, 2, 'isFinal on a batch is not an end');
  g.frame(false, true);
  g.frame(true, true);
  g.frame(false, true);
  assert.equal(ends, 4);
  // …and a missed end message still ends the generation after a stall.
  g.frame(true, false);
  fire();
  assert.equal(ends, 5);
  // The strict rule never learns.
  const strict = new GenerationEnd(() => {}, { rule: 'quiet-gap' }, clock);
  strict.frame(true, true);
  strict.frame(false, true);
  fire();
  assert.equal(strict.trustsMarkers, false);
});

/**
 * Recorded traffic (test/fixtures/service/*.json): what real clients of the service put on the
 * wire and what the live service answers, written down once as literal frames. Each file is
 * replayed both ways: its client frames against the sandbox (whose answers must have the
 * recorded frames' shapes and order), and its server frames, verbatim, against hiwar's client
 * (whose parsed events must say what the frames say). The sandbox and the client can then no
 * longer agree on a mistake: both are held to the same recording.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { firstValueFrom, toArray } from '../helpers/rx.ts';
import WebSocket from 'ws';
import { concatPcm, silence } from '../../src/audio/pcm.ts';
import { encodeWav, pcmToBytes } from '../../src/audio/wav.ts';
import type { ListenEvent } from '../../src/service/index.ts';
import { KEY as FAKE_KEY, startFake, type Fake } from '../helpers/fake-service.ts';
import { runSandbox, voiced, type Running } from '../helpers/sandbox.ts';
import { shape } from '../telephony/fixture-files.ts';

const recording = (name: string) => JSON.parse(readFileSync(new URL(`../fixtures/service/${name}.json`, import.meta.url), 'utf8'));
const LISTEN = recording('listen');
const TTS = recording('tts-socket');
const LEGACY = recording('legacy-stt');
const LINE = 'أريد معرفة رصيد حسابي';
const KEY = 'sk-recorded-traffic-01';

let sb: Running;
let speech: Int16Array;
let fake: Fake;
before(async () => {
  sb = await runSandbox({ keys: [{ key: KEY, credits: 1e9, concurrency: 8 }] });
  // The line, then enough silence for the recognizer's turn to end and its interim to settle.
  speech = concatPcm([silence(0.3, 16000), await voiced(sb.client, LINE, 16000), silence(1.5, 16000)]);
  fake = await startFake({}, { '/listen': replayListen, '/websocket/text-to-speech': replayTts, '/websocket/speech-to-text': replayLegacy });
});
after(async () => {
  await fake.close();
  await sb.close();
});

/** Sends a recording's client frames (speech where it says so) and collects the server's text frames until it closes. */
async function play(rec: { client: { path: string; query: string; frames: any[] } }, until: (frames: any[]) => boolean = () => false) {
  const query = rec.client.query.replace('<key>', KEY);
  const ws = new WebSocket(`${sb.sandbox.wsUrl}${rec.client.path}?${query}`, { headers: { 'x-api-key': KEY } });
  const frames: any[] = [];
  const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
  const done = new Promise<void>((resolve) =>
    ws.on('message', (d, binary) => {
      if (binary) return;
      frames.push(JSON.parse(d.toString()));
      if (until(frames)) resolve();
    }),
  );
  await new Promise((r) => ws.once('open', r));
  const bytes = pcmToBytes(speech);
  for (const f of rec.client.frames) {
    if ('text' in f) ws.send(JSON.stringify(f.text).replaceAll('<key>', KEY));
    else if (f.speech.frameMs) for (let at = 0; at < bytes.length; at += 32 * f.speech.frameMs) ws.send(bytes.subarray(at, at + 32 * f.speech.frameMs));
    else for (let at = 0; at < bytes.length; at += 32000 * f.speech.chunkSeconds) ws.send(JSON.stringify({ event: 'audio_chunk', data: { audioBuffer: [...bytes.subarray(at, at + 32000 * f.speech.chunkSeconds)] } }));
  }
  return { ws, frames, closed, done };
}

/** What a /listen frame is: its type, Results split into interim and final, Metadata into opening and closing. */
const kindOf = (f: any): string =>
  f.type === 'Results' ? (f.is_final ? 'final' : 'interim') : f.type === 'Metadata' ? ('model' in f ? 'Metadata:open' : 'Metadata:close') : f.type;
/** Frame kinds in order, runs of interims counted once (their number varies with the audio). */
const listenKinds = (frames: any[]) => frames.map(kindOf).filter((k, i, all) => !(k === 'interim' && all[i - 1] === 'interim'));

test('/listen, client frames against the sandbox: one turn answered with the recorded events, in order, in their shapes', async () => {
  const s = await play(LISTEN);
  assert.equal(await s.closed, LISTEN.serverCloses);
  const recorded = listenKinds(LISTEN.server);
  // The recording opens with an empty interim; the sandbox may send none before the words.
  assert.deepEqual(listenKinds(s.frames).filter((k) => k !== 'interim'), recorded.filter((k) => k !== 'interim'));
  // Every frame the sandbox sent has the fields of the recorded frame of its kind, no more, no fewer.
  for (const f of s.frames) assert.deepEqual(shape(f), shape(LISTEN.server.find((r: any) => kindOf(r) === kindOf(f))), kindOf(f));
  assert.equal(s.frames.find((f) => f.type === 'Results' && f.is_final).transcript.trim(), LINE);
});

function replayListen(ws: WebSocket): void {
  const [opening, ...rest] = LISTEN.server;
  ws.send(JSON.stringify(opening));
  ws.on('message', (d, binary) => {
    if (binary || JSON.parse(d.toString()).type !== 'CloseStream') return;
    for (const f of rest) ws.send(JSON.stringify(f));
    ws.close(LISTEN.serverCloses);
  });
}

test('/listen, recorded server frames against hiwar\'s client: every event read as the frames say', async () => {
  const sock = await fake.client().openListen({ model: 'munsit-en-ar', language: 'auto', sample_rate: 16000 });
  assert.equal((await sock.opened()).model, 'munsit-en-ar-v2');
  const all = firstValueFrom(sock.events$.pipe(toArray()));
  const closing = await sock.finish();
  const events = await all;
  assert.deepEqual(events.map((e) => e.type).filter((t) => t !== 'Closed'), ['Metadata', 'SpeechStarted', 'Results', 'Results', 'Results', 'UtteranceEnd', 'Gender', 'Sentiment', 'Metadata']);
  const results = events.filter((e): e is Extract<ListenEvent, { type: 'Results' }> => e.type === 'Results');
  assert.deepEqual(results.map((r) => [r.transcript, r.is_final, r.speech_final]), [['', false, false], ['أريد معرفة', false, false], [LINE, true, true]]);
  assert.deepEqual(results[2]!.words.map((w) => w.word), ['أريد', 'معرفة', 'رصيد', 'حسابي']);
  const end = events.find((e) => e.type === 'UtteranceEnd');
  assert.ok(end && end.type === 'UtteranceEnd' && end.last_word_end === 2.02);
  assert.equal(closing?.audio_seconds_billed, 3.56);
});

test('TTS socket, client frames against the sandbox: initialized, audio batches, the empty isFinal end marker, closed 1000', async () => {
  const s = await play(TTS, (frames) => frames.some((f) => f.isFinal === true && f.audio === ''));
  await s.done;
  s.ws.send(JSON.stringify({ type: 'closeConnection' }));
  assert.equal(await s.closed, TTS.serverCloses);
  const [init, ...audio] = s.frames;
  assert.deepEqual(init, TTS.server[0]);
  assert.ok(audio.length >= 2);
  for (const f of audio) assert.deepEqual(shape(f), shape(TTS.server[1]));
  assert.ok(audio.every((f) => f.sampleRate === 16000), 'the output_format asked for');
  assert.deepEqual(audio.at(-1), TTS.server.at(-1));
});

function replayTts(ws: WebSocket, req: { query: URLSearchParams }): void {
  ws.on('message', (d) => {
    const m = JSON.parse(d.toString());
    if (m.type === 'initConnection') {
      if (req.query.get('x-api-key') !== FAKE_KEY || m.x_api_key !== FAKE_KEY) return ws.send(JSON.stringify(TTS.errors[0]));
      return ws.send(JSON.stringify(TTS.server[0]));
    }
    if (m.type === 'text' && m.text === 'fail') return ws.send(JSON.stringify(TTS.errors[1]));
    if (m.type === 'text' && m.flush) for (const f of TTS.server.slice(1)) ws.send(JSON.stringify(f));
    if (m.type === 'closeConnection') ws.close(TTS.serverCloses);
  });
}

test('TTS socket, recorded server frames against hiwar\'s client: key in the query and the message, the audio samples, the end, both error shapes', async () => {
  const tts = await fake.client().openTts({ voice_id: 'ar-hijazi-female-2', model_id: 'faseeh-v1-preview', output_format: 'pcm_16000' });
  const events: any[] = [];
  tts.events$.subscribe((e) => events.push(e));
  tts.sendText('مرحبا بكم في خدمة العملاء', { flush: true });
  await tts.finalReceived();
  const audio = events.filter((e) => e.type === 'audio');
  // "AAABAAIAAwA=" and "BAAFAAYABwA=": the samples 0 to 7, little-endian.
  assert.deepEqual(audio.flatMap((e) => [...e.pcm]), [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.ok(audio.every((e) => e.sampleRate === 16000 && e.isFinal === false));
  assert.ok(events.some((e) => e.type === 'final'));
  tts.sendText('fail', { flush: true });
  await new Promise<void>((r) => {
    const check = () => (events.some((e) => e.type === 'error') ? r() : setTimeout(check, 10));
    check();
  });
  assert.match(String(events.find((e) => e.type === 'error').error.message), /generation failed/);
  tts.close();
});

test('legacy socket, client frames against the sandbox: each text once, the final one never repeated, finalized with the line', async () => {
  const s = await play(LEGACY, (frames) => frames.some((f) => f.event === 'finalized'));
  await s.done;
  s.ws.close();
  for (const f of s.frames) assert.deepEqual(shape(f), shape(LEGACY.server.find((r: any) => r.event === f.event)), JSON.stringify(f));
  const texts = s.frames.filter((f) => f.event === 'transcription').map((f) => f.data);
  assert.ok(texts.length >= 1);
  assert.equal(new Set(texts).size, texts.length, `a transcription repeated: ${JSON.stringify(s.frames)}`);
  assert.deepEqual(s.frames.at(-1), { event: 'finalized', data: LINE });
});

function replayLegacy(ws: WebSocket): void {
  ws.on('message', (d) => {
    if (JSON.parse(d.toString()).event === 'end_of_stream') for (const f of LEGACY.server) ws.send(JSON.stringify(f));
  });
}

test('legacy socket, recorded server frames against hiwar\'s client: two new texts, then finalized', async () => {
  const s = await fake.client().openLegacyStt({ model: 'munsit' });
  const events = firstValueFrom(s.events$.pipe(toArray()));
  s.sendAudio(encodeWav(new Int16Array(1600), 16000));
  assert.equal(await s.end(), LINE);
  s.close();
  const got = await events;
  assert.deepEqual(got.filter((e) => e.type === 'transcription').map((e) => e.type === 'transcription' && e.text), ['أريد معرفة', LINE]);
  assert.equal(got.filter((e) => e.type === 'finalized').length, 1);
});

/**
 * The message sequences real clients of the service send
 * (docs/service-behaviour.md#what-real-clients-of-the-service-send), replayed against the
 * sandbox over real sockets with plain `ws` and `fetch`, exactly as those clients put them on
 * the wire: vendor model ids, their query strings, their auth forms, their voice ids.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { concatPcm, silence } from '../../src/audio/pcm.ts';
import { encodeWav, pcmToBytes } from '../../src/audio/wav.ts';
import { runSandbox, voiced, type Running } from '../helpers/sandbox.ts';
import { within } from '../helpers/deadline.ts';

const KEY = 'sk-conform-main-01';
let sb: Running;
let line: Int16Array;
const LINE = 'أريد معرفة رصيد حسابي';
before(async () => {
  sb = await runSandbox({ keys: [{ key: KEY, credits: 1e9, concurrency: 16 }] });
  line = concatPcm([silence(0.3, 16000), await voiced(sb.client, LINE, 16000), silence(1.5, 16000)]);
});
after(() => sb.close());

/** Opens a socket and records every text frame until it closes. */
function record(url: string, headers: Record<string, string> = {}) {
  const ws = new WebSocket(url, { headers });
  const frames: any[] = [];
  const opened = new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_q, res) => reject(new Error(`handshake ${res.statusCode}`)));
    ws.once('error', reject);
  });
  ws.on('message', (d, binary) => !binary && frames.push(JSON.parse(d.toString())));
  const closed = new Promise<{ code: number; reason: string }>((r) => ws.on('close', (code, reason) => r({ code, reason: reason.toString() })));
  const until = (pred: (f: any) => boolean, ms = 20_000) => {
    let check = () => {};
    const found = new Promise<any>((resolve) => {
      check = () => {
        const f = frames.find(pred);
        if (f) resolve(f);
      };
      ws.on('message', check);
      check();
    });
    return within(found, ms, () => `timed out after ${ms} ms of the machine's time; frames: ${JSON.stringify(frames).slice(0, 400)}`).finally(() => ws.off('message', check));
  };
  return { ws, frames, opened, closed, until };
}

const base = () => sb.sandbox.wsUrl;

test('/listen as the vendor plugins open it: munsit-en-ar, language=auto, KeepAlive first, 100 ms frames, CloseStream', async () => {
  for (const [model, build] of [['munsit-en-ar', 'munsit-en-ar-v2'], ['munsit', 'munsit-v2'], ['asr', 'munsit-v2']]) {
    const language = model === 'munsit-en-ar' ? 'auto' : 'ar';
    const q = `encoding=linear16&sample_rate=16000&model=${model}&language=${language}&interim_results=true&endpointing=300&smart_turn=false&channels=1`;
    const s = record(`${base()}/listen?${q}`, { 'x-api-key': KEY });
    await s.opened;
    s.ws.send(JSON.stringify({ type: 'KeepAlive' }));
    const bytes = pcmToBytes(line);
    for (let at = 0; at < bytes.length; at += 3200) s.ws.send(bytes.subarray(at, at + 3200));
    const final = await s.until((f) => f.type === 'Results' && f.is_final);
    s.ws.send(JSON.stringify({ type: 'CloseStream' }));
    const { code } = await s.closed;
    const open = s.frames[0];
    assert.equal(open.type, 'Metadata');
    assert.equal(open.model, build, `${model} is served as ${build}`);
    assert.equal(final.transcript, LINE, model);
    assert.equal(final.speech_final, true);
    assert.ok(!s.frames.some((f) => f.type === 'Error'), JSON.stringify(s.frames.filter((f) => f.type === 'Error')));
    assert.ok(s.frames.at(-1).type === 'Metadata' && s.frames.at(-1).audio_seconds_billed > 0);
    assert.equal(code, 1000);
  }
});

test('/listen: munsit keeps asr rules (language=en refused 4002), munsit-en-ar drops hotwords like asr-en-ar', async () => {
  const bad = record(`${base()}/listen?model=munsit&language=en&sample_rate=16000`, { 'x-api-key': KEY });
  await bad.opened;
  assert.equal((await bad.closed).code, 4002);
  const en = record(`${base()}/listen?model=munsit-en-ar&hotwords=مدى,سداد&sample_rate=16000&api_key=${KEY}`);
  await en.opened;
  const meta = await en.until((f) => f.type === 'Metadata');
  assert.deepEqual(meta.dropped_hotwords, ['مدى', 'سداد']);
  en.ws.close();
});

test('TTS socket as the browser sample uses it: key in the query and in initConnection, vendor model, the voices real clients use', async () => {
  for (const [model_id, voice_id] of [['faseeh-v1-preview', 'ar-hijazi-female-2'], ['faseeh-mini-v1-preview', 'ar-najdi-female-1'], ['tts-v1-preview', 'ar-najdi-male-2']]) {
    const s = record(`${base()}/websocket/text-to-speech?x-api-key=${KEY}`);
    await s.opened;
    s.ws.send(JSON.stringify({ type: 'initConnection', model_id, voice_id, x_api_key: KEY, output_format: 'pcm_16000' }));
    await s.until((f) => f.type === 'connectionInitialized');
    s.ws.send(JSON.stringify({ type: 'text', text: 'مرحبا بكم في خدمة العملاء', flush: false, try_trigger_generation: false }));
    s.ws.send(JSON.stringify({ type: 'text', text: '', flush: true }));
    await s.until((f) => f.isFinal === true && f.audio === '');
    // An empty flush with nothing buffered is harmless: at most another end marker, no error.
    s.ws.send(JSON.stringify({ type: 'text', text: '', flush: true }));
    s.ws.send(JSON.stringify({ type: 'closeConnection' }));
    assert.equal((await s.closed).code, 1000);
    const audio = s.frames.filter((f) => typeof f.audio === 'string' && f.audio.length);
    assert.ok(audio.length > 3 && audio.every((f) => f.sampleRate === 16000), `${model_id}/${voice_id}`);
    assert.ok(!s.frames.some((f) => f.type === 'error'), JSON.stringify(s.frames.filter((f) => f.type === 'error')));
  }
  const unknown = record(`${base()}/websocket/text-to-speech?x-api-key=${KEY}`);
  await unknown.opened;
  unknown.ws.send(JSON.stringify({ type: 'initConnection', model_id: 'no-such-model', voice_id: 'ar-najdi-male-2', x_api_key: KEY }));
  assert.equal((await unknown.until((f) => f.type === 'error')).errorCode, 40401);
  unknown.ws.close();
});

test('HTTP with vendor ids: synthesis, file transcription with "true"/"false" fields, the catalogue lists both names', async () => {
  const headers = { 'x-api-key': KEY, 'content-type': 'application/json' };
  for (const model of ['faseeh-v1-preview', 'faseeh-mini-v1-preview', 'tts-v1-preview']) {
    const res = await fetch(`${sb.sandbox.url}/text-to-speech/${model}`, {
      method: 'POST', headers, body: JSON.stringify({ voice_id: 'ar-hijazi-female-2', text: 'مرحبا بكم في البنك', streaming: true, sample_rate: 16000 }),
    });
    assert.equal(res.status, 200, model);
    assert.match(res.headers.get('content-type')!, /audio\/raw;codec=pcm16;rate=16000/);
    assert.ok((await res.arrayBuffer()).byteLength > 16000);
  }
  for (const model of ['munsit', 'munsit-en-ar', 'asr']) {
    const form = new FormData();
    form.append('file', new Blob([encodeWav(line, 16000) as Uint8Array<ArrayBuffer>], { type: 'audio/wav' }), 'call.wav');
    form.append('model', model);
    form.append('return_timestamps', 'true');
    form.append('diarize', 'false');
    const res = await fetch(`${sb.sandbox.url}/audio/transcribe`, { method: 'POST', headers: { 'x-api-key': KEY }, body: form });
    assert.equal(res.status, 200, model);
    const { statusCode, data, message } = (await res.json()) as any;
    assert.equal(statusCode, 200);
    assert.equal(message, 'Success');
    assert.equal(data.transcription, LINE);
    assert.ok(data.duration > 1 && data.timestamps.length > 0 && data.transcriptionId);
    assert.match(data.stats.fileSize, /^\d+\.\d\d MB$/);
    assert.equal(typeof data.stats.creditsConsumed, 'number');
  }
  const models = (await (await fetch(`${sb.sandbox.url}/models`, { headers })).json()) as { model_id: string }[];
  for (const id of ['munsit', 'munsit-en-ar', 'faseeh-v1-preview', 'faseeh-mini-v1-preview', 'asr', 'asr-en-ar', 'tts-v1-preview']) {
    assert.ok(models.some((m) => m.model_id === id), id);
  }
  const voices = (await (await fetch(`${sb.sandbox.url}/voices`, { headers })).json()) as { voice_id: string }[];
  for (const id of ['ar-najdi-male-2', 'ar-uae-male-1', 'ar-hijazi-female-2', 'ar-najdi-female-1']) assert.ok(voices.some((v) => v.voice_id === id), id);
});

/** A streaming WAV header: data size 0xFFFFFFFF − 44, as real legacy clients send first. */
function streamingHeader(rate: number): Buffer {
  const h = Buffer.from(encodeWav(new Int16Array(0), rate));
  h.writeUInt32LE(0xffffffff - 8, 4);
  h.writeUInt32LE(0xffffffff - 44, 40);
  return h;
}

test('legacy socket: streaming header then raw PCM, or a whole WAV per chunk; each text sent once; bad key 401', async () => {
  const pcm = pcmToBytes(line);
  const chunks = (wholeWav: boolean) => {
    const out: Buffer[] = wholeWav ? [] : [streamingHeader(16000)];
    for (let at = 0; at < pcm.length; at += 8000) {
      const piece = pcm.subarray(at, at + 8000);
      out.push(wholeWav ? Buffer.from(encodeWav(new Int16Array(piece.buffer.slice(piece.byteOffset, piece.byteOffset + piece.byteLength)), 16000)) : Buffer.from(piece));
    }
    return out;
  };
  for (const wholeWav of [false, true]) {
    const s = record(`${base()}/websocket/speech-to-text?model=munsit`, { 'x-api-key': KEY });
    await s.opened;
    for (const c of chunks(wholeWav)) s.ws.send(JSON.stringify({ event: 'audio_chunk', data: { audioBuffer: [...c] } }));
    s.ws.send(JSON.stringify({ event: 'end_of_stream' }));
    const fin = await s.until((f) => f.event === 'finalized');
    s.ws.close();
    assert.equal(fin.data, LINE, wholeWav ? 'whole WAV chunks' : 'raw chunks');
    assert.ok(!s.frames.some((f) => f.event === 'transcription_error'), JSON.stringify(s.frames));
    const interims = s.frames.filter((f) => f.event === 'transcription' && !f.isFinal).map((f) => f.data);
    assert.ok(interims.length >= 1);
    assert.equal(new Set(interims).size, interims.length, `no repeated transcript: ${JSON.stringify(interims)}`);
  }
  const bad = record(`${base()}/websocket/speech-to-text`, { 'x-api-key': 'sk-wrong-key-000' });
  await assert.rejects(bad.opened, /handshake 401/);
});

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { filter, firstValueFrom, toArray } from '../helpers/rx.ts';
import WebSocket from 'ws';
import { concatPcm, silence } from '../../src/audio/pcm.ts';
import { encodeWav } from '../../src/audio/wav.ts';
import { AuthenticationError, ServiceClient, type TtsEvent } from '../../src/service/index.ts';
import { runSandbox, voiced, type Running } from '../helpers/sandbox.ts';

let sb: Running;
before(async () => {
  sb = await runSandbox({ keys: [{ key: 'sk-sock-main-001', credits: 1e9, concurrency: 16 }, { key: 'sk-sock-poor-001', credits: 20 }] });
});
after(() => sb.close());

type Audio = Extract<TtsEvent, { type: 'audio' }>;

test('TTS socket: init, chunks buffered until flush, audio at the format rate, isFinal at the end', async () => {
  const tts = await sb.client.openTts({ voice_id: 'ar-najdi-male-2', output_format: 'pcm_8000' });
  const events = firstValueFrom(tts.events$.pipe(toArray()));
  tts.sendText('مرحبا ');
  await sleep(150);
  tts.sendText('بكم في البنك', { flush: true });
  await tts.finalReceived();
  await tts.close();
  const got = await events;
  const audio = got.filter((e): e is Audio => e.type === 'audio');
  assert.ok(audio.length > 3);
  assert.ok(audio.every((a) => a.sampleRate === 8000));
  const seconds = audio.reduce((n, a) => n + a.pcm.length, 0) / 8000;
  assert.ok(seconds > 1 && seconds < 5, `${seconds} s`);
  assert.deepEqual(got.slice(-3).map((e) => e.type), ['final', 'generationEnd', 'closed']);
  assert.ok(got.at(-1)?.type === 'closed' && got.at(-1)!.type === 'closed');
});

test('TTS socket: a sentence end triggers generation without flush; clear stops the audio of cleared text', async () => {
  const tts = await sb.client.openTts({ voice_id: 'ar-najdi-male-2', output_format: 'pcm_16000' });
  const first = firstValueFrom(tts.events$.pipe(filter((e) => e.type === 'audio')));
  tts.sendText('مرحبا بكم في خدمة العملاء. ');
  assert.ok(await first, 'generated on the sentence end');
  const long = 'أهلا وسهلا بك، نحن سعداء بخدمتك اليوم، ونتمنى لك يوما جميلا مليئا بالخير والسعادة والنجاح.';
  let after = 0;
  let clearedAt = 0;
  tts.events$.subscribe((e) => {
    if (e.type === 'audio' && clearedAt) after++;
  });
  tts.sendText(long, { flush: true });
  await sleep(300);
  tts.clear();
  clearedAt = Date.now();
  await sleep(1500);
  assert.equal(after, 0, 'no audio after clear');
  tts.sendText('نعم', { flush: true });
  await tts.finalReceived();
  await tts.close();
});

test('TTS socket: every auth form; bad key answers error 40101; text before init is refused', async () => {
  for (const auth of ['header', 'query', 'bearer', 'message'] as const) {
    const tts = await sb.client.openTts({ voice_id: 'ar-najdi-male-2', auth });
    assert.equal(tts.isOpen, true, auth);
    await tts.close();
  }
  await assert.rejects(
    new ServiceClient({ apiKey: 'sk-not-a-key-01', baseUrl: sb.sandbox.url }).openTts({ voice_id: 'ar-najdi-male-2', auth: 'message' }),
    (e: unknown) => e instanceof AuthenticationError && e.errorCode === 40101,
  );
  const ws = new WebSocket(`${sb.sandbox.wsUrl}/websocket/text-to-speech`, { headers: { 'x-api-key': 'sk-sock-main-001' } });
  await new Promise((r) => ws.once('open', r));
  const reply = new Promise<any>((r) => ws.once('message', (d) => r(JSON.parse(d.toString()))));
  ws.send(JSON.stringify({ type: 'text', text: 'مرحبا' }));
  const m = await reply;
  assert.equal(m.type, 'error');
  assert.equal(m.errorCode, 40001);
  const bad = new Promise<any>((r) => ws.once('message', (d) => r(JSON.parse(d.toString()))));
  ws.send(JSON.stringify({ type: 'initConnection', voice_id: 'ar-najdi-male-2', output_format: 'pcm_44100' }));
  assert.match((await bad).errorMessage, /output_format/);
  ws.close();
});

test('TTS socket: running out of credits is an error message, not a crash', async () => {
  const tts = await new ServiceClient({ apiKey: 'sk-sock-poor-001', baseUrl: sb.sandbox.url }).openTts({ voice_id: 'ar-najdi-male-2' });
  const err = firstValueFrom(tts.events$.pipe(filter((e) => e.type === 'error')));
  tts.sendText('هذه جملة طويلة تكلف أكثر من الرصيد المتاح', { flush: true });
  const e = await err;
  assert.ok(e.type === 'error' && e.error.status === 402);
  assert.ok((await sb.client.listModels()).length, 'the sandbox still serves others');
});

test('legacy socket: WAV first, transcriptions only when the text changes (the final one too), end_of_stream → finalized', async () => {
  const line = 'أرجو إيقاف بطاقتي فورا';
  const pcm = concatPcm([silence(0.3, 16000), await voiced(sb.client, line, 16000), silence(0.5, 16000)]);
  const wav = encodeWav(pcm, 16000);
  const s = await sb.client.openLegacyStt({ min_buffer_seconds: 0.5 });
  const events = firstValueFrom(s.events$.pipe(toArray()));
  const header = 44;
  const chunk = 16000; // 0.5 s of PCM16
  s.sendAudio(wav.subarray(0, header + chunk));
  for (let at = header + chunk; at < wav.length; at += chunk) s.sendAudio(wav.subarray(at, at + chunk));
  const text = await s.end();
  assert.equal(text, line);
  s.close();
  const got = await events;
  const interims = got.filter((e) => e.type === 'transcription' && !e.isFinal).map((e) => e.type === 'transcription' && e.text);
  // The trailing silence leaves the transcript unchanged: it is not sent again (a real client
  // would emit each repeat as news).
  assert.ok(interims.length >= 1);
  assert.ok(interims.every((t, i) => t && t !== interims[i - 1]), `interims: ${JSON.stringify(interims)}`);
  // The final transcription is news only when it differs from the last interim; either way the
  // text reaches the client once as a transcription, and finalized closes the stream with it.
  const finals = got.filter((e) => e.type === 'transcription' && e.isFinal).map((e) => e.type === 'transcription' && e.text);
  assert.deepEqual(finals, interims.at(-1) === line ? [] : [line]);
  assert.ok(!interims.includes(line) || finals.length === 0, 'the final text is not sent twice');
  assert.equal(got.filter((e) => e.type === 'finalized').length, 1);
});

test('legacy socket: idle is judged on what the client sent: messages waiting unread, and the answer to end_of_stream, are not idle', async () => {
  const limits = sb.sandbox.state.limits;
  limits.legacyIdleMs = 300;
  after(() => (limits.legacyIdleMs = 30_000));
  const line = 'أرجو إيقاف بطاقتي فورا';
  const pcm = concatPcm([silence(25, 16000), await voiced(sb.client, line, 16000), silence(0.5, 16000)]);
  const wav = encodeWav(pcm, 16000);
  const s = await sb.client.openLegacyStt({ min_buffer_seconds: 5 });
  const events = firstValueFrom(s.events$.pipe(toArray()));
  const chunk = 5 * 32000; // 5 s of PCM16: one interim transcription each, of everything so far
  s.sendAudio(wav.subarray(0, 44 + chunk));
  for (let at = 44 + chunk; at < wav.length; at += chunk) s.sendAudio(wav.subarray(at, at + chunk));
  const final = s.end(300_000);
  // This process (the sandbox's too) held for twice the idle limit before the sandbox reads any
  // of it, as on a busy or starved server: its idle timer comes due with the audio there to read.
  const held = Date.now() + 600;
  while (Date.now() < held); // eslint-disable-line no-empty
  // Then the backlog (six interims over the growing stream, and the final) takes longer than
  // 300 ms: the client is waiting for the answer it asked for, not idle.
  assert.equal(await final, line);
  // Once answered, a client that stays silent is idle again: closed, its session freed.
  const got = await events;
  const last = got.at(-1);
  assert.ok(last?.type === 'closed' && last.close.code === 1011, JSON.stringify(last));
  assert.equal(got.filter((e) => e.type === 'finalized').length, 1);
});

test('legacy socket: raw first chunk is an error; bad key refused 401 at the handshake; token auth works', async () => {
  const ws = new WebSocket(`${sb.sandbox.wsUrl}/websocket/speech-to-text?token=sk-sock-main-001`);
  await new Promise((r) => ws.once('open', r));
  const reply = new Promise<any>((r) => ws.once('message', (d) => r(JSON.parse(d.toString()))));
  ws.send(JSON.stringify({ audioBuffer: [1, 2, 3, 4] }));
  assert.equal((await reply).event, 'transcription_error');
  const done = new Promise<any>((r) => ws.on('message', (d) => {
    const m = JSON.parse(d.toString());
    if (m.event === 'finalized') r(m);
  }));
  ws.send(JSON.stringify({ event: 'end_of_stream' }));
  assert.equal((await done).data, '');
  ws.close();
  const bad = new WebSocket(`${sb.sandbox.wsUrl}/websocket/speech-to-text`, { headers: { 'x-api-key': 'nope-nope-nope' } });
  bad.on('error', () => {});
  const refused = await new Promise<{ status: number; body: string }>((r) =>
    bad.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => r({ status: res.statusCode!, body }));
    }),
  );
  assert.equal(refused.status, 401);
  assert.equal(JSON.parse(refused.body).errorCode, 40101);
  await assert.rejects(
    new ServiceClient({ apiKey: 'nope-nope-nope', baseUrl: sb.sandbox.url }).openLegacyStt(),
    (e: unknown) => e instanceof AuthenticationError && e.errorCode === 40101,
  );
});

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { filter, firstValueFrom, toArray } from '../helpers/rx.ts';
import WebSocket from 'ws';
import { mulaw } from '../../src/audio/g711.ts';
import { concatPcm, silence } from '../../src/audio/pcm.ts';
import { ServiceClient, type ListenEvent, type ListenSocket } from '../../src/service/index.ts';
import { until } from '../helpers/deadline.ts';
import { pad, runSandbox, voiced, type Running } from '../helpers/sandbox.ts';

let sb: Running;
before(async () => {
  sb = await runSandbox({
    keys: [
      { key: 'sk-listen-main-01', credits: 1e9, concurrency: 16 },
      { key: 'sk-listen-poor-01', credits: 2 },
    ],
  });
});
after(() => sb.close());

/** Sends audio in 20 ms frames; `pace` 1 = real time, 0 = as fast as possible. */
async function stream(sock: ListenSocket, pcm: Int16Array, rate: number, pace = 1): Promise<void> {
  const frame = rate / 50;
  const start = Date.now();
  for (let i = 0; i < pcm.length; i += frame) {
    sock.sendAudio(pcm.subarray(i, i + frame));
    if (pace > 0) await sleep(Math.max(0, start + ((i + frame) / rate) * 1000 * pace - Date.now()));
  }
}

const collect = (sock: ListenSocket) => firstValueFrom(sock.events$.pipe(toArray()));

test('round trip: a line voiced by the sandbox, as 8 kHz mu-law at real-time pace, comes back word for word', async () => {
  const line = 'أريد إيقاف بطاقتي المفقودة';
  const pcm8 = await voiced(sb.client, line, 8000, 'ar-uae-male-1');
  const telephone = mulaw.decode(mulaw.encode(pad(pcm8, 8000, 0.4, 1.2)));
  const sock = await sb.client.openListen({ sample_rate: 8000 });
  const events = collect(sock);
  await stream(sock, telephone, 8000, 1);
  await sock.finish();
  const got = await events;
  const types = got.map((e) => (e.type === 'Results' ? (e.is_final ? 'Final' : 'Interim') : e.type === 'Metadata' ? `Metadata:${e.phase}` : e.type));
  const order = types.filter((t) => t !== 'Interim');
  assert.deepEqual(order, ['Metadata:open', 'SpeechStarted', 'Final', 'UtteranceEnd', 'Gender', 'Sentiment', 'Metadata:close', 'Closed']);
  const interims = got.filter((e): e is Extract<ListenEvent, { type: 'Results' }> => e.type === 'Results' && !e.is_final);
  assert.ok(interims.length >= 1, 'interim results while speaking');
  for (let i = 1; i < interims.length; i++) assert.ok(interims[i]!.transcript.startsWith(interims[i - 1]!.transcript), 'interims are cumulative');
  const final = got.find((e): e is Extract<ListenEvent, { type: 'Results' }> => e.type === 'Results' && e.is_final)!;
  assert.equal(final.transcript, line);
  assert.equal(final.speech_final, true);
  assert.deepEqual(final.words.map((w) => w.word), line.split(' '));
  assert.ok(final.words[0]!.start > 0.3 && final.words[0]!.start < 0.6, `first word at ${final.words[0]!.start}`);
  const ue = got.find((e) => e.type === 'UtteranceEnd');
  assert.ok(ue?.type === 'UtteranceEnd' && Math.abs(ue.last_word_end - final.words.at(-1)!.end) < 0.01);
  const closing = got.find((e) => e.type === 'Metadata' && e.phase === 'close');
  assert.ok(closing?.type === 'Metadata' && closing.phase === 'close' && closing.turn_count === 1);
  assert.ok(Math.abs((closing.audio_seconds_billed ?? 0) - telephone.length / 8000) < 0.05);
});

test('two turns, timestamps=false, and speech it does not know gets an empty final and a warning', async () => {
  const known = await voiced(sb.client, 'نعم موافق', 16000);
  const { voiceText } = await import('../../src/sandbox/engines/espeak.ts');
  const { resample } = await import('../../src/audio/resample.ts');
  const v = await voiceText('الطقس جميل جدا', { name: 'ar', pitch: 40, wpm: 185 });
  const unknown = await resample(v.samples, v.sampleRate, 16000);
  const sock = await sb.client.openListen({ timestamps: false, endpointing: 400 });
  const events = collect(sock);
  await stream(sock, concatPcm([silence(0.3, 16000), known, silence(1, 16000), unknown, silence(1, 16000)]), 16000, 0.25);
  await sock.finish();
  const finals = (await events).filter((e): e is Extract<ListenEvent, { type: 'Results' }> => e.type === 'Results' && e.is_final);
  assert.deepEqual(finals.map((f) => f.transcript), ['نعم موافق', '']);
  assert.deepEqual(finals.map((f) => f.turn_id), [0, 1]);
  assert.ok(finals.every((f) => f.words.length === 0 && f.confidence === null));
  assert.ok((await events).some((e) => e.type === 'Metadata' && e.phase === 'warning'));
});

test('forced split after long unbroken speech: is_final without speech_final, same turn', async () => {
  const long = await voiced(sb.client, 'أريد أن أعرف رصيد حسابي الجاري وحساب التوفير أيضا', 16000);
  sb.sandbox.state.timing.forcedSplitS = 1.2; // the service's 60 s, shortened
  after(() => (sb.sandbox.state.timing.forcedSplitS = 60));
  const sock = await sb.client.openListen();
  const events = collect(sock);
  await stream(sock, pad(long, 16000, 0.3, 1), 16000, 0.3);
  await sock.finish();
  const finals = (await events).filter((e): e is Extract<ListenEvent, { type: 'Results' }> => e.type === 'Results' && e.is_final);
  assert.ok(finals.length >= 2, `expected a split, got ${finals.length} final(s)`);
  assert.ok(finals.slice(0, -1).every((f) => !f.speech_final));
  assert.equal(finals.at(-1)!.speech_final, true);
  assert.ok(finals.every((f) => f.turn_id === finals[0]!.turn_id));
});

test('CloseStream mid-speech flushes the final before closing', async () => {
  const line = await voiced(sb.client, 'شكرا جزيلا لك', 16000);
  const sock = await sb.client.openListen();
  const events = collect(sock);
  await stream(sock, concatPcm([silence(0.3, 16000), line]), 16000, 0);
  await sock.finish();
  const finals = (await events).filter((e) => e.type === 'Results' && e.is_final);
  assert.equal(finals.length, 1);
  assert.ok(finals[0]!.type === 'Results' && finals[0]!.transcript === 'شكرا جزيلا لك');
});

test('idle: no audio closes 1011; KeepAlive keeps the stream open', async () => {
  // Only here: a 0.6 s idle limit for every test closed streams whenever a loaded machine
  // stalled the event loop that long mid-recognition.
  sb.sandbox.state.timing.listenIdleMs = 600;
  after(() => (sb.sandbox.state.timing.listenIdleMs = 12_000));
  const idle = await sb.client.openListen({ keepAliveMs: 0 });
  const closed = await firstValueFrom(idle.events$.pipe(filter((e) => e.type === 'Closed')));
  assert.ok(closed.type === 'Closed' && closed.close.code === 1011 && closed.close.retryable);
  const kept = await sb.client.openListen({ keepAliveMs: 200 });
  await sleep(1000);
  assert.equal(kept.isOpen, true);
  await kept.finish();
});

test('idle is judged on what the client sent: audio waiting unread, and a backlog after CloseStream, are not idle', async () => {
  sb.sandbox.state.timing.listenIdleMs = 300;
  after(() => (sb.sandbox.state.timing.listenIdleMs = 12_000));
  const off = { keepAliveMs: 0, liveness: { eventTimeoutMs: 0, pingIntervalMs: 0 } };
  const sock = await sb.client.openListen(off);
  const events = collect(sock);
  // A minute of audio and CloseStream at once, then this process (the sandbox's too) held for
  // longer than the idle limit before the sandbox reads any of it: a busy or starved server. Its
  // idle timer comes due before the socket is read, and the audio is there to be read.
  for (let i = 0; i < 60; i++) sock.sendAudio(new Int16Array(16000));
  sock.flushAudio();
  const closing = sock.finish(60_000);
  const held = Date.now() + 600;
  while (Date.now() < held); // eslint-disable-line no-empty
  // The minute's recognition runs well past 300 ms after CloseStream: the client is waiting
  // for the close it asked for, not idle.
  const meta = await closing;
  const last = (await events).at(-1);
  assert.ok(last?.type === 'Closed' && last.close.code === 1000, JSON.stringify(last));
  assert.equal(meta?.audio_seconds_billed, 60);
});

test('audio too far ahead of real time closes 4008', async () => {
  sb.sandbox.state.timing.aheadLimitS = 3; // the service's 60 s, shortened
  after(() => (sb.sandbox.state.timing.aheadLimitS = 60));
  const sock = await sb.client.openListen();
  const closed = firstValueFrom(sock.events$.pipe(filter((e) => e.type === 'Closed')));
  for (let i = 0; i < 50; i++) sock.sendAudio(new Int16Array(1600));
  const c = await closed;
  assert.ok(c.type === 'Closed' && c.close.kind === 'too_far_ahead');
});

test('auth: bad key → Error then 1008; query api_key works; empty wallet → 1008 balance', async () => {
  const bad = await new ServiceClient({ apiKey: 'sk-nope-nope-01', baseUrl: sb.sandbox.url }).openListen();
  const badEvents = await collect(bad);
  assert.equal(badEvents[0]?.type, 'Error');
  assert.ok(badEvents.at(-1)?.type === 'Closed' && badEvents.at(-1)!.type === 'Closed');
  const last = badEvents.at(-1)!;
  assert.ok(last.type === 'Closed' && last.close.code === 1008 && last.close.kind === 'unauthorized');
  const q = await sb.client.openListen({ auth: 'query' });
  assert.equal((await q.opened()).sample_rate, 16000);
  q.close();
  const poor = await new ServiceClient({ apiKey: 'sk-listen-poor-01', baseUrl: sb.sandbox.url }).openListen();
  const poorClosed = firstValueFrom(poor.events$.pipe(filter((e) => e.type === 'Closed')));
  for (let i = 0; i < 10 && poor.isOpen; i++) {
    poor.sendAudio(new Int16Array(16000));
    await sleep(50);
  }
  const pc = await poorClosed;
  assert.ok(pc.type === 'Closed' && pc.close.kind === 'insufficient_balance');
});

test('raw socket: bad sample_rate and language close 4002; Finalize is a recoverable error; hotwords dropped on asr-en-ar', async () => {
  const base = sb.sandbox.wsUrl;
  const open = (q: string) => new WebSocket(`${base}/listen?${q}`, { headers: { 'x-api-key': 'sk-listen-main-01' } });
  const closeOf = (ws: WebSocket) => new Promise<{ code: number; first: string }>((resolve) => {
    let first = '';
    ws.on('message', (d) => (first ||= d.toString()));
    ws.on('close', (code) => resolve({ code, first }));
  });
  for (const q of ['sample_rate=44100', 'language=en', 'model=asr-en-ar&language=fr']) {
    const r = await closeOf(open(q));
    assert.equal(r.code, 4002, q);
    assert.equal(JSON.parse(r.first).type, 'Error');
  }
  const ws = open('model=asr-en-ar&hotwords=مدى,سداد');
  const frames: any[] = [];
  ws.on('message', (d) => frames.push(JSON.parse(d.toString())));
  await new Promise((r) => ws.once('open', r));
  // Waited for on the frames themselves: a fixed pause let a loaded machine's due timer run
  // before the socket with the answer was read.
  await until(() => frames.length > 0, 'the Metadata frame');
  ws.send(JSON.stringify({ type: 'Finalize' }));
  ws.send('not json');
  await until(() => frames.filter((f) => f.type === 'Error').length >= 2, 'the two Error frames');
  assert.deepEqual(frames[0].dropped_hotwords, ['مدى', 'سداد']);
  assert.ok(frames.some((f) => f.type === 'Error' && f.code === 4002 && f.recoverable === true));
  assert.equal(ws.readyState, WebSocket.OPEN);
  ws.send(JSON.stringify({ type: 'CloseStream' }));
  const code = await new Promise((r) => ws.on('close', r));
  assert.equal(code, 1000);
});

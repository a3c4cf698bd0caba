/**
 * Keeps the benches from rotting: the fake service answers on each of its endpoints with the
 * delay it held, and one short latency run through `npm run bench`'s dispatcher ends with its
 * JSON line. No timing is asserted (this machine is shared); only shapes and that holds are
 * reported.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { spawnFakeService, type FakeServiceProcess } from '../../bench/fake-service.ts';
import { until } from '../helpers/deadline.ts';
import { execOk } from '../helpers/processes.ts';
import { benchRunArgs } from '../helpers/bench.ts';
import { firstSpeechAt } from '../../bench/latency.ts';

let fake: FakeServiceProcess;
before(async () => {
  fake = await spawnFakeService({ sttMs: 30, llmMs: 30, ttsMs: 30 });
});
after(async () => fake.close());

const messages = (ws: WebSocket) => {
  const got: Record<string, unknown>[] = [];
  ws.on('message', (d, binary) => !binary && got.push(JSON.parse(d.toString())));
  return got;
};

test('the fake /listen finalizes after speech then silence, reporting its hold', async () => {
  const ws = new WebSocket(`${fake.baseUrl.replace('http', 'ws')}/listen?sample_rate=8000&hotwords=t1`);
  const got = messages(ws);
  await new Promise((r) => ws.once('open', r));
  const loud = new Int16Array(1600).map((_, i) => (i % 2 ? 3000 : -3000));
  ws.send(loud);
  ws.send(new Int16Array(160));
  await until(() => got.some((m) => m.type === 'UtteranceEnd'), 'UtteranceEnd');
  const final = got.find((m) => m.type === 'Results' && m.is_final)!;
  assert.ok(got.some((m) => m.type === 'SpeechStarted'));
  assert.equal(final.speech_final, true);
  assert.ok((final.held_ms as number) >= 25);
  ws.close();
  const holds = await fake.holds();
  assert.deepEqual(holds.t1!.map((h) => h.kind), ['speech', 'stt']);
});

test('the fake /listen hears speech 20 ms at a time: quiet audio sent with the first speech frame in one message does not hide it', async () => {
  // hiwar's uplink sends the start of speech at once with the quiet audio gathered before it:
  // 60 ms of silence and 20 ms of speech in one message (at 8 kHz, 160 samples a frame).
  const ws = new WebSocket(`${fake.baseUrl.replace('http', 'ws')}/listen?sample_rate=8000&hotwords=edge20`);
  const got = messages(ws);
  await new Promise((r) => ws.once('open', r));
  const msg = new Int16Array(640);
  for (let i = 480; i < 640; i++) msg[i] = i % 2 ? 3000 : -3000;
  ws.send(msg);
  await until(() => got.some((m) => m.type === 'SpeechStarted'), 'SpeechStarted');
  const started = got.find((m) => m.type === 'SpeechStarted')!;
  assert.equal(started.ts, 0.06, 'speech starts at its own frame, 60 ms into the message');
  // The first quiet frame after it, in the same message as more speech, ends it: the final follows.
  const tail = new Int16Array(480);
  for (let i = 0; i < 160; i++) tail[i] = i % 2 ? 3000 : -3000;
  ws.send(tail);
  await until(() => got.some((m) => m.type === 'Results' && m.is_final), 'a final Results');
  const final = got.find((m) => m.type === 'Results' && m.is_final)! as { words: { end: number }[] };
  assert.equal(final.words.at(-1)!.end, 0.1, 'the speech ended after its second frame (0.08–0.10 s)');
  ws.close();
  const holds = await fake.holds();
  assert.deepEqual(holds.edge20!.map((h) => h.kind), ['speech', 'stt']);
});

test('the fake TTS socket, REST TTS and chat report their holds', async () => {
  const ws = new WebSocket(`${fake.baseUrl.replace('http', 'ws')}/websocket/text-to-speech`);
  const got = messages(ws);
  await new Promise((r) => ws.once('open', r));
  ws.send(JSON.stringify({ type: 'initConnection', voice_id: 't2', output_format: 'pcm_8000' }));
  ws.send(JSON.stringify({ type: 'text', text: 'مرحبا', flush: true }));
  await until(() => got.some((m) => m.isFinal === true), 'an isFinal frame');
  const firstAudio = got.find((m) => typeof m.audio === 'string' && m.audio)!;
  assert.ok((firstAudio.held_ms as number) >= 25);
  ws.close();

  const rest = await fetch(`${fake.baseUrl}/text-to-speech/tts-v1`, { method: 'POST', body: JSON.stringify({ text: 'مرحبا', voice_id: 't2', sample_rate: 8000 }) });
  assert.ok(Number(rest.headers.get('x-held-ms')) >= 25);
  assert.ok((await rest.arrayBuffer()).byteLength > 0);

  const chat = await fetch(`${fake.llmBaseUrl}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 't2', stream: true, messages: [] }) });
  const text = await chat.text();
  assert.match(text, /"held_ms":\d/);
  assert.match(text, /data: \[DONE\]/);
  assert.deepEqual((await fake.holds()).t2!.map((h) => h.kind), ['tts', 'tts', 'llm']);
});

test('npm run bench -- latency ends with its JSON figures, held delays included', async () => {
  const { stdout } = await execOk(process.execPath, benchRunArgs('latency', '--quick', '2', '3', 'spread=0.4'), { timeoutMs: 240_000 });
  const last = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, any>;
  assert.equal(last.bench, 'latency');
  assert.ok(last.turns >= 1, 'at least one measured turn');
  for (const k of ['voiceToVoice', 'added']) for (const p of ['p50', 'p95', 'p99']) assert.equal(typeof last[k][p], 'number');
  for (const k of ['stt', 'llm', 'tts'] as const) assert.ok(last.held[k].p50 >= last.delays[`${k}Ms`] - 1, `${k} hold reported`);
  assert.deepEqual(Object.keys(last.stages).sort(), ['decision', 'llm', 'other', 'playout', 'stt', 'tts']);
  assert.match(stdout, /framework-added/);
  // the process warmed first (--quick: one unmeasured turn of each call), and said so
  assert.deepEqual({ calls: last.warmup.calls, turns: last.warmup.turns }, { calls: 2, turns: 1 });
  assert.match(stdout, /after 1 unmeasured turns of 2 calls/);
  // the calls' first speech spread (spread=), said with the figures
  assert.equal(last.spreadS, 0.4);
  assert.match(stdout, /first speech spread over 0\.4 s/);
  // what held the loop: collections per kind and the slowest turns' spans
  for (const k of ['all', 'scavenge', 'markCompact']) assert.equal(typeof last.gc[k].n, 'number');
  assert.ok(last.slowest.length >= 1 && last.slowest.length <= last.turns);
  assert.equal(typeof last.slowest[0].worst.name, 'string');
  assert.ok(last.slowest[0].addedMs >= last.added.p50 - 0.1, 'the slowest turn is at least the median');
  // where the slowest turns' time went, span by span, and the loop's delay over the run
  assert.ok(Object.keys(last.spansMean.slowest5pc).length >= 1);
  for (const p of ['p50', 'p99', 'max']) assert.equal(typeof last.loopDelayMs[p], 'number');
  // the CPUs hiwar's process and the fake had (pin=auto by default, bench/pin.ts), and the fake's own wait
  assert.match(last.conditions.affinity.server, /^[\d,-]+$/);
  assert.match(last.conditions.affinity.rig, /^[\d,-]+$/);
  assert.equal(last.conditions.affinity.server === last.conditions.affinity.rig, !last.conditions.affinity.pinned);
  assert.equal(typeof last.conditions.rig.starved, 'boolean');
  assert.match(stdout, /hiwar on CPU [\d,-]+, rig on CPU [\d,-]+/);
  // the event loop thread's own run-queue wait beside the process's
  assert.equal(typeof last.conditions.loopWaitMs, 'number');
  assert.match(stdout, /the event loop's thread \d+ ms/);
});

test("the latency bench's spread= puts the calls' first speech evenly over that many seconds", () => {
  assert.deepEqual([0, 1, 2, 3].map((i) => firstSpeechAt(i, 4, 2)), [300, 800, 1300, 1800]);
  assert.deepEqual([0, 1].map((i) => firstSpeechAt(i, 2, 0)), [300, 300], 'spread=0: every call together');
  assert.equal(firstSpeechAt(0, 1, 5), 300, 'one call: nothing to spread');
});

test('npm run bench -- ws-frames measures both maskings and a negotiated permessage-deflate, and ws finds the native masking installed', async () => {
  const { stdout } = await execOk(process.execPath, benchRunArgs('ws-frames', '--quick', 'messages=500'), { timeoutMs: 240_000 });
  const last = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, any>;
  assert.equal(last.bench, 'ws-frames', 'its JSON line named, as every bench\'s is');
  // bufferutil is an optional dependency of the package: a plain install has it.
  assert.equal(last.bufferutil, true);
  for (const k of ['nativeUs', 'jsUs', 'deflateUs']) assert.ok(last[k] > 0, `${k} measured`);
  assert.match(stdout, /JavaScript masking \(WS_NO_BUFFER_UTIL=1\)/);
  assert.match(stdout, /permessage-deflate offered and accepted/);
  assert.match(stdout, /load \d/);
});

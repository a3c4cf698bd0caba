import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { filter, firstValueFrom, toArray } from '../helpers/rx.ts';
import type { WebSocket } from 'ws';
import { AuthenticationError, ServiceClient, ValidationError, type TtsEvent } from '../../src/service/index.ts';
import { until } from '../helpers/deadline.ts';
import { KEY, startFake, type Fake, type Recorded } from '../helpers/fake-service.ts';

const b64 = (n: number, v: number) => Buffer.from(new Int16Array(n).fill(v).buffer).toString('base64');

/**
 * A TTS socket peer: buffers text, voices it on flush as two audio frames (sample value =
 * length of the text) then an isFinal and a WebSocket ping; `clear` empties the buffer but
 * frames already queued still arrive, as on a real network.
 */
function ttsPeer(ws: WebSocket, req: Recorded): void {
  let buffer = '';
  let ready = false;
  const send = (o: object) => ws.send(JSON.stringify(o));
  const headerKey = req.headers['x-api-key'] ?? req.query.get('x-api-key') ?? String(req.headers.authorization ?? '').replace(/^Bearer /, '');
  ws.on('pong', () => pongs++);
  ws.on('message', (data) => {
    const msg = JSON.parse(data.toString());
    if (msg.type === 'initConnection') {
      if ((msg.x_api_key ?? headerKey) !== KEY) return send({ type: 'error', errorCode: 40101, errorMessage: 'Invalid API key' });
      ready = true;
      return send({ type: 'connectionInitialized' });
    }
    if (!ready) return send({ type: 'error', errorCode: 40001, errorMessage: 'initConnection required first' });
    if (msg.type === 'text') {
      buffer += msg.text;
      if (buffer === 'boom') return send({ type: 'error', message: 'generation failed' });
      if (buffer === 'garbage') return ws.send('%%%');
      if (msg.flush) {
        const v = buffer.length;
        buffer = '';
        send({ audio: b64(240, v), sampleRate: 24000, isFinal: false });
        send({ audio: b64(240, v), sampleRate: 24000, isFinal: false });
        send({ audio: '', sampleRate: 24000, isFinal: true });
        // A WebSocket ping after them: its pong says the client has read the frames before it.
        ws.ping();
      }
    }
    if (msg.type === 'clear') buffer = '';
    if (msg.type === 'closeConnection') ws.close(1000);
  });
}

/** Pongs the peers got back (see the ping after each generation). */
let pongs = 0;
let fake: Fake;
before(async () => {
  fake = await startFake({}, { '/websocket/text-to-speech': ttsPeer });
});
after(() => fake.close());

test('init handshake, text chunks, flush → audio then final, closeConnection', async () => {
  const tts = await fake.client().openTts({ voice_id: 'ar-najdi-male-2', output_format: 'pcm_16000', voice_settings: { speed: 1.1, stability: 0.5 } });
  assert.equal(tts.sampleRate, 16000);
  const events = firstValueFrom(tts.events$.pipe(toArray()));
  tts.sendText('مرحبا ');
  tts.sendText('بكم', { flush: true });
  await tts.finalReceived();
  await tts.close();
  const got = await events;
  assert.deepEqual(got.map((e) => e.type), ['audio', 'audio', 'final', 'generationEnd', 'closed']);
  const first = got[0] as Extract<TtsEvent, { type: 'audio' }>;
  assert.equal(first.pcm.length, 240);
  assert.equal(first.pcm[0], 'مرحبا بكم'.length);
});

test('every auth form of the spec: header, query x-api-key, bearer, x_api_key in init', async () => {
  for (const auth of ['header', 'query', 'bearer', 'message'] as const) {
    const tts = await fake.client().openTts({ voice_id: 'v', auth });
    const rec = fake.calls.at(-1)!;
    if (auth === 'query') assert.equal(rec.query.get('x-api-key'), KEY);
    else assert.equal(rec.query.get('x-api-key'), null);
    if (auth === 'bearer') assert.equal(rec.headers.authorization, `Bearer ${KEY}`);
    await tts.close();
  }
  await assert.rejects(fake.client().openTts({ voice_id: 'v', auth: 'token' }), /not accepted/);
});

test('a bad key answers an error message 40101: connect rejects with AuthenticationError', async () => {
  await assert.rejects(new ServiceClient({ apiKey: 'bad-key-0', baseUrl: fake.baseUrl }).openTts({ voice_id: 'v' }), (e: unknown) => {
    assert.ok(e instanceof AuthenticationError);
    assert.equal(e.errorCode, 40101);
    return true;
  });
});

test('clear drops audio of the cleared text still in flight, then new text plays', async () => {
  const tts = await fake.client().openTts({ voice_id: 'v' });
  const audio: number[] = [];
  tts.events$.pipe(filter((e) => e.type === 'audio')).subscribe((e) => audio.push((e as Extract<TtsEvent, { type: 'audio' }>).pcm[0]!));
  const pongsBefore = pongs;
  tts.sendText('نص قديم', { flush: true }); // audio for this is on its way…
  tts.clear(); // …and must not reach the caller
  // The client has read it all (a fixed 100 ms was not enough on a loaded machine: the new text
  // below went out first, and the old audio then counted as the new text's).
  await until(() => pongs > pongsBefore, 'the pong after the cleared audio');
  assert.deepEqual(audio, []);
  tts.sendText('جديد', { flush: true });
  await tts.finalReceived();
  assert.deepEqual(audio, [4, 4]);
  await tts.close();
});

test('errors in both shapes and malformed frames are events; the socket survives', async () => {
  const tts = await fake.client().openTts({ voice_id: 'v' });
  const err = firstValueFrom(tts.events$.pipe(filter((e) => e.type === 'error')));
  tts.sendText('boom');
  const e = await err;
  assert.ok(e.type === 'error' && /generation failed/.test(e.error.errorMessage));
  tts.clear();
  const bad = firstValueFrom(tts.events$.pipe(filter((x) => x.type === 'malformed')));
  tts.sendText('garbage');
  assert.ok(await bad);
  assert.equal(tts.isOpen, true);
  await tts.close();
  assert.throws(() => tts.sendText('بعد الإغلاق'), /closed/);
});

test('options are validated before connecting', async () => {
  const c = fake.client();
  await assert.rejects(c.openTts({ voice_id: '' }), /voice_id is required/);
  await assert.rejects(c.openTts({ voice_id: 'v', output_format: 'pcm_48000' as never }), ValidationError);
  await assert.rejects(c.openTts({ voice_id: 'v', voice_settings: { speed: 2 } }), /speed must be a number between 0.7 and 1.2/);
});

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { firstValueFrom, filter, toArray } from '../helpers/rx.ts';
import type { WebSocket } from 'ws';
import { AuthenticationError, ServiceClient, ValidationError, type ListenEvent } from '../../src/service/index.ts';
import { KEY, startFake, type Fake, type Recorded } from '../helpers/fake-service.ts';

/** A /listen peer that follows the protocol facts: one turn per 3200 bytes of audio. */
function listenPeer(ws: WebSocket, req: Recorded): void {
  const key = req.headers['x-api-key'] ?? req.query.get('api_key') ?? req.query.get('x-api-key');
  const send = (o: object) => ws.send(JSON.stringify(o));
  if (key !== KEY) {
    send({ type: 'Error', code: 1008, message: 'authentication required', recoverable: false });
    return ws.close(1008, 'authentication required');
  }
  if (req.query.get('sample_rate') === '44100') {
    send({ type: 'Error', code: 4002, message: 'unsupported sample_rate', recoverable: false });
    return ws.close(4002, 'unsupported sample_rate');
  }
  send({ type: 'Metadata', session_id: 's1', correlation_id: null, model: req.query.get('model') ?? 'asr', protocol_version: 1, channels: 1, sample_rate: Number(req.query.get('sample_rate')), dropped_hotwords: [] });
  let bytes = 0;
  ws.on('message', (data, binary) => {
    if (binary) {
      bytes += (data as Buffer).length;
      if (bytes === (data as Buffer).length) send({ type: 'SpeechStarted', channel: 0, ts: 0.25 });
      send({ type: 'Results', channel: 0, turn_id: 0, transcript: 'مرحبا', words: [{ word: 'مرحبا', start: 0.04, end: 0.4 }], is_final: false, speech_final: false, language: 'ar', confidence: null });
      return;
    }
    const msg = JSON.parse(data.toString());
    if (msg.type === 'KeepAlive') send({ type: 'Echo', saw: 'KeepAlive' });
    if (msg.type === 'Garbage') ws.send('{not json');
    if (msg.type === 'CloseStream' && req.query.get('model') === 'backlog') {
      // A server working through audio sent ahead of real time: results every 100 ms for 1.5 s.
      let left = 15;
      const t = setInterval(() => {
        if (--left > 0) return send({ type: 'Results', channel: 0, turn_id: 0, transcript: 'مرحبا', words: [], is_final: true, speech_final: true, language: 'ar', confidence: 0.9 });
        clearInterval(t);
        send({ type: 'Metadata', session_id: 's1', audio_seconds_billed: bytes / 32000, turn_count: 14 });
        ws.close(1000);
      }, 100);
      return;
    }
    if (msg.type === 'CloseStream' && req.query.get('model') === 'mute') return; // never answers
    if (msg.type === 'CloseStream') {
      send({ type: 'Results', channel: 0, turn_id: 0, transcript: ' مرحبا كيف حالك ', words: [], is_final: true, speech_final: true, language: 'ar', confidence: 0.91 });
      send({ type: 'UtteranceEnd', channel: 0, turn_id: 0, last_word_end: 1.28 });
      send({ type: 'Gender', channel: 0, turn_id: 0, label: 'male', score: 0.99 });
      send({ type: 'Sentiment', channel: 0, turn_id: 0, label: 'neutral', score: 0.64 });
      send({ type: 'Metadata', session_id: 's1', audio_seconds_billed: bytes / 32000, turn_count: 1 });
      ws.close(1000);
    }
    if (msg.type === 'Wallet') {
      send({ type: 'Error', code: 1008, message: 'insufficient wallet balance', recoverable: false });
      ws.close(1008);
    }
    if (msg.type === 'Idle') ws.close(1011, 'idle timeout');
  });
}

let fake: Fake;
before(async () => {
  fake = await startFake({}, { '/listen': listenPeer });
});
after(() => fake.close());

test('open → audio → CloseStream: events in protocol order, final trimmed, closing Metadata returned', async () => {
  // Two 100 ms messages (quiet is otherwise gathered to 200 ms): the peer answers each with an interim.
  const sock = await fake.client().openListen({ sample_rate: 16000, model: 'asr', hotwords: ['مدى', 'سداد'], uplinkQuietFrameMs: 100 });
  const all = sock.events$.pipe(toArray()).toPromise();
  const meta = await sock.opened();
  assert.equal(meta.sample_rate, 16000);
  sock.sendAudio(new Int16Array(1600));
  sock.sendAudio(new Int16Array(1600));
  const closing = await sock.finish();
  assert.equal(closing?.audio_seconds_billed, 0.2);
  const events = (await all)!;
  assert.deepEqual(
    events.map((e) => e.type),
    ['Metadata', 'SpeechStarted', 'Results', 'Results', 'Results', 'UtteranceEnd', 'Gender', 'Sentiment', 'Metadata', 'Closed'],
  );
  const final = events.find((e) => e.type === 'Results' && e.is_final);
  assert.equal(final?.type === 'Results' && final.transcript, 'مرحبا كيف حالك');
  const closed = events.at(-1);
  assert.equal(closed?.type === 'Closed' && closed.close.kind, 'normal');
  const rec = fake.calls.filter((c) => c.path === '/listen').at(-1)!;
  assert.equal(rec.query.get('encoding'), 'linear16');
  assert.equal(rec.query.get('hotwords'), 'مدى,سداد');
  assert.equal(rec.query.get('api_key'), null, 'header auth keeps the key out of the URL');
});

test('finish() waits while the server is still sending its results, and gives up on one that sends nothing', async () => {
  const busy = await fake.client().openListen({ model: 'backlog', liveness: { eventTimeoutMs: 0, pingIntervalMs: 0 } });
  await busy.opened();
  busy.sendAudio(new Int16Array(1600));
  // The server's results take 1.5 s in all, a message every 100 ms: never a second without one.
  const closing = await busy.finish(1000);
  assert.equal(closing?.turn_count, 14);
  const mute = await fake.client().openListen({ model: 'mute', liveness: { eventTimeoutMs: 0, pingIntervalMs: 0 } });
  await mute.opened();
  const closed = firstValueFrom(mute.events$.pipe(filter((e) => e.type === 'Closed')));
  assert.equal(await mute.finish(300), undefined);
  const c = await closed;
  assert.ok(c.type === 'Closed' && c.close.kind === 'dropped', JSON.stringify(c));
});

test('query auth puts the key in api_key', async () => {
  const sock = await fake.client().openListen({ auth: 'query' });
  await sock.opened();
  assert.equal(fake.calls.at(-1)!.query.get('api_key'), KEY);
  sock.close();
});

test('bad key: Error event then close 1008, classified unauthorized', async () => {
  const sock = await new ServiceClient({ apiKey: 'nope-nope', baseUrl: fake.baseUrl }).openListen();
  const events: ListenEvent[] = await firstValueFrom(sock.events$.pipe(toArray()));
  assert.equal(events[0]?.type, 'Error');
  const last = events.at(-1)!;
  assert.ok(last.type === 'Closed' && last.close.code === 1008 && last.close.kind === 'unauthorized');
  // The close says the key was refused and where it is set, never the key.
  assert.match(last.close.hint ?? '', /refused the API key: set the right one in HIWAR_API_KEY \(or ServiceClient's apiKey option\), and check HIWAR_REGION/);
  assert.doesNotMatch(JSON.stringify(events), /nope-nope/);
});

test('a 401 at the handshake is an AuthenticationError', async () => {
  const { createServer } = await import('node:http');
  const srv = createServer((_q, r) => {
    r.writeHead(401, { 'content-type': 'application/json' });
    r.end('{"errorCode":40101,"errorMessage":"Invalid API key"}');
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  try {
    await assert.rejects(new ServiceClient({ apiKey: KEY, baseUrl: `http://127.0.0.1:${port}/api/v1` }).openListen(), (e: unknown) => {
      assert.ok(e instanceof AuthenticationError);
      assert.equal(e.errorCode, 40101);
      assert.ok(!e.message.includes(KEY));
      return true;
    });
  } finally {
    srv.close();
  }
});

test('sample rate, language and endpointing are validated before connecting; model ids are not', async () => {
  const c = fake.client();
  const n = fake.calls.length;
  await assert.rejects(c.openListen({ sample_rate: 44100 as never }), /sample_rate must be 8000 or 16000/);
  await assert.rejects(c.openListen({ model: '' }), ValidationError);
  await assert.rejects(c.openListen({ model: 'asr', language: 'en' }), /language must be one of ar/);
  await assert.rejects(c.openListen({ model: 'munsit', language: 'en' }), /language must be one of ar/);
  await assert.rejects(c.openListen({ endpointing: 50 }), /endpointing/);
  assert.equal(fake.calls.length, n);
  // Any other id goes to the service as given: the vendor's names, and ids hiwar has never seen.
  for (const [model, language] of [['munsit-en-ar', 'auto'], ['asr-en-ar', 'en'], ['munsit-v3-beta', 'fr']] as const) {
    const s = await c.openListen({ model, language: language as never });
    assert.equal(fake.calls.at(-1)!.query.get('model'), model);
    assert.equal(fake.calls.at(-1)!.query.get('language'), language);
    s.close();
  }
  // With no model, the client's configured default is sent (the vendor's id unless configured).
  const d = await fake.client({ modelIds: 'vendor' }).openListen();
  assert.equal(fake.calls.at(-1)!.query.get('model'), 'munsit');
  d.close();
  const sp = await fake.client({ modelIds: 'spec' }).openListen();
  assert.equal(fake.calls.at(-1)!.query.get('model'), 'asr');
  sp.close();
  const odd = await c.openListen();
  assert.throws(() => odd.sendAudio(new Uint8Array(3)), /whole PCM16 samples/);
  odd.close();
});

test('KeepAlive goes out after the configured silence', async () => {
  const sock = await fake.client().openListen({ keepAliveMs: 50 });
  const echo = await firstValueFrom(sock.events$.pipe(filter((e) => e.type === 'Malformed')));
  assert.match(echo.type === 'Malformed' ? echo.raw : '', /KeepAlive/);
  sock.close();
});

test('a malformed frame is an event, not a crash; the socket keeps working', async () => {
  const sock = await fake.client().openListen();
  await sock.opened();
  (sock as unknown as { ws: WebSocket }).ws.send(JSON.stringify({ type: 'Garbage' }));
  const bad = await firstValueFrom(sock.events$.pipe(filter((e) => e.type === 'Malformed')));
  assert.ok(bad);
  // A whole uplink message's worth (the socket gathers 100 ms before it writes).
  sock.sendAudio(new Int16Array(3200));
  const r = await firstValueFrom(sock.events$.pipe(filter((e) => e.type === 'Results')));
  assert.ok(r);
  sock.close();
});

test('close codes: wallet 1008 and idle 1011 are told apart', async () => {
  for (const [msg, kind, retryable] of [['Wallet', 'insufficient_balance', false], ['Idle', 'server_error', true]] as const) {
    const sock = await fake.client().openListen();
    await sock.opened();
    (sock as unknown as { ws: WebSocket }).ws.send(JSON.stringify({ type: msg }));
    const closed = await firstValueFrom(sock.events$.pipe(filter((e) => e.type === 'Closed')));
    assert.ok(closed.type === 'Closed');
    assert.equal(closed.close.kind, kind);
    assert.equal(closed.close.retryable, retryable);
  }
});

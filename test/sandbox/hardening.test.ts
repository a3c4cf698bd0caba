import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { encodeWav } from '../../src/audio/wav.ts';
import { silence } from '../../src/audio/pcm.ts';
import { raw, runSandbox, type Running } from '../helpers/sandbox.ts';
import { parseAnswer, rawHttp } from '../helpers/raw-http.ts';

let sb: Running;
let port: number;
before(async () => {
  sb = await runSandbox({
    keys: [{ key: 'sk-hard-main-0001', credits: 1e9, concurrency: 16 }],
    limits: { maxSynthesisSeconds: 60 },
  });
  port = Number(new URL(sb.sandbox.url).port);
});
after(() => sb.close());

const KEY = 'sk-hard-main-0001';

async function stillUp(): Promise<void> {
  const r = await raw(`${sb.sandbox.url}/models`, KEY);
  assert.equal(r.status, 200);
}

function envelope(body: any): void {
  assert.equal(typeof body, 'object', `not JSON: ${body}`);
  assert.ok(body.errorCode !== undefined && typeof body.errorMessage === 'string', JSON.stringify(body));
}

/** Messages of each socket in arrival order, so none is missed between two awaits. */

type Waiter = { resolve: (m: any) => void; reject: (e: Error) => void };
const inbox = new WeakMap<WebSocket, { queue: any[]; waiting: Waiter[]; closed?: string }>();

const open = (path: string, headers: Record<string, string> = { 'x-api-key': KEY }) =>
  new Promise<WebSocket>((resolve, reject) => {
    const ws = new WebSocket(`${sb.sandbox.wsUrl}${path}`, { headers });
    const box = { queue: [] as any[], waiting: [] as Waiter[], closed: undefined as string | undefined };
    inbox.set(ws, box);
    ws.on('message', (d) => {
      const m = JSON.parse(d.toString());
      const w = box.waiting.shift();
      if (w) w.resolve(m);
      else box.queue.push(m);
    });
    // A socket that closes while a test waits for its next message fails that test, not hangs it.
    ws.on('close', (code, reason) => {
      box.closed = `socket closed (${code} ${reason.toString()}) before the next message`;
      for (const w of box.waiting.splice(0)) w.reject(new Error(box.closed));
    });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });

const nextMessage = (ws: WebSocket) =>
  new Promise<any>((resolve, reject) => {
    const box = inbox.get(ws)!;
    if (box.queue.length) resolve(box.queue.shift());
    else if (box.closed) reject(new Error(box.closed));
    else box.waiting.push({ resolve, reject });
  });

const closed = (ws: WebSocket) => new Promise<[number, string]>((resolve) => ws.once('close', (c, r) => resolve([c, r.toString()])));

test('GET // and a Host header that is not a host answer 400 in the envelope; the process stays up', async () => {
  for (const req of [
    'GET // HTTP/1.1\r\nHost: localhost\r\n\r\n',
    'GET /api/v1/models HTTP/1.1\r\nHost: exa mple:99999\r\nx-api-key: sk-hard-main-0001\r\n\r\n',
    'GET //x/../ HTTP/1.1\r\nHost: [::1\r\n\r\n',
    'GET /api/v1/voices/%E0%A4%A HTTP/1.1\r\nHost: localhost\r\nx-api-key: sk-hard-main-0001\r\n\r\n',
  ]) {
    const answer = parseAnswer(await rawHttp(port, req));
    assert.ok(answer.status >= 200 && answer.status < 500, `${req.split('\r\n')[0]} → ${answer.status}`);
    if (answer.status >= 400) envelope(answer.body);
  }
  // The URL handed out with an odd Host header is built from the socket instead.
  const voices = parseAnswer(await rawHttp(port, `GET /api/v1/voices HTTP/1.1\r\nHost: a b\r\nx-api-key: ${KEY}\r\n\r\n`));
  assert.equal(voices.status, 200);
  assert.match(voices.body[0].sample_url, /^http:\/\/127\.0\.0\.1:\d+\/files\//);
  await stillUp();
});

test('WebSocket upgrades to // or with a bad Host header are refused, not fatal', async () => {
  const upgrade = (path: string, host: string) =>
    `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n`;
  const a = parseAnswer(await rawHttp(port, upgrade('//', 'localhost')));
  assert.equal(a.status, 400);
  envelope(a.body);
  const b = parseAnswer(await rawHttp(port, upgrade('/api/v1/nope', 'x y')));
  assert.equal(b.status, 404);
  envelope(b.body);
  await stillUp();
});

test('/listen: the text frame null (and other non-objects) is a recoverable Error, the stream goes on', async () => {
  const ws = await open('/listen?sample_rate=16000');
  assert.equal((await nextMessage(ws)).type, 'Metadata');
  for (const frame of ['null', '1', '[]', '"x"', 'true']) {
    ws.send(frame);
    const m = await nextMessage(ws);
    assert.equal(m.type, 'Error');
    assert.equal(m.recoverable, true);
  }
  ws.send(JSON.stringify({ type: 'KeepAlive' }));
  ws.send(JSON.stringify({ type: 'CloseStream' }));
  const [code] = await closed(ws);
  assert.equal(code, 1000);
  await stillUp();
});

const wavHeader = (channels: number, rate: number): number[] => {
  const wav = Buffer.from(encodeWav(silence(0.2, 16000), 16000));
  wav.writeUInt16LE(channels, 22);
  wav.writeUInt32LE(rate, 24);
  return [...wav];
};

test('legacy socket: null frames and WAV headers with 0 channels or rates 0, 1, 4e9 answer transcription_error', async () => {
  for (const [channels, rate] of [[0, 16000], [1, 0], [1, 1], [1, 4e9], [65535, 16000]] as const) {
    const ws = await open('/websocket/speech-to-text');
    ws.send('null');
    assert.equal((await nextMessage(ws)).event, 'transcription_error');
    ws.send(JSON.stringify({ event: 'audio', data: { audioBuffer: wavHeader(channels, rate) } }));
    const m = await nextMessage(ws);
    assert.equal(m.event, 'transcription_error', `${channels} ch ${rate} Hz`);
    ws.send(JSON.stringify({ event: 'end_of_stream' }));
    // Nothing was heard: no transcription is news (none is sent), and `finalized` closes the stream empty.
    const end = await nextMessage(ws);
    assert.equal(end.event, 'finalized');
    assert.equal(end.data, '');
    ws.close();
    await closed(ws);
  }
  await stillUp();
});

test('synthesis: 500 ten-second break tags are refused with 400 before any audio is made', async () => {
  const text = '<break time="10s"/>'.repeat(500);
  for (const path of ['tts-v1-preview', 'tts-v1.5/with-timestamps']) {
    const r = await raw(`${sb.sandbox.url}/text-to-speech/${path}`, KEY, {
      method: 'POST',
      json: { voice_id: 'ar-najdi-male-2', text: `مرحبا ${text}`, streaming: true },
    });
    assert.equal(r.status, 400);
    envelope(r.body);
    assert.match(r.body.errorMessage, /at most 60 s of audio/);
  }
  // Found by the fuzz test: a NUL inside a word reached espeak-ng's arguments (500).
  const nul = await raw(`${sb.sandbox.url}/text-to-speech/tts-v1-preview`, KEY, {
    method: 'POST',
    json: { voice_id: 'ar-najdi-male-2', text: 'مرحبا true\u0000\u0000x بكم' },
  });
  assert.equal(nul.status, 200);
  await stillUp();
});

test('TTS socket: 100 KB of text in one message answers an error event; the socket stays usable', async () => {
  const ws = await open('/websocket/text-to-speech');
  ws.send(JSON.stringify({ type: 'initConnection', voice_id: 'ar-najdi-male-2', output_format: 'pcm_16000' }));
  assert.equal((await nextMessage(ws)).type, 'connectionInitialized');
  ws.send(JSON.stringify({ type: 'text', text: 'كلمة '.repeat(20_000), flush: true }));
  const err = await nextMessage(ws);
  assert.equal(err.type, 'error');
  assert.equal(err.errorCode, 40002);
  ws.send(JSON.stringify({ type: 'text', text: 'مرحبا', flush: true }));
  const audio = await nextMessage(ws);
  assert.ok(typeof audio.audio === 'string' && audio.audio.length > 0);
  ws.close();
});

test('timeouts: a stalled body answers 408, an unauthenticated TTS socket and an idle legacy socket are closed', async (t) => {
  // Only here: limits this short for every test closed the other tests' sockets whenever a
  // loaded machine stalled the event loop that long between two messages.
  const limits = sb.sandbox.state.limits;
  const saved = { ...limits };
  Object.assign(limits, { bodyIdleMs: 400, ttsInitMs: 400, legacyIdleMs: 400 });
  t.after(() => Object.assign(limits, saved));
  const stalled = parseAnswer(
    await rawHttp(port, `POST /api/v1/text-to-speech/tts-v1-preview HTTP/1.1\r\nHost: localhost\r\nx-api-key: ${KEY}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"voice_id":`),
  );
  assert.equal(stalled.status, 408);
  envelope(stalled.body);
  const upload = parseAnswer(
    await rawHttp(port, `POST /api/v1/audio/transcribe HTTP/1.1\r\nHost: localhost\r\nx-api-key: ${KEY}\r\ncontent-type: multipart/form-data; boundary=b\r\ncontent-length: 100000\r\n\r\n--b\r\ncontent-disposition: form-data; name="file"; filename="a.wav"\r\n\r\nRIFF`),
  );
  assert.equal(upload.status, 408);

  const tts = await open('/websocket/text-to-speech');
  const [ttsCode, ttsReason] = await closed(tts);
  assert.equal(ttsCode, 1008);
  assert.match(ttsReason, /initConnection/);

  const legacy = await open('/websocket/speech-to-text');
  const [legacyCode] = await closed(legacy);
  assert.equal(legacyCode, 1011);
  await stillUp();
});

test('/files/ needs the key or a signed URL; a tampered or expired signature is refused', async () => {
  const voices = await raw(`${sb.sandbox.url}/voices`, KEY);
  const url = new URL(voices.body[0].sample_url as string);
  assert.ok(url.searchParams.get('sig') && url.searchParams.get('expires'));
  assert.equal((await fetch(url)).status, 200);
  const bare = `${url.origin}${url.pathname}`;
  const none = await fetch(bare);
  assert.equal(none.status, 401);
  envelope(await none.json());
  assert.equal((await fetch(bare, { headers: { 'x-api-key': KEY } })).status, 200);
  assert.equal((await fetch(bare, { headers: { 'x-api-key': 'sk-wrong-key-000' } })).status, 401);
  const tampered = new URL(url);
  tampered.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
  assert.equal((await fetch(tampered)).status, 401);
  const other = new URL(url);
  other.pathname = other.pathname.replace(/[^/]+\.wav$/, 'ar-other.wav');
  assert.equal((await fetch(other)).status, 401);
  const name = url.pathname.replace(/^\/files\//, '');
  const old = sb.sandbox.state.signer.sign(`${url.origin}/files`, decodeURIComponent(name), Date.now() - 2 * 3600_000);
  const expired = await fetch(old);
  assert.equal(expired.status, 403);
  assert.match(((await expired.json()) as { errorMessage: string }).errorMessage, /expired/);
});

/**
 * Bounded, seeded fuzzing of every HTTP route and socket of the sandbox: a few thousand
 * generated requests and frames (same seed, same inputs) that must each get an answer in the
 * service's error envelope, with the process up and serving at the end. FUZZ_SEED and
 * FUZZ_ROUNDS override the defaults to explore further by hand.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import WebSocket from 'ws';
import { encodeWav } from '../../src/audio/wav.ts';
import { denoiseRoutes } from '../../src/sandbox/routes/denoise.ts';
import { sttRoutes, textRoutes } from '../../src/sandbox/routes/stt.ts';
import { ttsRoutes } from '../../src/sandbox/routes/tts.ts';
import { voiceRoutes } from '../../src/sandbox/routes/voices.ts';
import { raw, runSandbox, type Running } from '../helpers/sandbox.ts';
import { parseAnswer, rawHttp } from '../helpers/raw-http.ts';

const SEED = Number(process.env.FUZZ_SEED ?? 1107);
const HTTP_INPUTS = Number(process.env.FUZZ_ROUNDS ?? 1500);
const FRAMES_PER_SOCKET = 40;
const SOCKETS = 36;
const KEY = 'sk-fuzz-main-000001';

/** mulberry32: small, fast, and the same sequence for the same seed. */
function rng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  return { next, int, pick, chance: (p: number) => next() < p };
}
type Rng = ReturnType<typeof rng>;

const WORDS = ['voice_id', 'text', 'ar-najdi-male-2', 'مرحبا', 'tts-v1-preview', 'asr', 'speed', 'stability', 'sample_rate', 'model', 'language', 'type', 'initConnection', 'flush', 'event', 'audioBuffer', 'end_of_stream', 'KeepAlive', 'CloseStream', 'Finalize', '<break time="10s"/>', '../../etc/passwd', '%00', '\u0000', '\ud800', 'null'];

function value(r: Rng, depth = 0): unknown {
  switch (r.int(depth > 2 ? 6 : 9)) {
    case 0: return null;
    case 1: return r.pick([0, -1, 1, 1.5, 1e308, -1e308, 8000, 16000, 4e9, Number.MAX_SAFE_INTEGER]);
    case 2: return r.chance(0.5);
    case 3: return r.pick(WORDS);
    case 4: return r.pick(WORDS).repeat(1 + r.int(r.chance(0.05) ? 3000 : 4));
    case 5: return '';
    case 6: return Array.from({ length: r.int(5) }, () => value(r, depth + 1));
    default: {
      const o: Record<string, unknown> = {};
      for (let i = r.int(6); i > 0; i--) o[r.pick(WORDS)] = value(r, depth + 1);
      return o;
    }
  }
}

function bytes(r: Rng, n: number): Buffer {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = r.int(256);
  return b;
}

const tinyWav = Buffer.from(encodeWav(new Int16Array(1600), 16000));

function wavVariant(r: Rng): Buffer {
  const w = Buffer.from(tinyWav);
  if (r.chance(0.5)) w.writeUInt16LE(r.pick([0, 2, 65535]), 22);
  if (r.chance(0.5)) w.writeUInt32LE(r.pick([0, 1, 7, 4e9, 192001]), 24);
  if (r.chance(0.3)) w.writeUInt32LE(r.pick([0, 0xffffffff, 1]), 40);
  return r.chance(0.3) ? w.subarray(0, r.int(w.length)) : w;
}

/** Concrete paths of every route the sandbox serves, plus the odd ones around them. */
function routePaths(): { method: string; path: string }[] {
  const routes = [...voiceRoutes, ...ttsRoutes, ...sttRoutes, ...textRoutes, ...denoiseRoutes];
  return routes.map((route) => ({ method: route.method, path: route.pattern.source.replace(/^\^|\$$/g, '').replace(/\\\//g, '/') }));
}

async function multipart(r: Rng): Promise<{ body: Buffer; type: string }> {
  const form = new FormData();
  for (let i = r.int(7); i > 0; i--) {
    const name = r.pick(['file', 'audio', 'voice_file', 'reference_audio_file', 'text', 'model', 'model_id', 'similarity', 'speed', 'stability', 'name', 'diarize', 'return_turns', 'language']);
    if (r.chance(0.4)) form.append(name, new Blob([r.chance(0.5) ? wavVariant(r) : bytes(r, r.int(2000))]), r.pick(['a.wav', 'b.mp3', '../x', '']));
    else form.append(name, String(value(r)));
  }
  const req = new Request('http://x', { method: 'POST', body: form });
  let body = Buffer.from(await req.arrayBuffer());
  if (r.chance(0.2)) body = body.subarray(0, r.int(body.length));
  return { body, type: req.headers.get('content-type')! };
}

let sb: Running;
let port: number;
before(async () => {
  sb = await runSandbox({
    keys: [{ key: KEY, credits: 1e12, concurrency: 64 }],
    limits: { bodyIdleMs: 2000, ttsInitMs: 3000, legacyIdleMs: 3000, maxSynthesisSeconds: 30 },
    timing: { listenIdleMs: 3000 },
  });
  port = Number(new URL(sb.sandbox.url).port);
});
after(() => sb.close());

function assertEnvelope(status: number, body: unknown, what: string): void {
  assert.ok(status >= 200 && status < 600, `${what}: status ${status}`);
  assert.notEqual(status, 500, `${what}: internal error ${JSON.stringify(body)}`);
  if (status < 400) return;
  assert.ok(body && typeof body === 'object', `${what}: ${status} without a JSON body: ${String(body).slice(0, 200)}`);
  const b = body as Record<string, unknown>;
  const enveloped = (b.errorCode !== undefined && typeof b.errorMessage === 'string') || typeof b.message === 'string';
  assert.ok(enveloped, `${what}: ${status} ${JSON.stringify(b).slice(0, 200)}`);
  assert.ok(!JSON.stringify(b).includes(KEY), `${what}: the key is in the answer`);
}

async function pool<T>(items: T[], width: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await run(items[next++]!);
  }));
}

test(`HTTP: ${HTTP_INPUTS} seeded requests over every route answer in the envelope; the process stays up`, async () => {
  const r = rng(SEED);
  const paths = routePaths();
  const inputs = Array.from({ length: HTTP_INPUTS }, (_, i) => i);
  await pool(inputs, 6, async (i) => {
    const route = r.pick(paths);
    const segment = () => {
      try {
        return encodeURIComponent(String(value(r))).slice(0, 60) || 'x';
      } catch {
        return '%ED%A0%80'; // a lone surrogate, as a client could send it
      }
    };
    let path = route.path.replace(/\(\[\^\/\]\+\)/g, segment);
    if (r.chance(0.1)) path = r.pick(['/', '/files/', '/files/voices/x.wav', '/files/%E0%A4%A', '/api/v1', '/nope', path + '/extra', path.toUpperCase()]);
    const prefix = path.startsWith('/files') || path === '/' ? '' : r.pick(['/api/v1', '/api/v1', '/uae/api/v1']);
    const method = r.chance(0.85) ? route.method : r.pick(['GET', 'POST', 'PUT', 'DELETE', 'PATCH']);
    const key = r.pick([KEY, KEY, KEY, '', 'sk-wrong', KEY.toUpperCase()]);
    const headers: Record<string, string> = {};
    let body: Buffer | undefined;
    if (method !== 'GET') {
      const kind = r.int(4);
      if (kind === 0) {
        body = Buffer.from(JSON.stringify(value(r)));
        headers['content-type'] = 'application/json';
      } else if (kind === 1) {
        const m = await multipart(r);
        body = m.body;
        headers['content-type'] = r.chance(0.9) ? m.type : 'multipart/form-data';
      } else if (kind === 2) {
        body = bytes(r, r.int(3000));
        headers['content-type'] = r.pick(['application/json', 'multipart/form-data; boundary=zz', 'text/plain']);
      }
    }
    const what = `#${i} ${method} ${prefix}${path}`;
    if (r.chance(0.05)) {
      // What fetch would refuse to send: a broken Host header or request target.
      const target = r.pick(['//', `${prefix}${path}`, '/%', '/api/v1/../../x']);
      const text = await rawHttp(port, `${method} ${target} HTTP/1.1\r\nHost: ${r.pick(['a b', '[::1', '', 'x:99999'])}\r\nx-api-key: ${key}\r\nconnection: close\r\n\r\n`);
      const answer = parseAnswer(text);
      if (answer.status) assertEnvelope(answer.status, answer.body, what);
      return;
    }
    const res = await raw(`http://127.0.0.1:${port}${prefix}${path}`, key, { method, body, headers });
    if (res.status === 200 && /progress$/.test(path)) return;
    assertEnvelope(res.status, res.body, what);
  });
  const models = await raw(`${sb.sandbox.url}/models`, KEY);
  assert.equal(models.status, 200);
});

test(`sockets: ${SOCKETS} connections of ${FRAMES_PER_SOCKET} seeded frames each; errors are typed, the process stays up`, async () => {
  const r = rng(SEED + 1);
  const kinds = ['/listen?sample_rate=16000', '/listen?sample_rate=8000&language=xx', '/websocket/text-to-speech', '/websocket/speech-to-text'] as const;
  const jobs = Array.from({ length: SOCKETS }, (_, i) => ({ i, path: kinds[i % kinds.length]!, frames: FRAMES_PER_SOCKET }));
  await pool(jobs, 4, async ({ i, path, frames }) => {
    const ws = new WebSocket(`${sb.sandbox.wsUrl}${path}`, { headers: { 'x-api-key': KEY } });
    const got: any[] = [];
    let closedWith: number | undefined;
    ws.on('message', (d, binary) => {
      if (!binary) got.push(JSON.parse(d.toString()));
    });
    const closed = new Promise<void>((resolve) => ws.on('close', (code) => ((closedWith = code), resolve())));
    ws.on('error', () => {});
    await new Promise<void>((resolve) => (ws.once('open', () => resolve()), ws.once('close', () => resolve())));
    if (path.includes('text-to-speech') && r.chance(0.8)) {
      ws.send(JSON.stringify({ type: 'initConnection', voice_id: 'ar-najdi-male-2', output_format: r.pick(['pcm_16000', 'pcm_1', undefined]) }));
    }
    for (let k = 0; k < frames && ws.readyState === ws.OPEN; k++) {
      const choice = r.int(6);
      if (choice === 0) ws.send(bytes(r, r.int(4000)), { binary: true });
      else if (choice === 1) ws.send(r.pick(['null', '1', '[]', '"x"', '{', '', 'true', '{"type":null}']));
      else if (choice === 2 && path.includes('speech-to-text')) ws.send(JSON.stringify({ event: 'audio', data: { audioBuffer: [...wavVariant(r)] } }));
      else if (choice === 3) {
        const o = value(r);
        ws.send(JSON.stringify(o && typeof o === 'object' && !Array.isArray(o) ? { ...o, type: r.pick(['text', 'clear', 'KeepAlive', 'Finalize', 'initConnection', 'x']) } : o));
      } else ws.send(JSON.stringify({ type: 'text', text: String(value(r)).slice(0, 400), flush: r.chance(0.3), event: r.chance(0.1) ? 'end_of_stream' : undefined }));
      if (r.chance(0.2)) await new Promise((res) => setTimeout(res, 20));
    }
    await new Promise((res) => setTimeout(res, 300));
    ws.close();
    await closed;
    for (const m of got) {
      const what = `socket #${i} ${path}: ${JSON.stringify(m).slice(0, 200)}`;
      if (m.type === 'Error') assert.ok(typeof m.code === 'number' && typeof m.message === 'string' && typeof m.recoverable === 'boolean', what);
      if (m.type === 'error') assert.ok(typeof m.errorCode === 'number' && typeof m.errorMessage === 'string', what);
      if (m.event === 'transcription_error') assert.equal(typeof m.data, 'string', what);
      assert.ok(!/internal error|generation failed/i.test(JSON.stringify(m)), what);
    }
    assert.ok(closedWith !== undefined && closedWith !== 1006, `socket #${i} ${path}: closed ${closedWith}`);
  });
  const models = await raw(`${sb.sandbox.url}/models`, KEY);
  assert.equal(models.status, 200);
});

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import {
  AuthenticationError,
  InsufficientBalanceError,
  PermissionDeniedError,
  RateLimitError,
  ServerError,
  ServiceClient,
  TransportError,
} from '../../src/service/index.ts';
import { KEY, json, startFake, type Fake } from '../helpers/fake-service.ts';

let fake: Fake;
let flaky = 0;
before(async () => {
  fake = await startFake({
    'GET /models': (req, res) => {
      if (req.headers['x-api-key'] !== KEY) return json(res, 401, { errorCode: 40101, errorMessage: 'Invalid API key' });
      if (flaky > 0) {
        flaky--;
        return json(res, 429, { errorCode: 42901, errorMessage: 'Concurrency limit exceeded' }, { 'retry-after': '0' });
      }
      json(res, 200, [{ id: '1', model_id: 'tts-v1-preview', model_name: 'TTS', cost: 2, description: 'x' }]);
    },
    'GET /voices': (_req, res) => json(res, 503, { errorCode: 50202, errorMessage: 'upstream' }),
    'POST /text-to-speech/{m}': (_req, res) => json(res, 429, { errorCode: 42901, errorMessage: 'Concurrency limit exceeded' }),
    'POST /tashkil/diacritize': (req, res) => {
      const status = Number(JSON.parse(req.body.toString()).text);
      const msgs: Record<number, [number, string]> = {
        402: [40201, 'Insufficient wallet balance. Required: $0.05, Available: $0.02'],
        403: [40301, 'Access denied'],
        500: [50001, `internal error for key ${KEY}`],
      };
      const [code, message] = msgs[status]!;
      json(res, status, { errorCode: code, errorMessage: message });
    },
    'GET /denoise': async (_req, res) => {
      await new Promise((r) => setTimeout(r, 300));
      json(res, 200, []);
    },
  });
});
after(() => fake.close());

test('the key travels as x-api-key and a typed result comes back', async () => {
  const models = await fake.client().listModels();
  assert.equal(models[0]?.model_id, 'tts-v1-preview');
  assert.equal(fake.calls.at(-1)?.headers['x-api-key'], KEY);
});

test('a wrong key is an AuthenticationError with code 40101', async () => {
  await assert.rejects(new ServiceClient({ apiKey: 'wrong-key', baseUrl: fake.baseUrl }).listModels(), (e: unknown) => {
    assert.ok(e instanceof AuthenticationError);
    assert.equal(e.status, 401);
    assert.equal(e.errorCode, 40101);
    return true;
  });
});

test('no key configured fails before the network', async () => {
  const before = fake.calls.length;
  await assert.rejects(new ServiceClient({ baseUrl: fake.baseUrl, apiKey: '' }).listModels(), AuthenticationError);
  assert.equal(fake.calls.length, before);
});

test('idempotent calls retry 429 then succeed', async () => {
  flaky = 2;
  const n = fake.calls.length;
  const models = await fake.client().listModels();
  assert.equal(models.length, 1);
  assert.equal(fake.calls.length - n, 3);
});

test('retries stop at maxRetries and the last error surfaces', async () => {
  const n = fake.calls.length;
  await assert.rejects(fake.client({ maxRetries: 2 }).listVoices(), ServerError);
  assert.equal(fake.calls.length - n, 3);
});

test('non-idempotent POST is never retried', async () => {
  const n = fake.calls.length;
  await assert.rejects(fake.client().synthesizeWav('m', { voice_id: 'v', text: 'مرحبا بكم' }), RateLimitError);
  assert.equal(fake.calls.length - n, 1);
});

test('402 and 403 are typed; the key never shows in a message or a field', async () => {
  const c = fake.client();
  await assert.rejects(c.diacritize('402'), (e: unknown) => {
    assert.ok(e instanceof InsufficientBalanceError);
    assert.match(e.errorMessage, /Insufficient wallet balance/);
    return true;
  });
  await assert.rejects(c.diacritize('403'), PermissionDeniedError);
  await assert.rejects(c.diacritize('500'), (e: unknown) => {
    assert.ok(e instanceof ServerError);
    const dump = JSON.stringify({ ...e, message: e.message, stack: e.stack });
    assert.ok(!dump.includes(KEY), 'key leaked');
    assert.match(e.message, /\[redacted\]/);
    return true;
  });
});

test('a timeout and an abort are TransportErrors of their kind', async () => {
  await assert.rejects(fake.client().listDenoise({}, { timeoutMs: 50, maxRetries: 0 }), (e: unknown) => {
    assert.ok(e instanceof TransportError);
    assert.equal(e.kind, 'timeout');
    return true;
  });
  const ctrl = new AbortController();
  setTimeout(() => ctrl.abort(), 30);
  await assert.rejects(fake.client().listDenoise({}, { signal: ctrl.signal, timeoutMs: 0 }), (e: unknown) => {
    assert.ok(e instanceof TransportError);
    assert.equal(e.kind, 'aborted');
    return true;
  });
});

test('an unreachable host is a network TransportError without the key', async () => {
  const c = new ServiceClient({ apiKey: KEY, baseUrl: 'http://127.0.0.1:1/api/v1', maxRetries: 1, retryBaseMs: 1 });
  await assert.rejects(c.listModels(), (e: unknown) => {
    assert.ok(e instanceof TransportError);
    assert.equal(e.kind, 'network');
    assert.ok(!e.message.includes(KEY));
    return true;
  });
});

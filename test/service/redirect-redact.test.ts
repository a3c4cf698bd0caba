import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { firstValueFrom, toArray } from '../helpers/rx.ts';
import { ProtocolError, redact } from '../../src/service/index.ts';
import { KEY, json, startFake, type Fake } from '../helpers/fake-service.ts';

let service: Fake;
let elsewhere: Fake;
let redirectTo = '';
let status = 302;
before(async () => {
  elsewhere = await startFake({
    'GET /models': (_req, res) => json(res, 200, [{ model_id: 'from-the-other-host' }]),
    'POST /tashkil/diacritize': (_req, res) => json(res, 200, { text: 'from the other host' }),
  });
  const redirect = (_req: unknown, res: import('node:http').ServerResponse) => {
    res.writeHead(status, { location: redirectTo });
    res.end();
  };
  service = await startFake(
    {
      'GET /models': redirect,
      'POST /tashkil/diacritize': redirect,
      'GET /moved/models': (_req, res) => json(res, 200, [{ model_id: 'same-origin' }]),
      'POST /moved/diacritize': (req, res) => json(res, 200, { text: `same origin: ${JSON.parse(req.body.toString()).text}` }),
    },
    {
      '/listen': (ws) => {
        const b64 = Buffer.from(`user:${KEY}`).toString('base64');
        ws.send(JSON.stringify({ type: 'Metadata', session_id: 's', model: 'asr', sample_rate: 16000, channels: 1 }));
        ws.send(JSON.stringify({ type: 'Error', code: 1008, message: `bad key ${KEY} (basic ${b64})`, recoverable: false }));
        ws.close(1008, `key ${KEY} refused`);
      },
    },
  );
});
after(async () => {
  await service.close();
  await elsewhere.close();
});

test('a redirect to another origin is an error and the key never reaches that origin (GET and POST, 301/302/307/308)', async () => {
  const client = service.client({ maxRetries: 0 });
  for (const s of [301, 302, 307, 308]) {
    status = s;
    redirectTo = `${elsewhere.baseUrl}/models`;
    await assert.rejects(client.listModels(), (e: Error) => e instanceof ProtocolError && /another origin/.test(e.message) && !e.message.includes(KEY));
    redirectTo = `${elsewhere.baseUrl}/tashkil/diacritize`;
    await assert.rejects(client.diacritize('نص'), ProtocolError);
  }
  assert.equal(elsewhere.calls.length, 0, 'the other origin was contacted');
});

test('a redirect within the same origin is followed (the method kept on 307)', async () => {
  const client = service.client({ maxRetries: 0 });
  status = 302;
  redirectTo = `${service.baseUrl}/moved/models`;
  const models = await client.listModels();
  assert.equal(models[0]!.model_id, 'same-origin');
  status = 307;
  redirectTo = `${service.baseUrl}/moved/diacritize`;
  const out = (await client.diacritize('نص')) as unknown as { text: string };
  assert.match(JSON.stringify(out), /same origin: نص/);
});

test('/listen: an Error event, its base64 copy and the close reason reach the caller without the key', async () => {
  const listen = await service.client().openListen();
  const events = await firstValueFrom(listen.events$.pipe(toArray()));
  const error = events.find((e) => e.type === 'Error');
  const close = events.find((e) => e.type === 'Closed');
  assert.ok(error && error.type === 'Error' && close && close.type === 'Closed');
  const text = JSON.stringify(events);
  assert.ok(!text.includes(KEY), text);
  assert.ok(!text.includes(Buffer.from(KEY).toString('base64').slice(4, 20)), text);
  assert.match(error.message, /\[redacted\]/);
  assert.match(close.close.reason, /\[redacted\]/);
  assert.equal(close.close.kind, 'unauthorized');
});

test('redact: plain, URL-encoded, base64 and base64url copies at any alignment', () => {
  const key = 'sk-live_Ab+/=9xYz-0123456789';
  for (const prefix of ['', 'a', 'ab', 'user:']) {
    for (const encode of [(s: string) => Buffer.from(s).toString('base64'), (s: string) => Buffer.from(s).toString('base64url')]) {
      const copy = encode(`${prefix}${key}!`);
      const out = redact(`header ${copy} end`, key);
      assert.match(out, /\[redacted\]/, `${prefix} ${copy}`);
      // What is left of the copy cannot be decoded back to the key.
      assert.ok(!Buffer.from(out.replace(/^header | end$/g, '').replace('[redacted]', ''), 'base64').toString().includes(key.slice(4, 12)));
    }
  }
  assert.equal(redact(`a ${encodeURIComponent(key)} b ${key}`, key), 'a [redacted] b [redacted]');
  assert.equal(redact('nothing to hide here', key), 'nothing to hide here');
});

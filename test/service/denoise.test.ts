import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { NotFoundError, ProtocolError, TransportError, ValidationError } from '../../src/service/index.ts';
import { formOf, json, startFake, type Fake } from '../helpers/fake-service.ts';

const records = [
  { denoiseId: 'c', url: 'http://x/c.wav' },
  { denoiseId: 'b', url: 'http://x/b.wav' },
  { denoiseId: 'a', url: 'http://x/a.wav' },
];

let fake: Fake;
before(async () => {
  fake = await startFake({
    'POST /denoise': async (req, res) => {
      const form = await formOf(req);
      assert.ok(form.get('audio') instanceof Blob);
      json(res, 200, { jobId: 'j-1', denoiseId: '0b8f7a52-1c1e-4d0a-9c1d-2b2b9e3c9d10' });
    },
    'GET /denoise': (req, res) => {
      const offset = Number(req.query.get('offset') ?? 0);
      const limit = req.query.has('limit') ? Number(req.query.get('limit')) : undefined;
      json(res, 200, records.slice(offset, limit === undefined ? undefined : offset + limit));
    },
    'GET /denoise/{id}/progress': async (req, res) => {
      const id = req.path.split('/')[2];
      if (id === 'missing') return json(res, 404, { message: 'Job not found' });
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
      res.write('data: {"stage":"processing","progress":10}\n\n');
      if (id === 'drop') return res.destroy();
      if (id === 'garbage') return res.end('data: {not json\n\n');
      if (id === 'quiet') return res.end();
      await new Promise((r) => setTimeout(r, 10));
      res.write('data: {"stage":"processing","progress":60}\n\n');
      if (id === 'fail') return res.end('data: {"stage":"error","message":"decoder failed"}\n\n');
      res.write('data: {"stage":"done","url":"http://x/clean.wav"}\n\n');
      res.write('data: {"stage":"processing","progress":99}\n\n'); // after done: must be ignored
      res.end();
    },
  });
});
after(() => fake.close());

test('upload queues a job; files over 200 MB are refused before upload', async () => {
  const c = fake.client();
  const job = await c.denoise({ data: new Uint8Array(1000), filename: 'noisy.wav' });
  assert.equal(job.jobId, 'j-1');
  const n = fake.calls.length;
  const huge = new Blob([new Uint8Array(200 * 1024 * 1024 + 1)]);
  await assert.rejects(c.denoise(huge), (e: unknown) => e instanceof ValidationError && /200 MB/.test(e.message));
  assert.equal(fake.calls.length, n);
});

test('list honours offset and limit; bad paging fails in the client', async () => {
  const c = fake.client();
  assert.deepEqual((await c.listDenoise()).map((r) => r.denoiseId), ['c', 'b', 'a']);
  assert.deepEqual((await c.listDenoise({ offset: 1, limit: 1 })).map((r) => r.denoiseId), ['b']);
  await assert.rejects(c.listDenoise({ offset: -1 }), /offset/);
  await assert.rejects(c.listDenoise({ limit: 0 }), /limit/);
});

test('progress: typed events, ending on done (later events ignored)', async () => {
  const stages: string[] = [];
  const url = await fake.client().waitForDenoise('ok', (e) => stages.push(e.stage));
  assert.equal(url, 'http://x/clean.wav');
  assert.deepEqual(stages, ['processing', 'processing', 'done']);
});

test('progress: an error event ends the stream; waitForDenoise throws it', async () => {
  const events = [];
  for await (const e of await fake.client().denoiseProgress('fail')) events.push(e);
  assert.equal(events.at(-1)?.stage, 'error');
  await assert.rejects(fake.client().waitForDenoise('fail'), /decoder failed/);
});

test('progress: 404 with a bare {message} body is NotFoundError', async () => {
  await assert.rejects(fake.client().denoiseProgress('missing'), (e: unknown) => {
    assert.ok(e instanceof NotFoundError);
    assert.equal(e.errorMessage, 'Job not found');
    return true;
  });
});

test('progress: a dropped, silent or garbled stream is a ProtocolError, not a hang', async () => {
  for (const id of ['drop', 'quiet', 'garbage']) {
    await assert.rejects(
      (async () => {
        for await (const _ of await fake.client().denoiseProgress(id)) void _;
      })(),
      (e: unknown) => e instanceof ProtocolError || e instanceof TransportError,
      id,
    );
  }
});

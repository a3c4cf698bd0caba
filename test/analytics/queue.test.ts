import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { Queue } from 'bullmq';
import { AnalyticsQueue } from '../../src/analytics/queue.ts';
import { resultKey } from '../../src/analytics/runner.ts';
import { LocalFolderStore } from '../../src/analytics/store.ts';
import type { CallSummary } from '../../src/analytics/summary.ts';
import { verifyWebhook } from '../../src/analytics/webhook.ts';
import { AnalyticsWorker } from '../../src/analytics/worker.ts';
import { audioCost } from '../../src/sandbox/pricing.ts';
import { ServiceClient } from '../../src/service/client.ts';
import { createLogger } from '../../src/session/logger.ts';
import { startRedis, type TestRedis } from '../helpers/redis.ts';
import { runSandbox, type Running } from '../helpers/sandbox.ts';
import { startReceiver, syntheticCall, until, type Receiver } from './harness.ts';

const SECRET = 'whsec-queue-test';
const POOR = 'sk-sandbox-poor-wallet-000001';
let redis: TestRedis;
let sandbox: Running;
let receiver: Receiver;
let dir: string;
let store: LocalFolderStore;
let producer: AnalyticsQueue;
const logger = createLogger('silent');
const credits = (key: string) => sandbox.sandbox.state.keys.lookup(key, 'global')!.credits;
/** A worker with a short backoff, so a retry comes in well under a second. */
const fastWorker = (client: ServiceClient) =>
  new AnalyticsWorker(redis.url, { client, store, webhook: { url: receiver.url, secret: SECRET }, logger }, { backoff: { baseMs: 50, capMs: 200 } });

before(async () => {
  redis = await startRedis();
  sandbox = await runSandbox({ keys: [{ key: 'sk-sandbox-rich-wallet-000001', credits: 1_000_000 }, { key: POOR, credits: 3 }] });
  receiver = await startReceiver();
  dir = await mkdtemp(join(tmpdir(), 'hiwar-queue-'));
  store = new LocalFolderStore(dir);
  producer = new AnalyticsQueue(redis.url);
});
after(async () => {
  await producer.close();
  await receiver.close();
  await sandbox.close();
  await redis.stop();
  await rm(dir, { recursive: true, force: true });
});

test('a 429 is retried with backoff, the paid steps are not paid again, and the webhook gets the summary once', async () => {
  const job = await syntheticCall(sandbox.client, store, 'job-429');
  sandbox.sandbox.state.faults.httpBusy = { times: 1, path: '/minutes-of-meeting/transcribe', retryAfterS: 0 };
  const before = credits(sandbox.key);
  const worker = fastWorker(sandbox.client);
  try {
    await worker.ready();
    await producer.enqueue(job);
    await producer.enqueue(job); // the same call twice is one job
    await until(async () => (await producer.queue.getJobState(job.jobId)) === 'completed', 'the job completed', 45_000);
    const done = (await producer.queue.getJob(job.jobId))!;
    assert.equal(done.attemptsMade, 2, 'one failed run (429), then success');
    assert.equal(sandbox.sandbox.state.faults.httpBusy!.times, 0, 'the 429 was served');
    // Transcription and minutes are each paid once for the recording's length: the retry reused
    // the stored transcription instead of buying it again.
    assert.equal(before - credits(sandbox.key), 2 * audioCost(job.recording.seconds));
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(receiver.deliveries.length, 1, 'delivered once');
    const d = receiver.deliveries[0]!;
    assert.ok(verifyWebhook(d.body, d.headers, SECRET));
    const s = JSON.parse(d.body) as CallSummary;
    assert.equal(s.jobId, job.jobId);
    assert.deepEqual(s.turns.map((t) => [t.role, t.text]), [['caller', 'كم رصيدي'], ['agent', 'رصيدك ألف درهم']]);
    assert.deepEqual(await producer.queue.getJobCounts('waiting', 'active', 'delayed', 'failed'), { waiting: 0, active: 0, delayed: 0, failed: 0 });
  } finally {
    await worker.close();
  }
});

test('a 402 parks the job with the reason: no retries, nothing delivered, other jobs go on', async () => {
  receiver.deliveries.length = 0;
  const poor = new ServiceClient({ apiKey: POOR, baseUrl: sandbox.sandbox.url, maxRetries: 0 });
  const job = await syntheticCall(sandbox.client, store, 'job-402');
  const worker = fastWorker(poor);
  try {
    await worker.ready();
    await producer.enqueue(job);
    await until(async () => (await producer.queue.getJobState(job.jobId)) === 'failed', 'the job was parked', 45_000);
    const parked = (await producer.queue.getJob(job.jobId))!;
    assert.equal(parked.attemptsMade, 1, 'not retried');
    assert.match(parked.failedReason, /^parked: the service's wallet cannot pay/);
    assert.match(parked.failedReason, /402 40201/);
    assert.match(parked.failedReason, /top the balance up/);
    assert.equal(await store.has(resultKey(job.jobId, 'transcription')), false);
    assert.equal(receiver.deliveries.length, 0);
    assert.equal(credits(POOR), 3, 'nothing was spent');

    // Topped up (here: a worker on a key with credits), the parked job is put back and done.
    await worker.close();
    const rich = fastWorker(sandbox.client);
    try {
      await rich.ready();
      await parked.retry('failed');
      await until(async () => (await producer.queue.getJobState(job.jobId)) === 'completed', 'the parked job ran after a retry', 45_000);
      assert.equal(receiver.deliveries.length, 1);
    } finally {
      await rich.close();
    }
  } finally {
    await worker.close();
  }
});

test('a job that is not an analytics job fails at once with a clear reason', async () => {
  const q = new Queue('hiwar-analytics', { connection: { url: redis.url } });
  const worker = fastWorker(sandbox.client);
  try {
    await worker.ready();
    await q.add('call', { jobId: '../../etc', call: {} }, { jobId: 'bad-1', attempts: 5 });
    await until(async () => (await q.getJobState('bad-1')) === 'failed', 'the bad job failed', 20_000);
    const bad = (await q.getJob('bad-1'))!;
    assert.equal(bad.attemptsMade, 1);
    assert.match(bad.failedReason, /^not an analytics job: jobId: /);
  } finally {
    await worker.close();
    await q.close();
  }
});

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Queue } from 'bullmq';
import { resultKey } from '../../src/analytics/runner.ts';
import { LocalFolderStore } from '../../src/analytics/store.ts';
import type { CallSummary } from '../../src/analytics/summary.ts';
import { verifyWebhook } from '../../src/analytics/webhook.ts';
import { audioCost } from '../../src/sandbox/pricing.ts';
import { realClock } from '../../src/transport/clock.ts';
import { startRedis } from '../helpers/redis.ts';
import { runSandboxProcess, walletOf } from '../helpers/sandbox-process.ts';
import { FarEnd } from '../telephony/far-end.ts';
import { agentDone, callerLine, gateway, hiwar, recordingProfile, startReceiver, until, type Child } from './harness.ts';

const SECRET = 'whsec-kill-test';
// The workers have their own key, so that its wallet shows what the analytics cost.
const SERVE_KEY = 'sk-sandbox-serve-key-000001';
const WORKER_KEY = 'sk-sandbox-worker-key-00001';
/** The workers' wallet: ample for one call's analysis (two credits a second of recording). */
const WORKER_CREDITS = 100_000;

test('a job outlives the serve that queued it (SIGKILL) and the worker that held it (SIGKILL): another worker finishes it, paying once, delivering once', async () => {
  const redis = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), 'hiwar-kill-'));
  // The service in a process of its own, as in a deployment, and not starved with this one
  // (scripts/starve.mjs): in this process it took the CPU the far end needed to send the
  // caller's line at the line's pace. Its wallets are read as a client reads them (walletOf).
  const keys = join(dir, 'keys.json');
  await writeFile(keys, JSON.stringify([{ key: SERVE_KEY, credits: 10_000_000, concurrency: 32 }, { key: WORKER_KEY, credits: WORKER_CREDITS }]));
  const sandbox = await runSandboxProcess(['--keys', keys]);
  const receiver = await startReceiver();
  const store = new LocalFolderStore(dir);
  const queue = new Queue('hiwar-analytics', { connection: { url: redis.url } });
  const wallet = () => walletOf(sandbox, WORKER_KEY, WORKER_CREDITS);
  const env = {
    REDIS_URL: redis.url,
    // With REDIS_URL the server is in cluster mode: it must be told what the key allows.
    HIWAR_KEY_SESSIONS: '32',
    HIWAR_BASE_URL: sandbox.url,
    HIWAR_RECORDINGS_DIR: dir,
    HIWAR_ANALYTICS_WEBHOOK_URL: receiver.url,
    HIWAR_ANALYTICS_SECRET: SECRET,
  };
  const children: Child[] = [];
  const start = (args: string[]) => {
    const c = hiwar(args, { ...env, HIWAR_API_KEY: args[0] === 'worker' ? WORKER_KEY : SERVE_KEY });
    children.push(c);
    return c;
  };
  try {
    // The server and the first worker start side by side; the webhook keeps that worker waiting.
    receiver.answer = 'hang';
    const serve = start(['serve', '--port', '0', '--analytics', '--open']);
    const first = start(['worker', '--lock-ms', '2000', '--stalled-ms', '1000']);
    const line = await callerLine(sandbox.client);
    const port = (await serve.waitFor(/agent "call-centre" at http:\/\/127\.0\.0\.1:(\d+)/, 'serve started'))[1];
    await serve.waitFor(/analytics: recordings in .* jobs on the Redis queue/, 'serve queues analytics on Redis');
    await first.waitFor(/hiwar worker: taking jobs/, 'the first worker started');
    const spent0 = await wallet();

    // A short call: the greeting, the caller's question, and a hang-up.
    const far = new FarEnd(`ws://127.0.0.1:${port}/telephony/pcm?rate=16000&call_id=killed-serve-1`, gateway(), realClock());
    await far.start();
    await agentDone(far, 1);
    await far.say(line);
    await new Promise((r) => setTimeout(r, 1000));
    far.hangup();
    const queued = async () => (await queue.getJobs(['wait', 'active'])).find((j) => j.id?.startsWith('pcm-killed-serve-1-'));
    await until(async () => (await queued()) !== undefined, 'the ended call was queued', 30_000);
    const job = await queued();
    // The server dies at once: the job is in Redis already, with its recording in the store.
    await serve.kill('SIGKILL');

    // The first worker pays for the analysis, then is killed while the webhook keeps it waiting.
    await until(() => receiver.requests > 0, 'the first worker reached the webhook', 40_000);
    assert.equal(await queue.getJobState(job!.id!), 'active');
    assert.ok(await store.has(resultKey(job!.id!, 'summary')));
    const paid = spent0 - (await wallet());
    await first.kill('SIGKILL');

    // A second worker finds the job stalled (its lock expired) and runs it to the end.
    receiver.answer = 200;
    const second = start(['worker', '--lock-ms', '2000', '--stalled-ms', '1000']);
    await second.waitFor(/hiwar worker: taking jobs/, 'the second worker started');
    await until(async () => (await queue.getJobState(job!.id!)) === 'completed', 'the second worker completed the job', 40_000);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(receiver.deliveries.length, 1, 'delivered once');
    const d = receiver.deliveries[0]!;
    assert.ok(verifyWebhook(d.body, d.headers, SECRET));
    const s = JSON.parse(d.body) as CallSummary;
    assert.equal(s.call.callId, 'killed-serve-1');
    // The recording's speech in the message of a failure: holes in the agent's line tell a starved server.
    const heard = async () => `${JSON.stringify(s.turns)}\n  ${await recordingProfile(s.recording.location)}`;
    if (!s.turns.some((t) => t.role === 'caller' && /رصيدي/.test(t.text))) assert.fail(`the caller's line among the turns: ${await heard()}`);
    if (!s.turns.some((t) => t.role === 'agent')) assert.fail(`an agent turn: ${await heard()}`);
    assert.equal(paid, 2 * audioCost(s.recording.seconds), 'the first worker paid for transcription and minutes');
    assert.equal(spent0 - (await wallet()), paid, 'the second worker paid nothing again');
    second.process.kill('SIGTERM');
    await second.waitFor(/stopped; bye/, 'the worker stopped on SIGTERM', 20_000);
  } finally {
    for (const c of children) await c.kill('SIGKILL');
    await queue.close();
    await receiver.close();
    await sandbox.close();
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

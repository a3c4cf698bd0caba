import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { CampaignQueue } from '../../src/campaign/queue.ts';
import { campaignSettings } from '../../src/campaign/schedule.ts';
import { waitFor } from '../telephony/serve.ts';
import { campaignRoutes } from '../../src/campaign/routes.ts';
import { MemoryCampaignStore } from '../../src/campaign/store.ts';
import { createAgentServer } from '../../src/server/index.ts';
import { createLogger } from '../../src/session/logger.ts';
import { describe, toCallLine } from '../../src/cli/campaign.ts';
import { hiwar, runNode } from '../helpers/processes.ts';
import { startRedis } from '../helpers/redis.ts';
import { runSandbox } from '../helpers/sandbox.ts';

const BIN = new URL('../../bin/hiwar.js', import.meta.url).pathname;

test('hiwar campaign start on Redis: bad rows reported by line and not queued; status, pause, resume and cancel by id', async () => {
  const redis = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), 'hiwar-campaign-cli-'));
  try {
    const csv = join(dir, 'contacts.csv');
    await writeFile(csv, 'number,name\n+966500000001,سارة\n12345,علي\n+966500000002,منى\n+966500000001,سارة\n+966500000003\n');
    await writeFile(join(dir, 'dnc.txt'), '+966500000002\n');
    const env = { REDIS_URL: redis.url };
    const bad = await hiwar(['campaign', 'start', csv, '--window', 'Sun-Thu 21:00-09:00 Asia/Riyadh'], env);
    assert.equal(bad.code, 2, bad.stderr);
    assert.match(bad.stderr, /--window: the hours must end after they start/);

    const started = await hiwar(['campaign', 'start', csv, '--window', 'Sun-Thu 09:00-21:00 Asia/Riyadh', '--concurrency', '3', '--retries', '1', '--retry-after', '30m', '--dnc', join(dir, 'dnc.txt'), '--id', 'spring'], env);
    assert.equal(started.code, 0, started.stderr);
    assert.match(started.stderr, /contacts\.csv:3: "12345" is not a phone number.*not called/);
    assert.match(started.stderr, /contacts\.csv:5: \+966500000001 is already on line 2/);
    assert.match(started.stderr, /contacts\.csv:6: 1 fields where the header has 2/);
    // What it will really dial: +966500000002 is on the do-not-call list, so one of the two contacts.
    assert.match(started.stdout, /^1 contact to call; not called: 3 rows that cannot be called \(above\), 1 contact on the do-not-call list$/m);
    assert.match(started.stdout, /campaign spring: 2 contacts queued \(1 on the do-not-call list: marked so, never dialled\)/);

    const status = await hiwar(['campaign', 'status', 'spring', '--json', '--csv', join(dir, 'out.csv')], env);
    assert.equal(status.code, 0, status.stderr);
    const s = JSON.parse(status.stdout);
    assert.deepEqual([s.id, s.state, s.total, s.window, s.concurrency, s.retries, s.retryAfterMs, s.contacts], ['spring', 'running', 2, 'Sun-Thu 09:00-21:00 Asia/Riyadh', 3, 1, 1_800_000, { pending: 2 }]);
    assert.match(await readFile(join(dir, 'out.csv'), 'utf8'), /^campaign,line,number,attempt,outcome[^\n]*\nspring,2,\+966500000001,0,pending,/);

    assert.match((await hiwar(['campaign', 'pause', 'spring'], env)).stdout, /campaign spring: paused/);
    const again = await hiwar(['campaign', 'pause', 'spring'], env);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /campaign spring is paused: it cannot pause/);
    assert.match((await hiwar(['campaign', 'resume', 'spring'], env)).stdout, /campaign spring: running/);
    assert.match((await hiwar(['campaign', 'cancel', 'spring'], env)).stdout, /campaign spring: cancelled/);
    const none = await hiwar(['campaign', 'status', 'autumn'], env);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /no campaign autumn/);
  } finally {
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

test('hiwar campaign: usage errors and --help', async () => {
  const help = await hiwar(['campaign', '--help']);
  assert.equal(help.code, 0);
  for (const flag of ['--window', '--concurrency', '--retries', '--retry-after', '--dnc', '--agent', '--redis', '--results', '--csv', '--json']) assert.ok(help.stdout.includes(flag), flag);
  const noRedis = await hiwar(['campaign', 'status', 'x'], { REDIS_URL: '' });
  assert.equal(noRedis.code, 2);
  assert.match(noRedis.stderr, /no Redis: set REDIS_URL or pass --redis/);
  const dir = await mkdtemp(join(tmpdir(), 'hiwar-campaign-usage-'));
  try {
    await writeFile(join(dir, 'c.csv'), 'number\n+966500000001\n');
    const here = await hiwar(['campaign', 'start', join(dir, 'c.csv')], { REDIS_URL: '', HIWAR_PUBLIC_URL: '' });
    assert.equal(here.code, 2, 'in process, the platform must reach this process');
    assert.match(here.stderr, /give --public-url \(or HIWAR_PUBLIC_URL\)/);
    // Every contact on the do-not-call list: nothing to call, said before anything starts.
    await writeFile(join(dir, 'dnc.txt'), '00966 50 000 0001\n');
    const listed = await hiwar(['campaign', 'start', join(dir, 'c.csv'), '--dnc', join(dir, 'dnc.txt')], { REDIS_URL: '' });
    assert.equal(listed.code, 1, listed.stderr);
    assert.match(listed.stderr, /c\.csv: no contact can be called \(every one is on the do-not-call list .*dnc\.txt\)/);
    const retry = await hiwar(['campaign', 'start', join(dir, 'c.csv'), '--retry-after', 'soon'], { REDIS_URL: '' });
    assert.match(retry.stderr, /--retry-after: a duration reads like 90s, 15m, 2h or 1d, got "soon"/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const unknown = await hiwar(['campaign', 'launch']);
  assert.match(unknown.stderr, /unknown campaign command "launch"/);
});

test('hiwar campaign on Redis and hiwar worker without ioredis and bullmq installed: they name both packages and the page, not "cannot reach Redis"', async () => {
  const NO_REDIS = new URL('../helpers/no-redis-packages.cjs', import.meta.url).pathname;
  const env = { REDIS_URL: 'redis://127.0.0.1:9' };
  const status = await runNode(['--require', NO_REDIS, BIN, 'campaign', 'status', 'spring'], env);
  assert.equal(status.code, 1, status.stderr);
  assert.match(status.stderr, /A campaign on Redis \(REDIS_URL\) needs ioredis and bullmq: npm install ioredis bullmq; see \S+docs\/campaigns\.md#on-a-cluster/);
  assert.doesNotMatch(status.stderr, /cannot reach Redis/);
  const worker = await runNode(['--require', NO_REDIS, BIN, 'worker'], env);
  assert.equal(worker.code, 1, worker.stderr);
  assert.match(worker.stderr, /Call analytics jobs \(hiwar worker\) needs ioredis and bullmq: npm install ioredis bullmq; see \S+docs\/analytics\.md/);
  assert.doesNotMatch(worker.stderr, /cannot reach Redis/);
});

test('hiwar campaign start in process stops before dialling anyone when no call could be placed (caller ID, platform)', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'hiwar-campaign-dialling-'));
  try {
    const csv = join(dir, 'c.csv');
    const results = join(dir, 'results.csv');
    await writeFile(csv, 'number\n+966500000001\n+966500000002\n');
    const none = { REDIS_URL: '', HIWAR_PUBLIC_URL: 'https://calls.example.com', HIWAR_CALL_FROM: '', HIWAR_CALL_PLATFORM: '', TWILIO_ACCOUNT_SID: '', TWILIO_AUTH_TOKEN: '', TELNYX_API_KEY: '', PLIVO_AUTH_ID: '', VONAGE_APPLICATION_ID: '' };
    const start = (args: string[], env: Record<string, string> = {}) => hiwar(['campaign', 'start', csv, '--results', results, ...args], { ...none, ...env });
    const noFrom = await start([]);
    assert.equal(noFrom.code, 1, noFrom.stderr);
    assert.match(noFrom.stderr, /no caller ID: give --from \(or set HIWAR_CALL_FROM\)/);
    const badFrom = await start(['--from', '0501234567']);
    assert.equal(badFrom.code, 1, badFrom.stderr);
    assert.match(badFrom.stderr, /--from must be an E\.164 number \(\+ then 8 to 15 digits\), got "0501234567"/);
    const noPlatform = await start(['--from', '+966110000000']);
    assert.equal(noPlatform.code, 1, noPlatform.stderr);
    assert.match(noPlatform.stderr, /no platform is configured for outbound calls: set the credentials of one \(TWILIO_ACCOUNT_SID \+ TWILIO_AUTH_TOKEN/);
    const twilio = { TWILIO_ACCOUNT_SID: 'AC0123456789abcdef0123456789abcdef', TWILIO_AUTH_TOKEN: 'token' };
    const other = await start(['--from', '+966110000000', '--platform', 'telnyx'], twilio);
    assert.equal(other.code, 1, other.stderr);
    assert.match(other.stderr, /platform "telnyx" is not configured for outbound calls \(configured: twilio\)/);
    await assert.rejects(readFile(results, 'utf8'), { code: 'ENOENT' }, 'no contact was dialled, so no result was written');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('hiwar campaign start in process says what it does before the slow start: the count to call, then the server and the embedded sandbox starting', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'hiwar-campaign-start-'));
  try {
    const csv = join(dir, 'c.csv');
    await writeFile(csv, 'number\n+966500000001\n+966500000002\n');
    await writeFile(join(dir, 'dnc.txt'), '+966500000002\n');
    // The platform's API cannot be reached: the one dial fails, and without retries the campaign ends.
    const env = {
      REDIS_URL: '',
      HIWAR_LOG_LEVEL: 'silent',
      HIWAR_PUBLIC_URL: 'https://calls.example.com',
      HIWAR_CALL_FROM: '+966110000000',
      HIWAR_CALL_PLATFORM: '',
      TWILIO_ACCOUNT_SID: 'AC0123456789abcdef0123456789abcdef',
      TWILIO_AUTH_TOKEN: 'token',
      HIWAR_TWILIO_API_URL: 'http://127.0.0.1:9',
      TELNYX_API_KEY: '',
      PLIVO_AUTH_ID: '',
      VONAGE_APPLICATION_ID: '',
    };
    const r = await hiwar(['campaign', 'start', csv, '--dnc', join(dir, 'dnc.txt'), '--retries', '0', '--port', '0', '--id', 'quiet', '--results', join(dir, 'results.csv')], env, 300_000);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines[0], '1 contact to call; not called: 1 contact on the do-not-call list');
    assert.match(lines[1]!, /^hiwar campaign: starting a server for the campaign's calls, with the embedded sandbox \(no HIWAR_API_KEY\); seconds, up to a minute on a busy machine…$/);
    // The embedded sandbox is taught the agent's intent examples, as hiwar serve's is.
    assert.match(lines[2]!, /^\(no HIWAR_API_KEY: starting the embedded sandbox and teaching its recognizer \d+ phrases?…/);
    assert.match(lines[3]!, /^agent "call-centre" at http:\/\/127\.0\.0\.1:\d+, reached as https:\/\/calls\.example\.com; .*; the embedded sandbox at http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    assert.match(lines[4]!, /^campaign quiet: running in this process/);
    // The unreachable API took no call: none counted as placed, and the status says why.
    assert.match(r.stdout, /^campaign quiet: done, 2 contacts, 0 calls placed$/m);
    assert.match(r.stdout, /^ {2}not dialled: platform-unreachable 1 \(/m);
    const results = await readFile(join(dir, 'results.csv'), 'utf8');
    assert.match(results, /\+966500000002,0,do-not-call/, 'the listed contact is recorded, never dialled');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("a campaign's status and its count to call read in words that agree with their numbers", () => {
  const meta = { id: 'c', state: 'done' as const, createdAt: new Date(0).toISOString(), concurrency: 1, retries: 0, retryAfterMs: 0, retryOn: [] };
  assert.equal(describe({ ...meta, total: 1, dials: 1, contacts: { done: 1 }, outcomes: { completed: 1 } }).split('\n')[0], 'campaign c: done, 1 contact, 1 call placed');
  assert.equal(describe({ ...meta, total: 3, dials: 0, contacts: {}, outcomes: {} }).split('\n')[0], 'campaign c: done, 3 contacts, 0 calls placed');
  assert.equal(toCallLine(2, 0, 0), '2 contacts to call');
  assert.equal(toCallLine(1, 1, 2), '1 contact to call; not called: 1 row that cannot be called (above), 2 contacts on the do-not-call list');
});

test('GET /campaigns/:id and POST …/pause need the calls secret', async () => {
  const store = new MemoryCampaignStore();
  await store.create({ id: 'c1', state: 'running', createdAt: new Date(0).toISOString(), total: 1, concurrency: 1, retries: 0, retryAfterMs: 0, retryOn: [] }, [{ number: '+966500000001', variables: {} }]);
  const agent = { name: 'a', instructions: 'x', greeting: 'أهلًا', voice: { voice_id: 'ar-hijazi-female-1' }, outOfServiceLine: 'x' };
  const app = await createAgentServer({ agent, plugins: [campaignRoutes({ store, secret: 's3cret' })], open: true, logger: createLogger('silent'), port: 0, host: '127.0.0.1' });
  try {
    const { url } = await app.listen();
    const auth = { authorization: 'Bearer s3cret' };
    assert.equal((await fetch(`${url}/campaigns/c1`)).status, 401, 'open or not, the secret is needed');
    const got = await fetch(`${url}/campaigns/c1`, { headers: auth });
    assert.equal(got.status, 200);
    assert.deepEqual(((await got.json()) as { contacts: unknown }).contacts, { pending: 1 });
    assert.equal((await fetch(`${url}/campaigns/c2`, { headers: auth })).status, 404);
    const paused = await fetch(`${url}/campaigns/c1/pause`, { method: 'POST', headers: auth });
    assert.deepEqual(await paused.json(), { id: 'c1', state: 'paused' });
    assert.equal((await fetch(`${url}/campaigns/c1/pause`, { method: 'POST', headers: auth })).status, 409);
    assert.equal((await store.meta('c1'))!.state, 'paused');
  } finally {
    await app.close();
  }
  const closed = await createAgentServer({ agent, plugins: [campaignRoutes({ store, secret: '' })], open: true, logger: createLogger('silent'), port: 0, host: '127.0.0.1' });
  try {
    const { url } = await closed.listen();
    assert.equal((await fetch(`${url}/campaigns/c1`, { headers: { authorization: 'Bearer ' } })).status, 403, 'no secret: closed');
  } finally {
    await closed.close();
  }
});

test('hiwar serve with REDIS_URL answers for the cluster\'s campaigns: GET /campaigns/:id, /results and pause, behind HIWAR_CALLS_SECRET', async () => {
  const [redis, sandbox] = await Promise.all([startRedis(), runSandbox()]);
  const queue = new CampaignQueue(redis.url);
  let child: ChildProcess | undefined;
  try {
    await queue.start({ id: 'autumn', contacts: [{ number: '+966500000001', variables: { name: 'سارة' }, line: 2 }], settings: campaignSettings({ concurrency: 2 }), agent: 'reminder' });
    const secret = 'serve-campaigns-secret-0123456789';
    // The test's sandbox as the service (the embedded one would start in the child, slowly on a loaded machine).
    const env = { ...process.env, HIWAR_API_KEY: sandbox.key, HIWAR_BASE_URL: sandbox.sandbox.url, HIWAR_KEY_SESSIONS: '9', REDIS_URL: redis.url, HIWAR_CALLS_SECRET: secret, HIWAR_LOG_LEVEL: 'warn' };
    child = spawn(process.execPath, [BIN, 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    await waitFor(() => /campaigns +GET \/campaigns\/:id/.test(out) || child!.exitCode !== null, 'hiwar serve started', 120_000, () => out);
    assert.match(out, /campaigns +GET \/campaigns\/:id\[\/results\], POST \/campaigns\/:id\/pause\|resume\|cancel need the same secret/);
    const url = /at (http:\/\/[\d.]+:\d+)/.exec(out)![1]!;
    const auth = { authorization: `Bearer ${secret}` };
    assert.equal((await fetch(`${url}/campaigns/autumn`)).status, 401);
    const status = await fetch(`${url}/campaigns/autumn`, { headers: auth });
    assert.equal(status.status, 200);
    const s = (await status.json()) as { id: string; total: number; concurrency: number; contacts: Record<string, number> };
    assert.deepEqual([s.id, s.total, s.concurrency, s.contacts], ['autumn', 1, 2, { pending: 1 }]);
    const results = await fetch(`${url}/campaigns/autumn/results`, { headers: auth });
    assert.match(results.headers.get('content-type') ?? '', /^text\/csv/);
    assert.match(await results.text(), /^campaign,line,number,attempt,outcome[^\n]*\nautumn,2,\+966500000001,0,pending,/);
    const json = (await (await fetch(`${url}/campaigns/autumn/results?format=json`, { headers: auth })).json()) as { number: string; variables: Record<string, string> }[];
    assert.deepEqual(json.map((r) => [r.number, r.variables.name]), [['+966500000001', 'سارة']]);
    assert.deepEqual(await (await fetch(`${url}/campaigns/autumn/pause`, { method: 'POST', headers: auth })).json(), { id: 'autumn', state: 'paused' });
    assert.equal((await queue.store.meta('autumn'))!.state, 'paused', 'the pause is the cluster\'s');
    assert.equal((await fetch(`${url}/campaigns/winter`, { headers: auth })).status, 404);
  } finally {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGKILL');
      await exited;
    }
    await queue.close();
    await redis.stop();
    await sandbox.close();
  }
});

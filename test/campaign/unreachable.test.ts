/**
 * A campaign whose platform's REST API cannot be reached ends the same way however it runs (in
 * the `hiwar campaign start` process, or queued on Redis for `hiwar campaign worker`): each
 * attempt `failed` (retried as `failed` is), `notPlaced: 'platform-unreachable'`, and no call
 * counted as placed, since none reached the platform. Only a request wrong as given is `invalid`;
 * an empty HIWAR_CALL_PLATFORM (set, blank) is no setting, not "several platforms are configured".
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { describe } from '../../src/cli/campaign.ts';
import { platformRequest } from '../../transports/telephony/outbound/http.ts';
import { DialError } from '../../transports/telephony/outbound/types.ts';
import { notPlacedOf } from '../../transports/telephony/campaign/dialer.ts';
import { statusOf } from '../../src/campaign/store.ts';
import type { ContactState } from '../../src/campaign/types.ts';
import { Deadline } from '../helpers/deadline.ts';
import { hiwar } from '../helpers/processes.ts';
import { freePort, startRedis } from '../helpers/redis.ts';

const BIN = new URL('../../bin/hiwar.js', import.meta.url).pathname;
const contact = { number: '+966500000001', variables: {} };
const meta = { id: 'c', state: 'done' as const, total: 2, createdAt: '', concurrency: 1, retries: 1, retryAfterMs: 1000, retryOn: ['failed' as const] };

test('calls placed count the dials the platform took: not those it refused or could not be reached for, nor invalid ones (a record from before notPlaced included)', () => {
  const states: ContactState[] = [
    { index: 0, contact, status: 'done', notBefore: 0, attempts: [{ attempt: 1, startedAt: 0, outcome: 'failed', notPlaced: 'platform-unreachable' }, { attempt: 2, startedAt: 1, outcome: 'completed', callId: 'out-1' }] },
    { index: 1, contact, status: 'done', notBefore: 0, attempts: [{ attempt: 1, startedAt: 0, outcome: 'invalid' }, { attempt: 2, startedAt: 0, outcome: 'failed', notPlaced: 'platform-refused' }] },
  ];
  const s = statusOf(meta, states);
  assert.equal(s.dials, 1);
  assert.deepEqual(s.notPlaced, { 'platform-unreachable': 1, 'platform-refused': 1 });
  assert.match(describe(s), /2 contacts, 1 call placed\n.*\n.*\n {2}not dialled: platform-unreachable 1, platform-refused 1/);
  assert.equal(statusOf(meta, [states[0]!].map((c) => ({ ...c, attempts: c.attempts.slice(1) }))).notPlaced, undefined, 'said only when some dial reached no platform');
});

test('a malformed API address is out of reach too, said as such: never a bare Invalid URL', async () => {
  const err = await platformRequest('twilio', '127.0.0.1:9/2010-04-01/Accounts/AC1/Calls.json', { headers: {}, body: '' }, ['secret-token']).catch((e) => e);
  assert.ok(err instanceof DialError, String(err));
  assert.equal(err.status, 0);
  assert.match(err.message, /^the call could not be placed through twilio: could not reach "127\.0\.0\.1:9\/2010-04-01\/Accounts\/AC1\/Calls\.json" \(not a URL: check the platform's API address\)/);
  assert.equal(notPlacedOf(err), 'platform-unreachable');
});

test("an unreachable Twilio API: failed, not dialled, 0 calls placed, in process and on Redis's workers alike", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'hiwar-unreachable-'));
  const redis = await startRedis();
  try {
    // An agent with no intents: the embedded sandbox has nothing to learn, so it starts at once.
    await writeFile(join(dir, 'agent.mjs'), "export default { name: 'reminder', instructions: 'تذكير', greeting: 'مرحبًا', voice: { voice_id: 'ar-hijazi-female-1' }, outOfServiceLine: 'الخدمة غير متاحة.' };\n");
    await writeFile(join(dir, 'contacts.csv'), 'number\n+966500000001\n');
    // Nothing listens there: the dial request is refused by the machine, not by Twilio.
    const api = `http://127.0.0.1:${await freePort()}`;
    const env = { HIWAR_LOG_LEVEL: 'warn', TWILIO_ACCOUNT_SID: 'AC0123456789abcdef0123456789abcdef', TWILIO_AUTH_TOKEN: 'unreachable-test-token', HIWAR_TWILIO_API_URL: api, HIWAR_CALL_FROM: '+966110000000', HIWAR_PUBLIC_URL: 'https://calls.example.com', REDIS_URL: '' };
    const common = ['--agent', join(dir, 'agent.mjs'), '--retries', '0', '--port', '0'];

    const here = await hiwar(['campaign', 'start', join(dir, 'contacts.csv'), ...common, '--id', 'here', '--results', join(dir, 'here.csv')], env, 180_000);
    assert.equal(here.code, 0, `${here.stdout}\n${here.stderr}`);
    assert.match(here.stdout, /campaign here: done, 1 contact, 0 calls placed\n {2}contacts: done 1\n {2}outcomes: failed 1\n {2}not dialled: platform-unreachable 1/);
    const row = (await readFile(join(dir, 'here.csv'), 'utf8')).split('\n')[1]!;
    // fetch's bare "fetch failed" comes with its cause: what a user can act on.
    assert.match(row, /^here,2,\+966500000001,1,failed,true,.*the call could not be placed through twilio: could not reach http:\/\/127\.0\.0\.1:\d+: fetch failed \(ECONNREFUSED\)/);

    // The other setup of this bug: HIWAR_CALL_PLATFORM set but empty (an .env line left blank) made every
    // dial "several platforms are configured (twilio)", invalid; the CLI's own check reads it as unset.
    const onRedis = { ...env, REDIS_URL: redis.url, HIWAR_CALL_PLATFORM: '' };
    const queued = await hiwar(['campaign', 'start', join(dir, 'contacts.csv'), '--retries', '0', '--id', 'queued'], onRedis);
    assert.equal(queued.code, 0, queued.stderr);
    const worker = spawn(process.execPath, [BIN, 'campaign', 'worker', ...common], { env: { ...process.env, HIWAR_API_KEY: '', ...onRedis }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    worker.stdout.on('data', (d) => (out += d));
    worker.stderr.on('data', (d) => (out += d));
    const exited = once(worker, 'exit');
    let status: { state: string; dials: number; outcomes: Record<string, number>; notPlaced?: Record<string, number> } | undefined;
    try {
      const deadline = new Deadline(180_000);
      while (status?.state !== 'done') {
        if (deadline.expired || worker.exitCode !== null) assert.fail(`the worker did not finish the campaign:\n${out}\n${JSON.stringify(status)}`);
        await new Promise((r) => setTimeout(r, 500));
        const s = await hiwar(['campaign', 'status', 'queued', '--json'], onRedis);
        if (s.code === 0) status = JSON.parse(s.stdout);
      }
    } finally {
      worker.kill('SIGTERM');
      await exited;
    }
    assert.deepEqual([status.dials, status.outcomes, status.notPlaced], [0, { failed: 1 }, { 'platform-unreachable': 1 }], 'the same as in process');
  } finally {
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

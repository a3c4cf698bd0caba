import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { verifyWebhook } from '../../src/analytics/webhook.ts';
import { Redis } from 'ioredis';
import { RedisSemaphore } from '../../src/cluster/semaphore.ts';
import { budgetGate, CampaignQueue, jobIdOf } from '../../src/campaign/queue.ts';
import type { CampaignResult } from '../../src/campaign/results.ts';
import { campaignSettings } from '../../src/campaign/schedule.ts';
import { isOpen, parseWindow } from '../../src/campaign/window.ts';
import { startRedis } from '../helpers/redis.ts';
import { startPhoneNetwork } from './phone-network.ts';
import { CAIRO_INDEX, contacts, DNC_INDEX, expected, numberOf } from './script.ts';
import { Deadline } from '../helpers/deadline.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const CHILD = new URL('./worker-child.ts', import.meta.url).pathname;
const SECRET = 'whsec-campaign-test';
const H = 3600_000;
// One real second is one campaign hour: a call of 300 ms lasts 18 campaign minutes, a retry after 2 h comes 2 s later.
const SPEED = 3600;

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = new Deadline(timeoutMs);
  while (!(await check())) {
    if (deadline.expired) throw new Error(`timed out waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('on Redis and BullMQ, two worker processes, one killed (SIGKILL) mid-call: 20 contacts, window, concurrency 3; every outcome right, nothing dialled twice or lost, retries at the right times, the do-not-call number never dialled', async () => {
  const redis = await startRedis();
  const net = await startPhoneNetwork(300);
  const deliveries: { body: string; headers: Record<string, string | string[] | undefined> }[] = [];
  const hook = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => (deliveries.push({ body: Buffer.concat(parts).toString(), headers: req.headers }), res.writeHead(204).end()));
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  const queue = new CampaignQueue(redis.url);
  const children: ChildProcess[] = [];
  // Sunday 08:59 in Riyadh, a minute before the window opens.
  const clock = { origin: Date.now(), start: Date.parse('2026-11-29T05:59:00Z') };
  const now = () => clock.start + (Date.now() - clock.origin) * SPEED;
  const worker = async (name: string) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, REDIS_URL: redis.url, NETWORK_URL: net.url, WEBHOOK_URL: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hooks`, WEBHOOK_SECRET: SECRET, WORKER_NAME: name, CLOCK_ORIGIN: String(clock.origin), CLOCK_START: String(clock.start), CLOCK_SPEED: String(SPEED) },
    });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    await until(() => out.includes(`ready ${name}`) || child.exitCode !== null, `worker ${name} ready`, 60_000);
    assert.ok(out.includes(`ready ${name}`), out);
    return child;
  };
  try {
    const [a] = await Promise.all([worker('a'), worker('b')]);
    const window = parseWindow('Sun-Thu 09:00-21:00 Asia/Riyadh');
    const meta = await queue.start({ id: 'sunday', contacts: contacts(), settings: campaignSettings({ window, concurrency: 3, retries: 2, retryAfterMs: 2 * H }), doNotCall: [numberOf(DNC_INDEX)] }, now());

    // Worker a dies while a call it placed is under way.
    await until(() => net.calls.filter((c) => c.worker === 'a' && !c.ended).length > 0 && net.calls.length >= 4, 'worker a has a call under way');
    const exited = new Promise((r) => a!.once('exit', r));
    a!.kill('SIGKILL');
    await exited;
    const orphaned = net.calls.filter((c) => c.worker === 'a' && !c.ended).map((c) => c.dialId);
    assert.ok(orphaned.length > 0);

    await until(async () => (await queue.store.meta(meta.id))?.state === 'done', 'the campaign is done', 240_000);
    const states = await queue.store.contacts(meta.id);

    // The platform's view: each (contact, attempt) placed once, never the do-not-call number, never more than 3 at once.
    const ids = net.calls.map((c) => c.dialId);
    assert.equal(new Set(ids).size, ids.length, `no attempt dialled twice: ${ids.join(' ')}`);
    assert.ok(!net.calls.some((c) => c.index === DNC_INDEX), 'the do-not-call number was never dialled');
    assert.ok(net.most <= 3, `at most 3 calls at once (saw ${net.most})`);
    // The window is checked on the time the attempt was claimed, right before the dial: at this
    // clock's 3600x, the few real milliseconds a starved worker takes to reach the network are minutes.
    for (const c of net.calls) {
      const at = states.find((x) => x.index === c.index)?.attempts.find((a) => a.attempt === c.attempt)?.startedAt;
      assert.ok(at !== undefined && isOpen(window, at, c.index === CAIRO_INDEX ? 'Africa/Cairo' : undefined), `${c.dialId} claimed at ${at === undefined ? '(no record)' : new Date(at).toISOString()}, inside the window (reached the network at ${new Date(c.at).toISOString()})`);
    }

    // Worker a may die between recording an attempt as started and placing it: the platform never
    // saw that dial and cannot say how it went, so the attempt ends as failed-unknown and is never
    // dialled again (never blindly). Which attempts, if any, depends on when the kill lands.
    const placed = new Set(ids);
    const unplaced = new Map(states.flatMap((s) => s.attempts.filter((x) => !placed.has(`${meta.id}:${s.index}:${x.attempt}`)).map((x) => [s.index, x.attempt] as const)));
    assert.ok(unplaced.size <= 3, `only calls the killed worker held can be unplaced: ${[...unplaced].join(' ')}`);
    const wanted = (index: number): { outcome: string; attempts: number } => {
      const lost = unplaced.get(index);
      return lost !== undefined ? { outcome: 'failed-unknown', attempts: lost } : expected(index);
    };
    // The campaign's record: every outcome right, retries 2 h after the previous call ended at the earliest.
    for (const s of states) {
      const want = wanted(s.index);
      assert.equal(s.status === 'do-not-call' ? 'do-not-call' : s.attempts.at(-1)?.outcome, want.outcome, `contact ${s.index}`);
      assert.deepEqual(s.attempts.map((x) => x.attempt), Array.from({ length: want.attempts }, (_, k) => k + 1), `contact ${s.index}'s attempts`);
      assert.equal(net.calls.filter((c) => c.index === s.index).length, want.attempts - (unplaced.has(s.index) ? 1 : 0), `contact ${s.index} placed as often as attempted`);
      for (let k = 1; k < s.attempts.length; k++) assert.ok(s.attempts[k]!.startedAt >= s.attempts[k - 1]!.endedAt! + 2 * H, `contact ${s.index}'s retry ${k + 1}`);
      assert.equal(s.unreported, undefined);
    }
    // The calls worker a left behind were resolved as the platform reported them.
    for (const id of orphaned) {
      const [, index, attempt] = id.split(':').map(Number);
      const saved = states[index!]!.attempts.find((x) => x.attempt === attempt)!;
      assert.equal(saved.outcome, net.calls.find((c) => c.dialId === id)!.ended!.outcome, `${id} resolved from the platform`);
    }
    assert.equal(await queue.queue.getCompletedCount(), 20);
    assert.ok(!(await queue.queue.getJob(jobIdOf(meta.id, 0)))?.failedReason);

    // Every result reached the webhook, signed (at least once: the dial id names repeats).
    const got = new Map<string, CampaignResult>();
    for (const d of deliveries) {
      assert.ok(verifyWebhook(d.body, d.headers, SECRET), 'signed');
      const r = JSON.parse(d.body) as CampaignResult;
      got.set(`${r.dialId}:${r.final}`, r);
    }
    for (const s of states) {
      const finals = [...got.values()].filter((r) => r.index === s.index && r.final);
      assert.equal(finals.length, 1, `contact ${s.index}'s final result delivered`);
      assert.equal(finals[0]!.outcome, wanted(s.index).outcome);
    }
    assert.equal([...got.values()].filter((r) => r.attempt > 0).length, net.calls.length + unplaced.size, 'a result for every attempt');
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    await queue.close();
    await new Promise((r) => hook.close(r));
    await net.close();
    await redis.stop();
  }
});

test("the key's budget gate lets a call through only while the cluster's slots have room for one more", async () => {
  const redis = await startRedis();
  const client = new Redis(redis.url);
  try {
    const semaphore = new RedisSemaphore({ redis: client, key: 'hiwar:slots:test', limit: 6, leaseMs: 60_000, holder: 'serve-1' });
    const gate = budgetGate(semaphore, 3);
    assert.ok(await gate.tryAcquire('c', 1), 'an empty budget: room');
    const held = await semaphore.tryAcquire(4);
    assert.ok(held);
    assert.equal(await gate.tryAcquire('c', 1), undefined, '4 of 6 taken: no room for a call of 3');
    await held.release();
    assert.ok(await gate.tryAcquire('c', 1));
    assert.equal(await semaphore.used(), 0, 'the gate checks, it holds nothing');
  } finally {
    client.disconnect();
    await redis.stop();
  }
});

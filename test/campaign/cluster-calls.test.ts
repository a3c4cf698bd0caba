/**
 * The 20-contact campaign on Redis and BullMQ with real calls: two `hiwar campaign worker`
 * processes (test/campaign/cli-worker-child.ts), each with its own agent server behind one
 * balancer, place the calls through Twilio's REST API faked from its documentation; every
 * answered call's media streams back through the balancer to an instance, with a scripted far end
 * (a person, a voicemail and its beep, a carrier's announcement; busy, no answer and failed lines
 * never answer). One worker is killed (SIGKILL) while a call it placed is under way: its job
 * comes back to the other worker, which finds the call by its dial id in Redis and learns from
 * the platform's callbacks (retried to the live instance, as platforms retry webhooks) how it
 * ended. The platform's own request log says what was dialled.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { verifyWebhook } from '../../src/analytics/webhook.ts';
import { CampaignQueue, jobIdOf } from '../../src/campaign/queue.ts';
import type { CampaignResult } from '../../src/campaign/results.ts';
import { campaignSettings } from '../../src/campaign/schedule.ts';
import { isOpen, parseWindow } from '../../src/campaign/window.ts';
import { SteadyScaledClock } from '../../src/testing/steady-clock.ts';
import { Deadline } from '../helpers/deadline.ts';
import { freePort, startRedis } from '../helpers/redis.ts';
import { FarEnd } from '../telephony/far-end.ts';
import { FakePlatforms, testKeys, type MediaLeg, type Scenario } from '../telephony/outbound/fake-platforms.ts';
import { campaignFixture, writeAgent } from './campaign-calls.ts';
import { CAIRO_INDEX, contacts, DNC_INDEX, expected, numberOf, outcomeOf } from './script.ts';

delete process.env.HIWAR_API_KEY;

const ROOT = new URL('../..', import.meta.url).pathname;
const CHILD = new URL(`./cli-worker-child${extname(new URL(import.meta.url).pathname)}`, import.meta.url).pathname;
const SECRET = 'whsec-campaign-calls-test';
const MIN = 60_000;
// Two real minutes are a campaign hour: a call of 10 s lasts 20 campaign minutes, a retry after 10 minutes comes 5 s later.
const SPEED = 120;
const FROM = { a: '+966110000001', b: '+966110000002' };

const trace = (m: string) => process.env.HIWAR_CALLS_TRACE && appendFileSync(process.env.HIWAR_CALLS_TRACE, `${new Date().toISOString()} ${m}\n`);

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 180_000): Promise<void> {
  const deadline = new Deadline(timeoutMs);
  while (!(await check())) {
    if (deadline.expired) throw new Error(`timed out waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * A TCP balancer in front of the instances: each connection to the first instance that takes it
 * (the first while it lives), so until the kill every callback and every media stream reaches
 * worker a, whichever worker dialled, and afterwards worker b.
 */
async function balancer(ports: number[]): Promise<{ port: number; close(): Promise<void> }> {
  const open = new Set<Socket>();
  const server = createTcpServer((inbound) => {
    inbound.pause();
    open.add(inbound);
    inbound.on('close', () => open.delete(inbound));
    inbound.on('error', () => {});
    const order = ports;
    const attempt = (i: number) => {
      if (i >= order.length) return inbound.destroy();
      const out = connect(order[i]!, '127.0.0.1');
      open.add(out);
      let up = false;
      out.once('connect', () => {
        up = true;
        inbound.pipe(out);
        out.pipe(inbound);
        inbound.resume();
      });
      out.on('error', () => (up ? inbound.destroy() : attempt(i + 1)));
      out.on('close', () => (open.delete(out), up && inbound.destroy()));
      inbound.on('close', () => out.destroy());
    };
    attempt(0);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((r) => (open.forEach((s) => s.destroy()), server.close(() => r()))),
  };
}

/** The most calls the platform had at once between `from` (dialled or answered) and their hang-up, and which. */
function mostAtOnce(log: FakePlatforms['log'], from: 'dialled' | 'answered'): { most: number; at: number; ids: string[] } {
  const now = new Set<string>();
  let best = { most: 0, at: 0, ids: [] as string[] };
  for (const e of [...log].sort((x, y) => x.at - y.at)) {
    if (e.event === from) now.add(e.id);
    else if (e.event === 'hangup') now.delete(e.id);
    if (now.size > best.most) best = { most: now.size, at: e.at, ids: [...now] };
  }
  return best;
}

const fixture = campaignFixture();

/** The platform ids of the calls whose session summary the cluster's records hold (Redis, `hiwar:outbound:<id>:changes`). */
async function summarisedCalls(url: string): Promise<Set<string>> {
  const r = new Redis(url);
  try {
    const found = new Set<string>();
    for (const key of await r.keys('hiwar:outbound:*:changes')) {
      const changes = (await r.lrange(key, 0, -1)).map((raw) => JSON.parse(raw) as { kind: string; platformCallId?: string; update?: { platformCallId?: string } });
      const sid = changes.map((c) => c.platformCallId ?? c.update?.platformCallId).find(Boolean);
      if (sid && changes.some((c) => c.kind === 'session')) found.add(sid);
    }
    return found;
  } finally {
    r.disconnect();
  }
}

test('on Redis and BullMQ with real calls: two hiwar campaign worker processes behind a balancer, one killed (SIGKILL) mid-call; 20 contacts, window, concurrency 3; every outcome and who answered right, nothing dialled twice or lost (the platform\'s log), retries at the right times, the do-not-call number never dialled', async () => {
  const redis = await startRedis();
  const dir = await mkdtemp(join(tmpdir(), 'hiwar-campaign-cluster-'));
  const keys = testKeys();
  const clock = new SteadyScaledClock(2);
  const indexOf = (n: string) => Array.from({ length: 20 }, (_, i) => i).find((i) => numberOf(i) === n)!;
  // The platform's view of each call: whose dial, which attempt, the far end's phone, and whether it is under way.
  const calls = new Map<string, { index: number; attempt: number; from: string; answered: boolean; over: boolean; media: 'none' | 'opening' | 'open' | 'closed' | 'failed' }>();

  async function farEnd(leg: MediaLeg): Promise<void> {
    const call = calls.get(leg.platformCallId)!;
    call.answered = true;
    const a = await fixture.audio(leg.protocol.rate);
    const far = new FarEnd(leg.streamUrl, leg.protocol, clock);
    call.media = 'opening';
    try {
      await far.start();
    } catch (err) {
      // The instance died as the stream opened: the call goes on without media until the platform ends it.
      call.media = 'failed';
      trace(`media ${leg.platformCallId} failed to open: ${(err as Error).message}`);
      return;
    }
    call.media = 'open';
    void far.closed.then(() => (call.media = 'closed'));
    const outcome = outcomeOf(call.index, call.attempt);
    trace(`media ${leg.platformCallId} contact ${call.index} attempt ${call.attempt} (${outcome}) from ${call.from}`);
    void far.closed.then(() => trace(`media ${leg.platformCallId} closed`));
    if (outcome === 'completed') {
      // A person: "ألو", then hangs up once the agent has begun to answer (or the line died with its instance).
      await Promise.race([far.say(a.alo!), far.closed]);
      await far.until(() => far.played > 0.5 || call.media === 'closed', 60_000).catch(() => {});
    } else {
      // A voicemail or a carrier: plays its recording; the agent hangs up.
      await Promise.race([far.say(outcome === 'machine-voicemail' ? a.voicemail! : a.carrier!), far.closed]);
      await Promise.race([far.closed, new Promise((r) => setTimeout(r, 60_000).unref())]);
    }
    far.hangup();
    trace(`media ${leg.platformCallId} done, heard ${far.played.toFixed(1)} s`);
  }

  const fake = await new FakePlatforms(keys, {
    scenario: (to: string, id: string): Scenario => {
      const index = indexOf(to);
      const dial = fake.received.filter((r) => r.form?.get('To') === to);
      calls.set(id, { index, attempt: dial.length, from: dial.at(-1)!.form!.get('From')!, answered: false, over: false, media: 'none' });
      const underWay = [...calls.keys()].filter((k) => !fake.over.has(k));
      trace(`dial ${id} contact ${index} attempt ${dial.length} from ${calls.get(id)!.from}; under way: ${underWay.join(' ')}`);
      const o = outcomeOf(index, dial.length);
      return o === 'busy' || o === 'no-answer' || o === 'failed' ? o : 'answer';
    },
    onMedia: farEnd,
    durationS: 20,
    callbackRetries: 10,
  }).start();
  let failed: (err: Error) => void = () => {};
  // A call's life that broke (a far end, a callback nobody took) would leave the campaign waiting for ever: fail then, saying why.
  const broken = new Promise<never>((_, reject) => (failed = reject));
  let seenCallbacks = 0;
  const watch = setInterval(() => {
    for (const cb of fake.callbacks.slice(seenCallbacks)) trace(`callback ${cb.status} → ${cb.answered} ${cb.url.replace(/\/[^/]{40,}/, '/…')}`);
    seenCallbacks = fake.callbacks.length;
    for (const [id, c] of calls) if (!c.over && fake.finished.has(id)) (c.over = true), trace(`over ${id}`);
    if (fake.errors.length) failed(new Error(`a call's life failed: ${fake.errors.join('; ')}`));
  }, 20);

  const deliveries: { body: string; headers: Record<string, string | string[] | undefined> }[] = [];
  const hook: Server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => (deliveries.push({ body: Buffer.concat(parts).toString(), headers: req.headers }), res.writeHead(204).end()));
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  const ports = { a: await freePort(), b: await freePort() };
  const lb = await balancer([ports.a, ports.b]);
  const queue = new CampaignQueue(redis.url);
  const children: ChildProcess[] = [];
  // Sunday 08:59:50 in Riyadh, ten campaign seconds before the window opens.
  const time = { origin: Date.now(), start: Date.parse('2026-11-29T05:59:50Z') };
  const now = () => time.start + (Date.now() - time.origin) * SPEED;
  const agentFile = join(dir, 'reminder.mjs');
  await writeAgent(agentFile);
  const worker = async (name: 'a' | 'b') => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        REDIS_URL: redis.url,
        SANDBOX_URL: fixture.sandbox.sandbox.url,
        SANDBOX_KEY: fixture.sandbox.key,
        AGENT_FILE: agentFile,
        WORKER_NAME: name,
        WORKER_FROM: FROM[name],
        WORKER_PORT: String(ports[name]),
        PUBLIC_URL: `http://127.0.0.1:${lb.port}`,
        TWILIO_ACCOUNT_SID: keys.twilio.accountSid,
        TWILIO_AUTH_TOKEN: keys.twilio.authToken,
        HIWAR_TWILIO_API_URL: fake.url,
        HIWAR_CALLS_SECRET: 'campaign-cluster-calls-secret-0123456789',
        // Every instance takes the media tokens and callbacks any of them minted.
        HIWAR_MEDIA_SECRET: 'media-secret-shared-by-the-instances-0123',
        HIWAR_ANALYTICS_WEBHOOK_URL: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hooks`,
        HIWAR_ANALYTICS_SECRET: SECRET,
        CLOCK_ORIGIN: String(time.origin),
        CLOCK_START: String(time.start),
        CLOCK_SPEED: String(SPEED),
      },
    });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    await until(() => out.includes('taking campaign calls') || child.exitCode !== null, `worker ${name} ready`, 120_000);
    assert.ok(out.includes('taking campaign calls'), out);
    return child;
  };
  try {
    const [a] = await Promise.all([worker('a'), worker('b')]);
    const window = parseWindow('Sun-Thu 09:00-21:00 Asia/Riyadh');
    const meta = await queue.start({ id: 'sunday', contacts: contacts(), settings: campaignSettings({ window, concurrency: 3, retries: 2, retryAfterMs: 10 * MIN }), doNotCall: [numberOf(DNC_INDEX)] }, now());

    // Worker a dies while a call it placed is answered and its media stream (on a) is open.
    await until(() => fake.received.length >= 4 && [...calls.values()].some((c) => c.from === FROM.a && c.media === 'open'), 'worker a has an answered call under way');
    const exited = new Promise((r) => a!.once('exit', r));
    a!.kill('SIGKILL');
    const killedAt = performance.now();
    await exited;
    trace('worker a killed');
    // The calls whose session ran on worker a when it died (every stream was on a until then): those
    // under way, and those just over whose summary a had not yet recorded (it died with a).
    const summarised = await summarisedCalls(redis.url);
    const atKill = new Set([...calls].filter(([id, c]) => c.answered && (!c.over || !summarised.has(id))).map(([id]) => id));
    trace(`at the kill: sessions lost ${[...atKill].join(' ')}; summaries recorded ${[...summarised].join(' ')}`);
    assert.ok(atKill.size > 0);

    await Promise.race([until(async () => (await queue.store.meta(meta.id))?.state === 'done', 'the campaign is done', 600_000), broken]);
    const states = await queue.store.contacts(meta.id);
    assert.deepEqual(fake.errors, [], "every call's life ran to its end");
    // …and those whose stream could not open as a died: no session heard them either.
    const orphaned = [...calls].filter(([id, c]) => atKill.has(id) || c.media === 'failed').map(([id, c]) => ({ id, ...c }));
    // The workers spend media tokens in Redis, so either can tell that an answered call's media
    // came to the other (else a worker hung up, for want of media, a call running on the other).
    const opened = [...calls.values()].filter((c) => c.media === 'open' || c.media === 'closed').length;
    const spentInRedis = await (async () => {
      const r = new Redis(redis.url);
      try {
        return (await r.keys('hiwar:spent:call:twilio:*')).length;
      } finally {
        r.disconnect();
      }
    })();
    assert.ok(spentInRedis >= opened, `${spentInRedis} media tokens spent in Redis for ${opened} media streams that opened`);

    // The platform's view: each (contact, attempt) dialled once, never the do-not-call number.
    const dialled = [...calls.values()].map((c) => `${c.index}:${c.attempt}`);
    assert.equal(dialled.length, fake.received.length, 'one call per REST request');
    assert.ok(!fake.received.some((r) => r.form?.get('To') === numberOf(DNC_INDEX)), 'the do-not-call number was never dialled');
    // Never more than 3 calls at once, across the kill (the dead worker's calls kept their slots), from
    // the platform's own log: answered to hung up, and even dialled to hung up.
    const live = mostAtOnce(fake.log, 'answered');
    const placedAtOnce = mostAtOnce(fake.log, 'dialled');
    trace(`most at once: ${live.most} answered, ${placedAtOnce.most} dialled (at ${placedAtOnce.at.toFixed(0)} ms, the kill at ${killedAt.toFixed(0)} ms)`);
    assert.ok(placedAtOnce.most >= 2, `the campaign ran calls side by side (saw ${placedAtOnce.most})`);
    assert.ok(live.most <= 3, `at most 3 calls answered and not hung up at once (saw ${live.most}: ${live.ids.join(' ')})`);
    assert.ok(placedAtOnce.most <= 3, `at most 3 calls dialled and not hung up at once (saw ${placedAtOnce.most}: ${placedAtOnce.ids.join(' ')})`);
    assert.ok(fake.log.some((e) => e.event === 'hangup' && e.at > killedAt) && fake.log.some((e) => e.event === 'dialled' && e.at > killedAt), 'calls went on after the kill');
    for (const c of calls.values()) {
      const at = states.find((x) => x.index === c.index)?.attempts.find((x) => x.attempt === c.attempt)?.startedAt;
      assert.ok(at !== undefined && isOpen(window, at, c.index === CAIRO_INDEX ? 'Africa/Cairo' : undefined), `contact ${c.index} attempt ${c.attempt} claimed at ${at === undefined ? '(no record)' : new Date(at).toISOString()}, inside the window`);
    }

    // Worker a may die between recording an attempt as started and placing it: the platform never
    // saw that dial, so the attempt ends as failed-unknown and is never dialled again (never blindly).
    const placed = new Set(dialled);
    // A dial request that never reached the platform (its connection failed: on a loaded machine a
    // kept-alive connection can be closed by the server just as it is reused) is a `failed`
    // attempt, retried as any other; the platform numbers its dials without it.
    type State = (typeof states)[number];
    const failedDial = (x: State['attempts'][number]) => x.outcome === 'failed' && /could not reach/.test(x.error ?? '');
    const platformNo = (s: State, attempt: number) => attempt - s.attempts.filter((y) => y.attempt < attempt && failedDial(y)).length;
    const failedDials = states.reduce((n, s) => n + s.attempts.filter(failedDial).length, 0);
    assert.ok(failedDials <= 3, `${failedDials} dial requests never reached the platform`);
    const unplaced = new Map(states.flatMap((s) => s.attempts.filter((x) => !failedDial(x) && !placed.has(`${s.index}:${platformNo(s, x.attempt)}`)).map((x) => [s.index, x.attempt] as const)));
    assert.ok(unplaced.size <= 3, `only calls the killed worker held can be unplaced: ${[...unplaced].join(' ')}`);
    // An answered call whose session died with worker a: who answered may be lost with it (unless
    // the session had ended and recorded it), and then the platform's word stands (completed): a
    // voicemail or a carrier ends there, not retried.
    const orphan = (index: number, attempt: number) => orphaned.some((o) => o.index === index && o.attempt === attempt);
    const attemptOf = (index: number, attempt: number) => states.find((x) => x.index === index)?.attempts.find((x) => x.attempt === attempt);
    // One whose stream never opened (a died as it opened) is hung up by the placing instance for
    // want of media (`no-media`, retried), unless the platform ended it first.
    const mediaNeverOpened = (o: (typeof orphaned)[number]) => o.media !== 'open' && o.media !== 'closed';
    for (const o of orphaned) {
      const allowed = [outcomeOf(o.index, o.attempt), 'completed', ...(mediaNeverOpened(o) ? ['no-media'] : [])];
      assert.ok(allowed.includes(attemptOf(o.index, o.attempt)?.outcome ?? ''), `contact ${o.index} attempt ${o.attempt} (media ${o.media}): ${attemptOf(o.index, o.attempt)?.outcome}`);
    }
    const noMediaOrphan = (s: State, attempt: number) => attemptOf(s.index, attempt)?.outcome === 'no-media' && orphan(s.index, attempt);
    const wanted = (index: number): { outcome: string; attempts: number } => {
      const lost = unplaced.get(index);
      if (lost !== undefined) return { outcome: 'failed-unknown', attempts: lost };
      const s = states.find((x) => x.index === index)!;
      const last = s.attempts.at(-1);
      // An attempt that failed before the platform, or an orphan hung up for want of media, is retried: the script's next attempt follows.
      if (last && s.attempts.some((x) => failedDial(x) || noMediaOrphan(s, x.attempt))) {
        const outcome = failedDial(last) ? 'failed' : noMediaOrphan(s, last.attempt) ? 'no-media' : outcomeOf(index, platformNo(s, last.attempt));
        return { outcome, attempts: s.attempts.length };
      }
      const machine = orphaned.find((o) => o.index === index && outcomeOf(index, o.attempt).startsWith('machine-') && attemptOf(index, o.attempt)?.outcome === 'completed');
      return machine ? { outcome: 'completed', attempts: machine.attempt } : expected(index);
    };
    for (const s of states) {
      const want = wanted(s.index);
      assert.equal(s.status === 'do-not-call' ? 'do-not-call' : s.attempts.at(-1)?.outcome, want.outcome, `contact ${s.index}: ${JSON.stringify(s.attempts)}; dialled ${dialled.filter((d) => d.startsWith(`${s.index}:`)).join(' ')}`);
      assert.deepEqual(s.attempts.map((x) => x.attempt), Array.from({ length: want.attempts }, (_, k) => k + 1), `contact ${s.index}'s attempts`);
      assert.equal(dialled.filter((d) => d.startsWith(`${s.index}:`)).length, want.attempts - (unplaced.has(s.index) ? 1 : 0) - s.attempts.filter(failedDial).length, `contact ${s.index} dialled as often as attempted`);
      for (const x of s.attempts) {
        const o = x.outcome ?? '';
        if (orphan(s.index, x.attempt) || unplaced.get(s.index) === x.attempt) continue;
        // Who answered, from the call's session: a person, the voicemail, the carrier.
        if (o === 'completed') assert.equal(x.amd, 'human', `contact ${s.index} attempt ${x.attempt}`);
        if (o.startsWith('machine-')) assert.equal(x.amd, o, `contact ${s.index} attempt ${x.attempt}`);
      }
      for (let k = 1; k < s.attempts.length; k++) assert.ok(s.attempts[k]!.startedAt >= s.attempts[k - 1]!.endedAt! + 10 * MIN, `contact ${s.index}'s retry ${k + 1}`);
      assert.equal(s.unreported, undefined);
    }
    assert.equal(await queue.queue.getCompletedCount(), 20);
    assert.ok(!(await queue.queue.getJob(jobIdOf(meta.id, 0)))?.failedReason);

    // Every result reached the webhook, signed (at least once: the dial id names repeats).
    const results = new Map<string, CampaignResult>();
    for (const d of deliveries) {
      assert.ok(verifyWebhook(d.body, d.headers, SECRET), 'signed');
      const r = JSON.parse(d.body) as CampaignResult;
      results.set(`${r.dialId}:${r.final}`, r);
    }
    for (const s of states) {
      const finals = [...results.values()].filter((r) => r.index === s.index && r.final);
      assert.equal(finals.length, 1, `contact ${s.index}'s final result delivered`);
      assert.equal(finals[0]!.outcome, s.status === 'do-not-call' ? 'do-not-call' : s.attempts.at(-1)!.outcome);
    }
    assert.equal([...results.values()].filter((r) => r.attempt > 0).length, dialled.length + unplaced.size + failedDials, 'a result for every attempt');
  } finally {
    clearInterval(watch);
    for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
    clock.stop();
    trace('cleanup: queue');
    await queue.close();
    trace('cleanup: servers');
    hook.closeAllConnections();
    await new Promise((r) => hook.close(r));
    await lb.close();
    await fake.close();
    trace('cleanup: redis');
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
    trace('cleanup: done');
  }
});

/**
 * A campaign end to end, as `hiwar campaign start` runs it without Redis: the command's own
 * server, Twilio's REST API faked from its documentation (test/telephony/outbound), and, for
 * every answered call, the platform's media stream connected back to the command's server with
 * a scripted far end: a person who says "ألو… نعم أنا", a voicemail greeting and its beep, a
 * carrier's tones and announcement; and phones that do not answer or are busy. The sessions run
 * on the sandbox and the stall-free clock; the campaign's own clock (window, retries) runs at a
 * minute a second.
 */
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { concatPcm, silence } from '../../src/audio/pcm.ts';
import { campaignCommand } from '../../src/cli/campaign.ts';
import { Redis } from 'ioredis';
import { csvRows } from '../../src/campaign/contacts.ts';
import { RedisCampaignStore } from '../../src/campaign/redis-store.ts';
import type { ContactState } from '../../src/campaign/types.ts';
import { isOpen, parseWindow } from '../../src/campaign/window.ts';
import { createLogger } from '../../src/session/logger.ts';
import { SteadyScaledClock } from '../../src/testing/steady-clock.ts';
import { sleepFor, type Clock } from '../../src/transport/clock.ts';
import { compose } from '../helpers/amd-audio.ts';
import { freePort, startRedis } from '../helpers/redis.ts';
import { pad, runSandbox, voiced, type Running } from '../helpers/sandbox.ts';
import { FarEnd } from '../telephony/far-end.ts';
import { FakePlatforms, testKeys, type MediaLeg, type Scenario } from '../telephony/outbound/fake-platforms.ts';

delete process.env.HIWAR_API_KEY;

type Phone = 'person' | 'voicemail' | 'carrier' | 'no-answer' | 'busy';
/** Each contact's phone, attempt by attempt (the last repeats). */
const PHONES: Record<string, { name: string; by: Phone[] }> = {
  '+966500000301': { name: 'خالد', by: ['person'] },
  '+966500000302': { name: 'سعاد', by: ['voicemail'] },
  '+966500000303': { name: 'ماجد', by: ['carrier', 'person'] },
  '+966500000304': { name: 'هند', by: ['no-answer', 'person'] },
  '+966500000305': { name: 'فهد', by: ['busy'] },
};
const DNC = '+966500000306';
const MIN = 60_000;
const VOICEMAIL = 'مرحبًا، معك بنك الواحة. نرجو أن تتصل بنا على الرقم المجاني.';
const keys = testKeys();

const trace = (m: string) => process.env.HIWAR_CALLS_TRACE && appendFileSync(process.env.HIWAR_CALLS_TRACE, `${new Date().toISOString()} ${m}\n`);

let sandbox: Running;
const audio: Record<string, Int16Array> = {};
before(async () => {
  sandbox = await runSandbox();
  const say = (text: string) => voiced(sandbox.client, text, 8000);
  // A person picks up, then says "ألو" after a moment.
  audio.alo = pad(await say('ألو'), 8000, 1.0, 0);
  audio.yes = pad(await say('نعم أنا'), 8000, 0.1, 0);
  audio.voicemail = concatPcm([await say('مرحبًا، لقد وصلت إلى البريد الصوتي، أنا غير متاح حاليًا، اترك رسالتك'), silence(0.5, 8000), compose([{ tone: 1000, ms: 400 }], 0)]);
  audio.carrier = concatPcm([compose([{ tone: 914, ms: 330 }, { tone: 1371, ms: 330 }, { tone: 1777, ms: 330 }, { silence: 200 }], 0), await say('الرقم المطلوب مغلق أو خارج نطاق التغطية')]);
});
after(() => sandbox?.close());

/** The campaign's clock: from `start`, a campaign minute per real second. */
function campaignClock(start: number, speed: number): Clock {
  const origin = Date.now();
  return { speed, now: () => start + (Date.now() - origin) * speed, sleep: (ms, signal) => sleepFor(ms / speed, signal) };
}

/** Waits until `far` has heard at least `least` s of agent audio and then none for `ms` (wall): a pause of a loaded machine's synthesis is no end of turn. */
async function quietAfterAudio(far: FarEnd, ms: number, least: number, give = 90_000): Promise<void> {
  const end = Date.now() + give;
  let last = far.played;
  let since = Date.now();
  while (Date.now() < end) {
    await new Promise((r) => setTimeout(r, 50));
    if (far.played !== last) [last, since] = [far.played, Date.now()];
    else if (last >= least && Date.now() - since >= ms) return;
  }
  throw new Error(`the far end kept hearing the agent for ${give} ms`);
}

test('hiwar campaign start in process: a person, a voicemail, a carrier announcement, no answer and busy, through Twilio with media streamed back; outcomes and who answered per contact, retries per the rules, the person greeted by name', () => runCampaign('in-process'));

test('the same campaign on Redis: hiwar campaign start enqueues it, hiwar campaign worker (BullMQ) places the calls; the calls\' records in Redis carry who answered', async () => {
  const redis = await startRedis();
  try {
    await runCampaign('bullmq', redis.url);
  } finally {
    await redis.stop();
  }
});

/** One row per attempt (and the do-not-call contact's), in the results CSV's columns. */
type Row = Record<string, string>;

async function runCampaign(mode: 'in-process' | 'bullmq', redisUrl = ''): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'hiwar-campaign-calls-'));
  const clock = new SteadyScaledClock(2);
  const dials = new Map<string, number>();
  const phoneOf = new Map<string, Phone>();
  const heard = new Map<string, { heard: number; closedByAgent: boolean }>();
  const saved = { ...process.env };

  async function farEnd(leg: MediaLeg): Promise<void> {
    const phone = phoneOf.get(leg.platformCallId)!;
    trace(`media ${leg.platformCallId} ${phone}`);
    const far = new FarEnd(leg.streamUrl, leg.protocol, clock);
    await far.start();
    let hungUp = false;
    let closedByAgent = false;
    void far.closed.then(() => (closedByAgent = !hungUp));
    const hangup = () => ((hungUp = true), far.hangup());
    if (phone === 'person') {
      await far.say(audio.alo!);
      // The greeting ("مرحبًا خالد، معك سارة من بنك الواحة.") lasts about 3 s.
      await quietAfterAudio(far, 1200, 2);
      const greeting = far.played;
      await far.say(audio.yes!);
      // The agent answers the person's "نعم أنا" (its turn was heard), or the person hangs up anyway.
      await far.until(() => far.played > greeting + 0.5, 30_000).catch(() => {});
      hangup();
    } else {
      // The agent may hang up before the recording is over (a carrier's tones decide at once); then it goes on with silence until the agent hangs up.
      await Promise.race([far.say(phone === 'voicemail' ? audio.voicemail! : audio.carrier!), far.closed]);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([far.closed, new Promise((r) => (timer = setTimeout(r, 120_000)))]);
      clearTimeout(timer);
      if (!closedByAgent) hangup();
    }
    heard.set(leg.platformCallId, { heard: far.played, closedByAgent });
    trace(`media ${leg.platformCallId} ${phone} done, heard ${far.played.toFixed(1)} s, closed by agent ${closedByAgent}`);
  }

  const fake = await new FakePlatforms(keys, {
    scenario: (to: string, id: string): Scenario => {
      const n = (dials.get(to) ?? 0) + 1;
      dials.set(to, n);
      const script = PHONES[to]!.by;
      const phone = script[Math.min(n, script.length) - 1]!;
      phoneOf.set(id, phone);
      trace(`dial ${to} #${n}: ${phone} (${id})`);
      return phone === 'no-answer' || phone === 'busy' ? phone : 'answer';
    },
    onMedia: farEnd,
    durationS: 20,
  }).start();
  try {
    const port = await freePort();
    Object.assign(process.env, {
      TWILIO_ACCOUNT_SID: keys.twilio.accountSid,
      TWILIO_AUTH_TOKEN: keys.twilio.authToken,
      HIWAR_TWILIO_API_URL: fake.url,
      HIWAR_CALL_FROM: '+966110000000',
      HIWAR_CALLS_SECRET: 'campaign-calls-secret-0123456789',
      REDIS_URL: redisUrl,
    });
    const base = new URL(`../../agents/call-centre/index${extname(new URL(import.meta.url).pathname)}`, import.meta.url).href;
    await writeFile(
      join(dir, 'reminder.mjs'),
      `import base from ${JSON.stringify(base)};
export default { ...base, name: 'reminder', greeting: 'مرحبًا {name}، معك سارة من بنك الواحة.', voice: { ...base.voice, firstAudioTimeoutMs: 20000 },
  answeringMachine: { enabled: true, onMachine: 'voicemail' }, voicemail: ${JSON.stringify(VOICEMAIL)} };\n`,
    );
    await writeFile(join(dir, 'contacts.csv'), `number,name\n${Object.entries(PHONES).map(([n, p]) => `${n},${p.name}`).join('\n')}\n${DNC},ليلى\n`);
    await writeFile(join(dir, 'dnc.txt'), `${DNC}\n`);
    // Sunday 08:59 in Riyadh: the window opens a minute later.
    const start = Date.parse('2026-11-29T05:59:00Z');
    const results = join(dir, 'results.csv');
    const out: string[] = [];
    // A far end that failed leaves its call without a last callback: fail then, saying why, instead of waiting for ever.
    let watchdog: NodeJS.Timeout | undefined;
    const stuck = new Promise<never>((_, reject) => {
      watchdog = setInterval(() => {
        if (fake.errors.length) trace(`errors: ${fake.errors.join('; ')}`);
        if (fake.errors.length) reject(new Error(`a call's far end failed: ${fake.errors.join('; ')}; dials ${JSON.stringify(Object.fromEntries(dials))}`));
      }, 200);
    });
    const deps = { client: sandbox.client, clock, campaignClock: campaignClock(start, 60), logger: createLogger('silent') };
    const server = ['--platform', 'twilio', '--port', String(port), '--public-url', `http://127.0.0.1:${port}`];
    const started = campaignCommand(
      ['start', join(dir, 'contacts.csv'), '--agent', join(dir, 'reminder.mjs'), '--window', 'Sun-Thu 09:00-21:00 Asia/Riyadh', '--concurrency', '2', '--retries', '2', '--retry-after', '10m',
        '--dnc', join(dir, 'dnc.txt'), '--id', 'spring', '--results', results, ...server],
      deps,
    );
    let all: Row[];
    if (mode === 'in-process') {
      const code = await Promise.race([started, stuck]).finally(() => clearInterval(watchdog));
      assert.equal(code, 0, out.join('\n'));
      const rows = csvRows(await readFile(results, 'utf8')).map((r) => r.fields);
      const header = rows[0]!;
      all = rows.slice(1).map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? ''])));
    } else {
      assert.equal(await started, 0, 'queued');
      const worker = campaignCommand(['worker', '--agent', join(dir, 'reminder.mjs'), ...server], deps);
      const conn = new Redis(redisUrl);
      const store = new RedisCampaignStore(conn);
      try {
        const done = (async () => {
          while ((await store.meta('spring'))?.state !== 'done') await new Promise((r) => setTimeout(r, 200));
        })();
        await Promise.race([done, stuck, worker.then(() => Promise.reject(new Error('the worker stopped')))]).finally(() => clearInterval(watchdog));
        process.emit('SIGINT');
        assert.equal(await worker, 0);
        all = rowsOf(await store.contacts('spring'));
      } finally {
        conn.disconnect();
      }
    }
    const by = (n: string) => all.filter((r) => r.number === n);
    // The detector times caller frames by their place in the stream, so a loaded machine's late or
    // bursty delivery cannot blur a person's pause after "ألو" (test/amd/stream-time.test.ts).
    const summary = Object.fromEntries([...Object.keys(PHONES), DNC].map((n) => [n, by(n).map((r) => `${r.attempt}:${r.outcome}:${r.amd || '-'}:${r.final}`)]));
    assert.deepEqual(summary, {
      '+966500000301': ['1:completed:human:true'],
      // The voicemail got the agent's message after the beep; a voicemail is not retried (not in --retry-on's default).
      '+966500000302': ['1:machine-voicemail:machine-voicemail:true'],
      // The carrier's "switched off" is retried, and the person answers the retry.
      '+966500000303': ['1:machine-unavailable:machine-unavailable:false', '2:completed:human:true'],
      '+966500000304': ['1:no-answer:-:false', '2:completed:human:true'],
      '+966500000305': ['1:busy:-:false', '2:busy:-:false', '3:busy:-:true'],
      [DNC]: ['0:do-not-call:-:true'],
    });
    assert.equal(dials.get(DNC), undefined, 'the do-not-call number was never dialled');
    assert.deepEqual(Object.fromEntries(dials), { '+966500000301': 1, '+966500000302': 1, '+966500000303': 2, '+966500000304': 2, '+966500000305': 3 }, 'each attempt dialled once');

    // The person was greeted by name after "ألو", and their answer heard; the recordings got no greeting.
    const khaled = by('+966500000301')[0]!;
    assert.match(khaled.transcript!, /^agent: مرحبًا خالد، معك سارة من بنك الواحة/, khaled.transcript);
    assert.match(khaled.transcript!, /caller: نعم أنا/);
    assert.equal(khaled.duration_s, '20', "the platform's duration");
    assert.match(by('+966500000303')[1]!.transcript!, /^agent: مرحبًا ماجد/);
    assert.equal(by('+966500000302')[0]!.transcript, `agent: ${VOICEMAIL}`, 'the voicemail heard the message, nothing else');
    assert.equal(by('+966500000303')[0]!.transcript, '', 'nothing said to the carrier');
    for (const [id, phone] of phoneOf) {
      if (phone === 'voicemail' || phone === 'carrier') assert.ok(heard.get(id)?.closedByAgent, `${phone}: the agent hung up`);
    }

    // Every dial inside the window, every retry at least 10 campaign minutes after the attempt before it ended.
    const window = parseWindow('Sun-Thu 09:00-21:00 Asia/Riyadh');
    for (const n of Object.keys(PHONES)) {
      const attempts = by(n);
      for (const [k, a] of attempts.entries()) {
        assert.ok(isOpen(window, Date.parse(a.started_at!), 'Asia/Riyadh'), `${n} attempt ${a.attempt} at ${a.started_at}`);
        if (k > 0) assert.ok(Date.parse(a.started_at!) >= Date.parse(attempts[k - 1]!.ended_at!) + 10 * MIN, `${n}'s retry ${a.attempt} at ${a.started_at}, previous ended ${attempts[k - 1]!.ended_at}`);
        if (k < attempts.length - 1 && mode === 'in-process') assert.ok(Date.parse(a.retry_at!) >= Date.parse(a.ended_at!) + 10 * MIN);
      }
    }
  } finally {
    // On a failure the campaign may still be running: stop it dialling (as Ctrl-C does).
    process.emit('SIGINT');
    process.env = saved;
    clock.stop();
    await fake.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The campaign's record in Redis as result rows: each attempt, and the contacts never dialled. */
function rowsOf(states: ContactState[]): Row[] {
  const iso = (ms: number | undefined) => (ms === undefined ? '' : new Date(ms).toISOString());
  return states.flatMap((s): Row[] =>
    s.attempts.length === 0
      ? [{ number: s.contact.number, attempt: '0', outcome: s.status, amd: '', final: 'true', transcript: '' }]
      : s.attempts.map((a, k) => ({
          number: s.contact.number,
          attempt: String(a.attempt),
          outcome: a.outcome ?? '',
          amd: a.amd ?? '',
          final: String(k === s.attempts.length - 1 && s.status === 'done'),
          transcript: a.transcript ?? '',
          duration_s: a.durationS === undefined ? '' : String(a.durationS),
          started_at: iso(a.startedAt),
          ended_at: iso(a.endedAt),
        })),
  );
}

/**
 * A campaign end to end, as `hiwar campaign start` runs it (in process, or queued on Redis for
 * `hiwar campaign worker`): the command's own server, one platform's REST API faked from its
 * documentation (test/telephony/outbound/fake-platforms.ts) and, for every answered call, that
 * platform's media stream connected back to the command's server with a scripted far end
 * speaking the platform's media protocol: a person who says "ألو… نعم أنا", a voicemail greeting
 * and its beep, a carrier's tones and announcement; and phones that do not answer or are busy.
 * The sessions run on the sandbox and the stall-free clock; the campaign's own clock (window,
 * retries) runs at a minute a second.
 */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { appendFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { Redis } from 'ioredis';
import { concatPcm, silence } from '../../src/audio/pcm.ts';
import { resample } from '../../src/audio/resample.ts';
import { campaignCommand } from '../../src/cli/campaign.ts';
import { csvRows } from '../../src/campaign/contacts.ts';
import { RedisCampaignStore } from '../../src/campaign/redis-store.ts';
import type { ContactState } from '../../src/campaign/types.ts';
import { isOpen, parseWindow } from '../../src/campaign/window.ts';
import { createLogger } from '../../src/session/logger.ts';
import { SteadyScaledClock } from '../../src/testing/steady-clock.ts';
import { sleepFor, type Clock } from '../../src/transport/clock.ts';
import type { OutboundPlatformName } from '../../transports/telephony/index.ts';
import { compose } from '../helpers/amd-audio.ts';
import { freePort } from '../helpers/redis.ts';
import { pad, runSandbox, voiced, type Running } from '../helpers/sandbox.ts';
import { FarEnd, quietAfter } from '../telephony/far-end.ts';
import { FakePlatforms, testKeys, type MediaLeg, type Scenario } from '../telephony/outbound/fake-platforms.ts';

/** How a phone answers one attempt. */
export type Phone = 'person' | 'voicemail' | 'carrier' | 'no-answer' | 'busy';
/** Each contact's phone, attempt by attempt (the last repeats). */
export type PhoneBook = Record<string, { name: string; by: Phone[] }>;
/** One row per attempt (and the do-not-call contact's), in the results CSV's columns. */
export type Row = Record<string, string>;

export const VOICEMAIL = 'مرحبًا، معك بنك الواحة. نرجو أن تتصل بنا على الرقم المجاني.';
export const WINDOW = 'Sun-Thu 09:00-21:00 Asia/Riyadh';

const trace = (m: string) => process.env.HIWAR_CALLS_TRACE && appendFileSync(process.env.HIWAR_CALLS_TRACE, `${new Date().toISOString()} ${m}\n`);

/** The far ends' recordings, voiced by the sandbox at 8 kHz; `at(rate)` gives them at a stream's rate. */
export async function farEndAudio(sandbox: Running): Promise<(rate: number) => Promise<Record<string, Int16Array>>> {
  const say = (text: string) => voiced(sandbox.client, text, 8000);
  const at8: Record<string, Int16Array> = {
    // A person picks up, then says "ألو" after a moment.
    alo: pad(await say('ألو'), 8000, 1.0, 0),
    yes: pad(await say('نعم أنا'), 8000, 0.1, 0),
    voicemail: concatPcm([await say('مرحبًا، لقد وصلت إلى البريد الصوتي، أنا غير متاح حاليًا، اترك رسالتك'), silence(0.5, 8000), compose([{ tone: 1000, ms: 400 }], 0)]),
    carrier: concatPcm([compose([{ tone: 914, ms: 330 }, { tone: 1371, ms: 330 }, { tone: 1777, ms: 330 }, { silence: 200 }], 0), await say('الرقم المطلوب مغلق أو خارج نطاق التغطية')]),
  };
  const byRate = new Map<number, Record<string, Int16Array>>([[8000, at8]]);
  return async (rate) => {
    if (!byRate.has(rate)) byRate.set(rate, Object.fromEntries(await Promise.all(Object.entries(at8).map(async ([k, v]) => [k, await resample(v, 8000, rate)] as const))));
    return byRate.get(rate)!;
  };
}

/** A campaign test file's sandbox and far-end recordings: made before its tests, closed after them. */
export function campaignFixture(): { readonly sandbox: Running; readonly audio: Awaited<ReturnType<typeof farEndAudio>> } {
  const f = {} as { sandbox: Running; audio: Awaited<ReturnType<typeof farEndAudio>> };
  before(async () => {
    f.sandbox = await runSandbox();
    f.audio = await farEndAudio(f.sandbox);
  });
  after(() => f.sandbox?.close());
  return f;
}

/** Writes the campaign's agent: the call centre's, greeting the contact by name, detecting who answered, leaving `VOICEMAIL`. */
export async function writeAgent(file: string): Promise<void> {
  const base = new URL(`../../agents/call-centre/index${extname(new URL(import.meta.url).pathname)}`, import.meta.url).href;
  await writeFile(
    file,
    `import base from ${JSON.stringify(base)};
export default { ...base, name: 'reminder', greeting: 'مرحبًا {name}، معك سارة من بنك الواحة.', voice: { ...base.voice, firstAudioTimeoutMs: 20000 },
  answeringMachine: { enabled: true, onMachine: 'voicemail' }, voicemail: ${JSON.stringify(VOICEMAIL)} };\n`,
  );
}

/** The campaign's clock: from `start`, a campaign minute per real second. */
function campaignClock(start: number, speed: number): Clock {
  const origin = Date.now();
  return { speed, now: () => start + (Date.now() - origin) * speed, sleep: (ms, signal) => sleepFor(ms / speed, signal) };
}

/** The environment `hiwar campaign` reads for `platform`: its credentials, its (fake) API, the key its callbacks are checked with. */
function platformEnv(platform: OutboundPlatformName, keys: ReturnType<typeof testKeys>, api: string): Record<string, string> {
  if (platform === 'twilio') return { TWILIO_ACCOUNT_SID: keys.twilio.accountSid, TWILIO_AUTH_TOKEN: keys.twilio.authToken, HIWAR_TWILIO_API_URL: api };
  if (platform === 'telnyx') return { TELNYX_API_KEY: keys.telnyx.apiKey, TELNYX_CONNECTION_ID: keys.telnyx.connectionId, TELNYX_PUBLIC_KEY: keys.telnyx.publicKey, HIWAR_TELNYX_API_URL: api };
  if (platform === 'plivo') return { PLIVO_AUTH_ID: keys.plivo.authId, PLIVO_AUTH_TOKEN: keys.plivo.authToken, HIWAR_PLIVO_API_URL: api };
  return { VONAGE_APPLICATION_ID: keys.vonage.applicationId, VONAGE_PRIVATE_KEY: keys.vonage.privateKey, VONAGE_SIGNATURE_SECRET: keys.vonage.signatureSecret, HIWAR_VONAGE_API_URL: api };
}

/** What a campaign run left: its result rows, the platform's dials per number, and each call's far end. */
export interface CampaignRun {
  all: Row[];
  /** Dial requests per number, as the fake platform's own request log holds them. */
  dialled: Map<string, number>;
  phoneOf: Map<string, Phone>;
  heard: Map<string, { heard: number; closedByAgent: boolean }>;
}

/** Runs one campaign of `phones` (and `dnc`, on the do-not-call list) through `platform`. */
export async function runCampaign(o: {
  sandbox: Running;
  audio: (rate: number) => Promise<Record<string, Int16Array>>;
  platform: OutboundPlatformName;
  phones: PhoneBook;
  dnc?: string;
  mode: 'in-process' | 'bullmq';
  redisUrl?: string;
  concurrency: number;
}): Promise<CampaignRun> {
  const dir = await mkdtemp(join(tmpdir(), `hiwar-campaign-${o.platform}-`));
  const clock = new SteadyScaledClock(2);
  const keys = testKeys();
  const attempts = new Map<string, number>();
  const phoneOf = new Map<string, Phone>();
  const heard = new Map<string, { heard: number; closedByAgent: boolean }>();
  const saved = { ...process.env };

  async function farEnd(leg: MediaLeg): Promise<void> {
    const phone = phoneOf.get(leg.platformCallId)!;
    const audio = await o.audio(leg.protocol.rate);
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
      await quietAfter(far, 2, 1200);
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
      const n = (attempts.get(to) ?? 0) + 1;
      attempts.set(to, n);
      const script = o.phones[to]!.by;
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
    Object.assign(process.env, platformEnv(o.platform, keys, fake.url), {
      HIWAR_CALL_FROM: '+966110000000',
      HIWAR_CALLS_SECRET: 'campaign-calls-secret-0123456789',
      REDIS_URL: o.redisUrl ?? '',
    });
    await writeAgent(join(dir, 'reminder.mjs'));
    const rows = Object.entries(o.phones).map(([n, p]) => `${n},${p.name}`);
    if (o.dnc) rows.push(`${o.dnc},ليلى`);
    await writeFile(join(dir, 'contacts.csv'), `number,name\n${rows.join('\n')}\n`);
    await writeFile(join(dir, 'dnc.txt'), o.dnc ? `${o.dnc}\n` : '\n');
    // Sunday 08:59 in Riyadh: the window opens a minute later.
    const start = Date.parse('2026-11-29T05:59:00Z');
    const results = join(dir, 'results.csv');
    // A far end that failed leaves its call without a last callback: fail then, saying why, instead of waiting for ever.
    let watchdog: NodeJS.Timeout | undefined;
    const stuck = new Promise<never>((_, reject) => {
      watchdog = setInterval(() => {
        if (fake.errors.length) reject(new Error(`a call's far end failed: ${fake.errors.join('; ')}; dials ${JSON.stringify(Object.fromEntries(attempts))}`));
      }, 200);
    });
    const deps = { client: o.sandbox.client, clock, campaignClock: campaignClock(start, 60), logger: createLogger('silent') };
    const server = ['--platform', o.platform, '--port', String(port), '--public-url', `http://127.0.0.1:${port}`];
    const started = campaignCommand(
      ['start', join(dir, 'contacts.csv'), '--agent', join(dir, 'reminder.mjs'), '--window', WINDOW, '--concurrency', String(o.concurrency), '--retries', '2', '--retry-after', '10m',
        '--dnc', join(dir, 'dnc.txt'), '--id', 'spring', '--results', results, ...server],
      deps,
    );
    let all: Row[];
    if (o.mode === 'in-process') {
      const code = await Promise.race([started, stuck]).finally(() => clearInterval(watchdog));
      if (code !== 0) throw new Error(`hiwar campaign start exited ${code}`);
      const csv = csvRows(await readFile(results, 'utf8')).map((r) => r.fields);
      const header = csv[0]!;
      all = csv.slice(1).map((r) => Object.fromEntries(header.map((h, i) => [h, r[i] ?? ''])));
    } else {
      if ((await started) !== 0) throw new Error('hiwar campaign start did not queue the campaign');
      const worker = campaignCommand(['worker', '--agent', join(dir, 'reminder.mjs'), ...server], deps);
      const conn = new Redis(o.redisUrl!);
      const store = new RedisCampaignStore(conn);
      try {
        const done = (async () => {
          while ((await store.meta('spring'))?.state !== 'done') await new Promise((r) => setTimeout(r, 200));
        })();
        await Promise.race([done, stuck, worker.then(() => Promise.reject(new Error('the worker stopped')))]).finally(() => clearInterval(watchdog));
        process.emit('SIGINT');
        if ((await worker) !== 0) throw new Error('the worker did not stop cleanly');
        all = rowsOf(await store.contacts('spring'));
      } finally {
        conn.disconnect();
      }
    }
    // The dials as the platform saw them: its own log of REST requests, one per placed call.
    const dialled = new Map<string, number>();
    for (const r of fake.received) {
      const to = r.form?.get('To') ?? (typeof r.json?.to === 'string' ? r.json.to : r.json?.to?.[0]?.number);
      const n = String(to).startsWith('+') ? String(to) : `+${to}`;
      dialled.set(n, (dialled.get(n) ?? 0) + 1);
    }
    return { all, dialled, phoneOf, heard };
  } finally {
    // On a failure the campaign may still be running: stop it dialling (as Ctrl-C does).
    process.emit('SIGINT');
    process.env = saved;
    clock.stop();
    await fake.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const MIN = 60_000;

/**
 * What every campaign run must show: each contact's attempts (`attempt:outcome:amd:final`) as
 * expected, each attempt dialled once (the platform's own request log) and the do-not-call
 * number never, a person greeted by name and heard, a voicemail given the message and nothing
 * else, nothing said to a carrier, the agent hanging up on recordings, every dial inside the
 * window and every retry at least 10 campaign minutes after the attempt before it.
 */
export function assertCampaign(run: CampaignRun, phones: PhoneBook, expected: Record<string, string[]>, dnc?: string): void {
  const by = (n: string) => run.all.filter((r) => r.number === n);
  const numbers = [...Object.keys(phones), ...(dnc ? [dnc] : [])];
  assert.deepEqual(Object.fromEntries(numbers.map((n) => [n, by(n).map((r) => `${r.attempt}:${r.outcome}:${r.amd || '-'}:${r.final}`)])), expected);
  if (dnc) assert.equal(run.dialled.get(dnc), undefined, 'the do-not-call number was never dialled');
  const attempts = Object.fromEntries(Object.keys(phones).map((n) => [n, by(n).filter((r) => r.attempt !== '0').length]));
  assert.deepEqual(Object.fromEntries(run.dialled), attempts, 'each attempt dialled once, as the platform logged its requests');
  for (const [n, p] of Object.entries(phones)) {
    for (const [k, r] of by(n).entries()) {
      const phone = p.by[Math.min(k, p.by.length - 1)];
      if (phone === 'person') {
        assert.match(r.transcript!, new RegExp(`^agent: مرحبًا ${p.name}، معك سارة من بنك الواحة`), r.transcript);
        assert.match(r.transcript!, /caller: نعم أنا/);
      }
      if (phone === 'voicemail') assert.equal(r.transcript, `agent: ${VOICEMAIL}`, 'the voicemail heard the message, nothing else');
      if (phone === 'carrier') assert.equal(r.transcript, '', 'nothing said to the carrier');
    }
  }
  for (const [id, phone] of run.phoneOf) {
    if (phone === 'voicemail' || phone === 'carrier') assert.ok(run.heard.get(id)?.closedByAgent, `${phone}: the agent hung up`);
  }
  const window = parseWindow(WINDOW);
  for (const n of Object.keys(phones)) {
    const tries = by(n);
    for (const [k, a] of tries.entries()) {
      assert.ok(isOpen(window, Date.parse(a.started_at!), 'Asia/Riyadh'), `${n} attempt ${a.attempt} at ${a.started_at}`);
      if (k > 0) assert.ok(Date.parse(a.started_at!) >= Date.parse(tries[k - 1]!.ended_at!) + 10 * MIN, `${n}'s retry ${a.attempt} at ${a.started_at}, previous ended ${tries[k - 1]!.ended_at}`);
      if (k < tries.length - 1 && a.retry_at) assert.ok(Date.parse(a.retry_at) >= Date.parse(a.ended_at!) + 10 * MIN);
    }
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

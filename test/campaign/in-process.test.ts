import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { csvRows } from '../../src/campaign/contacts.ts';
import { InProcessCampaigns, controlCampaign } from '../../src/campaign/in-process.ts';
import { csvSink } from '../../src/campaign/results.ts';
import { campaignSettings } from '../../src/campaign/schedule.ts';
import type { CallResult, DialAttempt, Dialer } from '../../src/campaign/types.ts';
import { isOpen, parseWindow } from '../../src/campaign/window.ts';
import { VirtualClock } from '../../src/transport/clock.ts';
import { CAIRO_INDEX, contacts, DNC_INDEX, expected, numberOf, outcomeOf } from './script.ts';

const H = 3600_000;

/** Until no file operation of this process is in flight (the CSV sink's appends). */
async function fileWritesDone(): Promise<void> {
  while (process.getActiveResourcesInfo().some((r) => r.startsWith('FSReq') || r === 'CloseReq')) await new Promise((r) => setImmediate(r));
}
const CALL_MS = 3 * 60_000;

/** A dialler on the virtual clock: each call lasts three minutes and ends as the script says. */
function scriptedDialer(clock: VirtualClock) {
  const dials: { dialId: string; index: number; attempt: number; at: number; end: number }[] = [];
  let now = 0;
  let most = 0;
  const dialer: Dialer = {
    async dial(d: DialAttempt): Promise<CallResult> {
      const entry = { dialId: d.dialId, index: d.index, attempt: d.attempt, at: clock.now(), end: 0 };
      dials.push(entry);
      most = Math.max(most, ++now);
      await clock.sleep(CALL_MS);
      now--;
      entry.end = clock.now();
      const outcome = outcomeOf(d.index, d.attempt);
      return { outcome, callId: `call-${d.dialId}`, ...(outcome === 'completed' ? { durationS: 180, amd: 'human', transcript: `agent: مرحبًا ${d.contact.variables.name}`, toolResults: { confirmed: true } } : {}), ...(outcome === 'machine-voicemail' ? { amd: 'machine-voicemail' } : {}) };
    },
  };
  return { dialer, dials, most: () => most };
}

test('in process: 20 contacts, window and concurrency 3 on a virtual clock: every outcome right, none dialled twice, retries at the right times, the do-not-call number never dialled', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'hiwar-campaign-'));
  // Thursday 20:00 in Riyadh: an hour of window left, then the weekend.
  const clock = new VirtualClock(Date.parse('2026-11-26T17:00:00Z'));
  const { dialer, dials, most } = scriptedDialer(clock);
  const window = parseWindow('Sun-Thu 09:00-21:00 Asia/Riyadh');
  const settings = campaignSettings({ window, concurrency: 3, retries: 2, retryAfterMs: 2 * H });
  const csv = join(dir, 'results.csv');
  const runner = new InProcessCampaigns({ dialer, clock, sinks: [csvSink(csv)] });
  try {
    let finished = false;
    const run = runner.run({ id: 'thursday', contacts: contacts(), settings, doNotCall: [numberOf(DNC_INDEX)] }).finally(() => (finished = true));
    // Five virtual days at most, ten minutes at a time; the clock moves only once the CSV's real
    // writes are done (a step taken while one is in flight could end the loop before the run, and
    // leave it waiting on a clock nobody moves: it hung so in a shared test process).
    for (let i = 0; i < 5 * 24 * 6 && !finished; i++) {
      await fileWritesDone();
      await clock.advance(10 * 60_000);
    }
    assert.ok(finished, `the campaign still running after five virtual days, at ${new Date(clock.now()).toISOString()}`);
    const status = await run;

    // Each (contact, attempt) once, attempts numbered 1, 2, 3 in order.
    assert.equal(new Set(dials.map((d) => d.dialId)).size, dials.length, 'no attempt dialled twice');
    assert.ok(!dials.some((d) => d.index === DNC_INDEX), 'the do-not-call number was never dialled');
    assert.equal(most(), 3, 'three calls at once, never more');
    for (const [i] of contacts().entries()) {
      const mine = dials.filter((d) => d.index === i);
      assert.deepEqual(mine.map((d) => d.attempt), Array.from({ length: expected(i).attempts }, (_, k) => k + 1), `contact ${i}'s attempts`);
      for (const [k, d] of mine.entries()) {
        assert.ok(isOpen(window, d.at, i === CAIRO_INDEX ? 'Africa/Cairo' : undefined), `contact ${i} attempt ${d.attempt} at ${new Date(d.at).toISOString()} is inside its window`);
        if (k > 0) assert.ok(d.at >= mine[k - 1]!.end + 2 * H, `contact ${i}'s retry ${d.attempt} comes 2 h after the previous call ended at the earliest`);
      }
    }
    // The retries due Thursday at 22:xx wait for Sunday 09:00 in Riyadh (the CSV file's real
    // writes may let the virtual clock move a few polls on before the first one starts).
    const firstRetry = Math.min(...dials.filter((d) => d.attempt === 2).map((d) => d.at));
    assert.ok(firstRetry >= Date.parse('2026-11-29T06:00:00Z') && firstRetry < Date.parse('2026-11-29T07:00:00Z'), new Date(firstRetry).toISOString());

    const states = await runner.store.contacts('thursday');
    for (const s of states) {
      const want = expected(s.index);
      const got = s.status === 'do-not-call' ? 'do-not-call' : s.attempts.at(-1)?.outcome;
      assert.equal(got, want.outcome, `contact ${s.index}'s outcome`);
      assert.equal(s.attempts.length, want.attempts);
    }
    assert.equal(status.state, 'done');
    assert.deepEqual(status.outcomes, { completed: 17, 'no-answer': 1, 'machine-voicemail': 1 });
    assert.equal(status.contacts['do-not-call'], 1);
    assert.equal(status.dials, dials.length);

    // The CSV: a row per attempt and one for the do-not-call contact, with the call's details.
    const rows = csvRows(await readFile(csv, 'utf8'));
    const header = rows.shift()!.fields;
    assert.equal(rows.length, dials.length + 1);
    const row = (i: number, attempt: number) => Object.fromEntries(rows.find((r) => r.fields[2] === numberOf(i) && r.fields[3] === String(attempt))!.fields.map((v, k) => [header[k], v]));
    assert.deepEqual([row(0, 1).outcome, row(0, 1).amd, row(0, 1).duration_s, row(0, 1).tool_results, row(0, 1).final], ['completed', 'human', '180', '{"confirmed":true}', 'true']);
    assert.match(row(0, 1).transcript!, /مرحبًا عميل 0/);
    assert.deepEqual([row(11, 1).outcome, row(11, 1).final, row(11, 1).retry_at !== ''], ['busy', 'false', true]);
    assert.equal(row(DNC_INDEX, 0).outcome, 'do-not-call');
  } finally {
    runner.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('in process: a paused campaign dials nothing until resumed; a cancelled one ends its waiting contacts', async () => {
  const clock = new VirtualClock(Date.parse('2026-11-29T07:00:00Z'));
  const { dialer, dials } = scriptedDialer(clock);
  const runner = new InProcessCampaigns({ dialer, clock });
  const settings = campaignSettings({ concurrency: 1, retries: 0 });
  let id = '';
  const run = runner.run({ contacts: contacts().slice(0, 4), settings }, (x) => (id = x));
  await clock.advance(1000);
  assert.equal(dials.length, 1, 'the first call started');
  await controlCampaign(runner.store, id, 'pause');
  await clock.advance(H);
  assert.equal(dials.length, 1, 'nothing dialled while paused (the call under way ended)');
  await controlCampaign(runner.store, id, 'resume');
  await clock.advance(60_000);
  assert.equal(dials.length, 2, 'dialling again once resumed');
  await controlCampaign(runner.store, id, 'cancel');
  await assert.rejects(controlCampaign(runner.store, id, 'resume'), /is cancelled: it cannot resume/);
  await clock.advance(H);
  const status = await run;
  assert.equal(dials.length, 2);
  assert.equal(status.state, 'cancelled');
  assert.deepEqual(status.contacts, { done: 2, cancelled: 2 });
});

test('in process: a number added to the do-not-call list mid-campaign is not dialled again, its pending retry included', async () => {
  const clock = new VirtualClock(Date.parse('2026-11-29T07:00:00Z'));
  const runner = new InProcessCampaigns({
    clock,
    dialer: {
      async dial(d: DialAttempt): Promise<CallResult> {
        dials.push(`${d.index}:${d.attempt}`);
        await clock.sleep(CALL_MS);
        // The person asks, on the first call, never to be called again: the number goes on the list the campaign reads.
        if (d.index === 0) await runner.store.addDoNotCall([d.contact.number]);
        return { outcome: 'busy' };
      },
    },
  });
  const dials: string[] = [];
  const run = runner.run({ contacts: contacts().slice(0, 2), settings: campaignSettings({ concurrency: 2, retries: 2, retryAfterMs: H }) });
  await clock.advance(6 * H);
  const status = await run;
  assert.deepEqual(dials.sort(), ['0:1', '1:1', '1:2', '1:3'], 'contact 0 was not called again; contact 1 was retried as usual');
  assert.deepEqual(status.contacts, { done: 1, 'do-not-call': 1 });
});

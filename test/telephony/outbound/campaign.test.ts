import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CampaignSchedule, type Attempt } from '../../../transports/telephony/outbound/campaign.ts';
import { inWindow, nextOpening, parseWindow } from '../../../transports/telephony/outbound/window.ts';

const H = 3600_000;
// Sunday 1 March 2026, 06:00 UTC = 09:00 in Riyadh (UTC+3), 10:00 in Dubai (UTC+4).
const SUN_0600Z = Date.UTC(2026, 2, 1, 6, 0);

test('calling window: days and hours in the time zone, the contact\'s zone first; bad text explained', () => {
  const w = parseWindow('Sun-Thu 09:00-21:00 Asia/Riyadh');
  assert.deepEqual([...w.days].sort(), [0, 1, 2, 3, 4]);
  assert.equal(inWindow(w, SUN_0600Z), true, '09:00 Riyadh');
  assert.equal(inWindow(w, SUN_0600Z - 60_000), false, '08:59 Riyadh');
  assert.equal(inWindow(w, SUN_0600Z + 12 * H), false, '21:00 Riyadh is closed');
  assert.equal(inWindow(w, SUN_0600Z - H, 'Asia/Dubai'), true, '09:00 in Dubai is 08:00 in Riyadh');
  // Thursday 21:00 Riyadh → next opening Sunday 09:00 (Friday and Saturday are off).
  const thuClose = Date.UTC(2026, 2, 5, 18, 0);
  assert.equal(nextOpening(w, thuClose), Date.UTC(2026, 2, 8, 6, 0));
  assert.deepEqual([...parseWindow('Fri,Sat 10:00-12:00').days].sort(), [5, 6]);
  assert.throws(() => parseWindow('weekdays 9-5'), /expected like/);
  assert.throws(() => parseWindow('Sun-Thu 21:00-09:00 Asia/Riyadh'), /run forward/);
  assert.throws(() => parseWindow('Sun-Thu 09:00-21:00 Mars/Olympus'), /unknown time zone/);
});

/** Runs a schedule to its end on a virtual clock; `answer` decides each attempt's outcome. */
function runCampaign(s: CampaignSchedule, answer: (a: Attempt) => string, callMs = 5 * 60_000, start = SUN_0600Z) {
  let now = start;
  const dialled: { key: string; at: number }[] = [];
  let maxRunning = 0;
  const running = new Map<string, number>();
  for (let guard = 0; !s.done && guard < 10_000; guard++) {
    const { dial, wakeAt } = s.due(now);
    for (const a of dial) {
      dialled.push({ key: a.key, at: now });
      running.set(a.key, now + callMs);
    }
    maxRunning = Math.max(maxRunning, running.size);
    // The next event: a call ending, or the schedule's wake-up.
    const ends = [...running.values()];
    const next = Math.min(...ends, wakeAt ?? Infinity);
    if (next === Infinity) break;
    now = next;
    for (const [key, end] of [...running]) {
      if (end > now) continue;
      running.delete(key);
      s.finished(key, answer({ key, contact: { id: key.split('#')[0]!, number: '' }, n: Number(key.split('#')[1]) }), now);
    }
  }
  return { dialled, maxRunning };
}

test('a campaign of 20: concurrency 3, the window in each contact\'s zone, retries at the right times, do-not-call, no attempt twice', () => {
  const dnc = new Set(['+966500000007']);
  const contacts = Array.from({ length: 20 }, (_, i) => ({ id: `c${i}`, number: `+9665000000${String(i).padStart(2, '0')}`, variables: { name: `n${i}` }, ...(i === 19 ? { timeZone: 'Africa/Cairo' } : {}) }));
  const s = new CampaignSchedule(contacts, { window: 'Sun-Thu 09:00-21:00 Asia/Riyadh', concurrency: 3, retries: 2, retryAfterMs: 2 * H, doNotCall: (n) => dnc.has(n) }, SUN_0600Z - 2 * H);
  // c1 is busy twice then answers; c2 never answers; c3 fails (not retried); the rest answer.
  const { dialled, maxRunning } = runCampaign(s, (a) => (a.contact.id === 'c1' && a.n < 3 ? 'busy' : a.contact.id === 'c2' ? 'no-answer' : a.contact.id === 'c3' ? 'failed' : 'completed'));
  assert.ok(s.done);
  assert.equal(maxRunning, 3, 'never more than 3 at once, and 3 used');
  assert.equal(new Set(dialled.map((d) => d.key)).size, dialled.length, 'no attempt dialled twice');
  assert.ok(dialled.every((d) => d.at >= SUN_0600Z), 'nobody called before 09:00 Riyadh');
  const byId = Object.fromEntries(s.state().map((x) => [x.contact.id, x]));
  assert.equal(byId.c7!.result, 'do-not-call');
  assert.equal(byId.c7!.attempts, 0, 'a number on the list is never dialled');
  assert.deepEqual(byId.c1!.outcomes, ['busy', 'busy', 'completed']);
  assert.deepEqual(byId.c2!.outcomes, ['no-answer', 'no-answer', 'no-answer'], 'the first try and two retries');
  assert.equal(byId.c2!.result, 'no-answer');
  assert.deepEqual(byId.c3!.outcomes, ['failed']);
  const times = (id: string) => dialled.filter((d) => d.key.startsWith(`${id}#`)).map((d) => d.at);
  const [t1, t2, t3] = times('c2');
  assert.ok(t2! - t1! >= 2 * H + 5 * 60_000 - 1 && t3! - t2! >= 2 * H + 5 * 60_000 - 1, 'each retry two hours after the attempt ended');
  // Cairo (UTC+2) opens at 09:00 Cairo = 07:00 UTC, an hour after Riyadh.
  assert.ok(times('c19')[0]! >= Date.UTC(2026, 2, 1, 7, 0));
  assert.equal(s.state().filter((x) => x.result === 'completed').length, 17);
});

test('idempotence: an attempt handed out is never handed out again, and reported once', () => {
  const s = new CampaignSchedule([{ id: 'a', number: '+966500000001' }], { concurrency: 1, retries: 1, retryAfterMs: H });
  const first = s.due(0).dial;
  assert.deepEqual(first.map((a) => a.key), ['a#1']);
  assert.deepEqual(s.due(0).dial, [], 'running: not again');
  s.finished('a#1', 'busy', 10);
  s.finished('a#1', 'completed', 11); // a second report of the same attempt changes nothing
  assert.equal(s.state()[0]!.outcomes.join(), 'busy');
  assert.deepEqual(s.due(10).dial, [], 'the retry waits');
  assert.equal(s.due(10).wakeAt, 10 + H);
  assert.deepEqual(s.due(10 + H).dial.map((a) => a.key), ['a#2']);
  s.finished('a#2', 'busy', 10 + H + 1);
  assert.equal(s.done, true, 'retries used up');
  assert.throws(() => new CampaignSchedule([{ id: 'x', number: '1' }, { id: 'x', number: '2' }]), /appears twice/);
});

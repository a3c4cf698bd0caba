import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseContacts, parseDoNotCall } from '../../src/campaign/contacts.ts';
import { afterOutcome, campaignSettings, decide, parseDuration, started } from '../../src/campaign/schedule.ts';
import type { ContactState } from '../../src/campaign/types.ts';
import { isOpen, nextOpening, parseWindow } from '../../src/campaign/window.ts';

const iso = (ms: number) => new Date(ms).toISOString();
const at = (s: string) => Date.parse(s);
const H = 3600_000;

describe('calling windows', () => {
  const w = parseWindow('Sun-Thu 09:00-21:00 Asia/Riyadh');

  it('reads days, hours and the zone', () => {
    assert.deepEqual([...w.days].sort(), [0, 1, 2, 3, 4]);
    assert.equal(w.startMin, 9 * 60);
    assert.equal(w.endMin, 21 * 60);
    assert.equal(w.zone, 'Asia/Riyadh');
    assert.deepEqual([...parseWindow('Thu-Sun 10:00-12:00').days].sort(), [0, 4, 5, 6], 'a range wraps the week');
    assert.deepEqual([...parseWindow('sun,Tuesday,thu 10:00-12:00').days].sort(), [0, 2, 4]);
    assert.equal(parseWindow('daily 08:00-24:00').endMin, 1440);
    assert.equal(parseWindow('daily 08:00-20:00').zone, 'UTC', 'the default zone');
  });

  it('refuses what it cannot read, saying which part', () => {
    assert.throws(() => parseWindow('Sun-Thu 21:00-09:00 Asia/Riyadh'), /must end after they start/);
    assert.throws(() => parseWindow('Sun-Thx 09:00-21:00'), /unknown day "thx"/);
    assert.throws(() => parseWindow('Sun-Thu 09:00-21:00 Mars/Olympus'), /unknown time zone "Mars\/Olympus"/);
    assert.throws(() => parseWindow('9-5'), /days, hours and an optional zone/);
    assert.throws(() => parseWindow('Sun-Thu 9am-5pm'), /HH:MM-HH:MM/);
    assert.throws(() => parseWindow('Sun-Thu 09:00-25:00'), /not a time of day/);
  });

  it('after Thursday 21:00 in Riyadh, opens on Sunday 09:00 (the weekend skipped)', () => {
    const thu = at('2026-11-26T18:30:00Z'); // Thursday 21:30 in Riyadh (UTC+3)
    assert.equal(isOpen(w, thu), false);
    assert.equal(iso(nextOpening(w, thu)), '2026-11-29T06:00:00.000Z');
    assert.equal(isOpen(w, at('2026-11-26T17:59:00Z')), true, 'Thursday 20:59');
    assert.equal(isOpen(w, at('2026-11-26T18:00:00Z')), false, 'closes at 21:00 sharp');
    assert.equal(iso(nextOpening(w, at('2026-11-29T05:00:00Z'))), '2026-11-29T06:00:00.000Z', 'Sunday 08:00: the same day');
    assert.equal(nextOpening(w, at('2026-11-29T07:00:00Z')), at('2026-11-29T07:00:00Z'), 'open: now');
  });

  it('reads the hours in the contact\'s own zone', () => {
    const thu = at('2026-11-26T18:30:00Z'); // 21:30 in Riyadh, 20:30 in Cairo, 13:30 in New York
    assert.equal(isOpen(w, thu, 'Africa/Cairo'), true);
    assert.equal(isOpen(w, thu, 'America/New_York'), true);
    assert.equal(iso(nextOpening(w, at('2026-11-26T19:30:00Z'), 'Africa/Cairo')), '2026-11-29T07:00:00.000Z', 'Sunday 09:00 in Cairo');
  });

  it('zones a day apart: the same moment is Friday in one and Thursday in the other', () => {
    const t = at('2026-11-27T00:00:00Z');
    assert.equal(isOpen(w, t, 'Pacific/Kiritimati'), false, 'Friday 14:00 at UTC+14');
    assert.equal(iso(nextOpening(w, t, 'Pacific/Kiritimati')), '2026-11-28T19:00:00.000Z', 'Sunday 09:00 at UTC+14 is Saturday 19:00 UTC');
    assert.equal(isOpen(w, t, 'Pacific/Pago_Pago'), true, 'Thursday 13:00 at UTC-11');
  });

  it('across a daylight-saving change: the opening is 09:00 local on the new offset', () => {
    const ny = parseWindow('daily 09:00-17:00 America/New_York');
    // Saturday 31 October 2026, 18:00 EDT; summer time ends at 02:00 on Sunday 1 November.
    assert.equal(iso(nextOpening(ny, at('2026-10-31T22:00:00Z'))), '2026-11-01T14:00:00.000Z');
    assert.equal(iso(nextOpening(ny, at('2026-10-30T22:00:00Z'))), '2026-10-31T13:00:00.000Z', 'the day before: EDT');
  });
});

describe('the scheduler', () => {
  const s = campaignSettings({ window: parseWindow('Sun-Thu 09:00-21:00 Asia/Riyadh'), concurrency: 3, retries: 2, retryAfterMs: 2 * H });
  const fresh = (): ContactState => ({ index: 0, contact: { number: '+966500000001', variables: {} }, status: 'pending', attempts: [], notBefore: 0 });
  const sunday10 = at('2026-11-29T07:00:00Z');

  it('dials a due contact in the window, waits for the window otherwise', () => {
    assert.deepEqual(decide(fresh(), s, sunday10, false), { kind: 'dial', attempt: 1 });
    assert.deepEqual(decide(fresh(), s, at('2026-11-27T07:00:00Z'), false), { kind: 'wait', until: at('2026-11-29T06:00:00Z') }, 'Friday: Sunday 09:00');
  });

  it('retries busy after retry-after, within the window, as many times as asked, then stops', () => {
    let c = afterOutcome(started(fresh(), 1, sunday10), { outcome: 'busy' }, s, sunday10 + 60_000);
    assert.equal(c.status, 'pending');
    assert.deepEqual(decide(c, s, sunday10 + H, false), { kind: 'wait', until: sunday10 + 60_000 + 2 * H });
    assert.deepEqual(decide(c, s, sunday10 + 60_000 + 2 * H, false), { kind: 'dial', attempt: 2 });
    // The second try ends at 20:00: the third would be at 22:00, past the window: Monday 09:00.
    const eight = at('2026-11-29T17:00:00Z');
    c = afterOutcome(started(c, 2, eight - 60_000), { outcome: 'no-answer' }, s, eight);
    assert.deepEqual(decide(c, s, eight + 2 * H, false), { kind: 'wait', until: at('2026-11-30T06:00:00Z') });
    c = afterOutcome(started(c, 3, at('2026-11-30T06:00:00Z')), { outcome: 'machine-unavailable' }, s, at('2026-11-30T06:01:00Z'));
    assert.equal(c.status, 'done', 'two retries after the first attempt, then no more');
    assert.deepEqual(decide(c, s, at('2026-11-30T12:00:00Z'), false), { kind: 'finished' });
  });

  it('does not retry a completed call, a voicemail or an attempt of unknown end', () => {
    for (const outcome of ['completed', 'machine-voicemail', 'failed-unknown', 'invalid'] as const) {
      const c = afterOutcome(started(fresh(), 1, sunday10), { outcome }, s, sunday10 + 1000);
      assert.equal(c.status, 'done', outcome);
    }
    const failed = afterOutcome(started(fresh(), 1, sunday10), { outcome: 'failed' }, s, sunday10 + 1000);
    assert.equal(failed.status, 'pending', 'failed is retried');
  });

  it('checks the do-not-call list before every dial, the retries included', () => {
    assert.deepEqual(decide(fresh(), s, sunday10, true), { kind: 'do-not-call' });
    const c = afterOutcome(started(fresh(), 1, sunday10), { outcome: 'busy' }, s, sunday10);
    assert.deepEqual(decide(c, s, sunday10 + 3 * H, true), { kind: 'do-not-call' });
  });

  it('never dials again an attempt found started without an outcome: it is resolved first', () => {
    const c = started(fresh(), 1, sunday10);
    assert.deepEqual(decide(c, s, sunday10 + H, false), { kind: 'recover', attempt: 1 });
    assert.deepEqual(decide(c, s, sunday10 + H, true), { kind: 'recover', attempt: 1 }, 'even for a number listed since');
  });

  it('reads durations and refuses bad settings', () => {
    assert.equal(parseDuration('2h'), 2 * H);
    assert.equal(parseDuration('90s'), 90_000);
    assert.equal(parseDuration('15m'), 900_000);
    assert.throws(() => parseDuration('two hours'), /90s, 15m, 2h or 1d/);
    assert.throws(() => campaignSettings({ concurrency: 0 }), /concurrency must be a whole number from 1/);
    assert.throws(() => campaignSettings({ retries: 1.5 }), /retries must be a whole number/);
  });
});

describe('contacts and do-not-call files', () => {
  it('reads the number, the zone and every other column as variables; bad rows by line, nothing dialled for them', () => {
    const csv = [
      'number,name,amount,timezone',
      '+966500000001,سارة,1500,',
      '00966 50 000 0002,"Ali, Jr.",200,Asia/Riyadh',
      'not-a-number,x,1,',
      '+966500000001,again,1,',
      '+966500000003,short',
      '+201000000004,منى,"3,000",Africa/Cairo',
      '+966500000005,z,1,Mars/Olympus',
      '',
    ].join('\r\n');
    const p = parseContacts(csv);
    assert.deepEqual(p.columns, ['name', 'amount']);
    assert.deepEqual(p.contacts.map((c) => c.number), ['+966500000001', '+966500000002', '+201000000004']);
    assert.deepEqual(p.contacts[1]!.variables, { name: 'Ali, Jr.', amount: '200' });
    assert.equal(p.contacts[1]!.timeZone, 'Asia/Riyadh');
    assert.deepEqual(p.contacts[2]!.variables, { name: 'منى', amount: '3,000' });
    assert.equal(p.contacts[0]!.timeZone, undefined);
    assert.deepEqual(p.bad.map((b) => b.line), [4, 5, 6, 8]);
    assert.match(p.bad[0]!.message, /"not-a-number" is not a phone number/);
    assert.match(p.bad[1]!.message, /already on line 2/);
    assert.match(p.bad[2]!.message, /2 fields where the header has 4/);
    assert.match(p.bad[3]!.message, /unknown time zone/);
  });

  it('refuses a file without a number column, and a bad variable name', () => {
    assert.throws(() => parseContacts('phone,name\n+966500000001,x\n'), /no "number" column \(it has: phone, name\)/);
    assert.throws(() => parseContacts('number,1st\n+966500000001,x\n'), /column "1st"/);
    assert.throws(() => parseContacts(''), /empty/);
  });

  it('reads a do-not-call list, one number a line or a CSV with a number column', () => {
    assert.deepEqual([...parseDoNotCall('# opted out\n+966500000001\n\n0096650 000 0002 # by phone\n')], ['+966500000001', '+966500000002']);
    assert.deepEqual([...parseDoNotCall('number,reason\n+966500000009,asked\n')], ['+966500000009']);
    assert.throws(() => parseDoNotCall('+966500000001\nhello\n'), /line 2: "hello"/);
    assert.throws(() => parseDoNotCall('number\n+966500000001\nnope\n'), /line 3: "nope" is not a phone number/);
  });
});

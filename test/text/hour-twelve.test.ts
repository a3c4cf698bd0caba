// Every clock hour 1–12 said with each part-of-day word, for the edge at 12. Written by hand from
// what the words mean (Hinds & Badawi, "A Dictionary of Egyptian Arabic", 1986; Qafisheh, "NTC's
// Gulf Arabic-English Dictionary", 1997; Cowell, "A Reference Grammar of Syrian Arabic", 1964, on
// telling time): الصبح is the morning, from the small hours to noon; noon itself is الضهر (the noon
// prayer's time), midnight is اتناشر بالليل. So 12 said with الصبح, الفجر or العصر is neither of
// its readings' part: 00:00 is the night's, 12:00 noon's. Callers who say "اتناشر الصبح" mean
// either (midnight by analogy with "12 a.m.", noon as "the end of the morning"), so the hour is
// asked again, without the part, rather than guessed. The 12-hour clock's own markers are no help
// at 12: "12 a.m." and "12 p.m." are ambiguous (NIST, "Times of Day FAQs": avoid them, say "12
// noon" or "12 midnight"), so 12 with صباحًا, am, pm, قبل الظهر or بعد الظهر is asked again too;
// the colloquial المسا (and مساءً, which callers say alike) is the evening, which noon never is: 12
// of it is midnight. Other hours: the part's span (docs/arabic-parsing.md), e.g. العصر from 13:00
// to sunset (about 19:00 in the Gulf in summer), المغرب 16:30–20:30, العشا from nightfall.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDate, parseHour } from '../../src/text/parse-date.ts';

const now = new Date('2027-01-14T08:00:00Z'); // Thursday 11:00 in Riyadh
const opts = { now, timeZone: 'Asia/Riyadh' };
const HOURS = ['وحدة', 'اتنين', 'تلاتة', 'أربعة', 'خمسة', 'ستة', 'سبعة', 'تمانية', 'تسعة', 'عشرة', 'حداشر', 'اتناشر'];

/** Part word → the time meant for each hour 1..12 ('+': on the next date, the night's small hours), or 'ask'. */
const TABLE: Record<string, string[]> = {
  'الفجر': ['01:00', '02:00', '03:00', '04:00', '05:00', '06:00', '07:00', 'ask', 'ask', 'ask', 'ask', 'ask'],
  'الصبح': ['01:00', '02:00', '03:00', '04:00', '05:00', '06:00', '07:00', '08:00', '09:00', '10:00', '11:00', 'ask'],
  'الضهر': ['13:00', '14:00', '15:00', '16:00', '17:00', 'ask', 'ask', 'ask', 'ask', 'ask', '11:00', '12:00'],
  'العصر': ['13:00', '14:00', '15:00', '16:00', '17:00', '18:00', '19:00', 'ask', 'ask', 'ask', 'ask', 'ask'],
  'المغرب': ['ask', 'ask', 'ask', 'ask', '17:00', '18:00', '19:00', '20:00', 'ask', 'ask', 'ask', 'ask'],
  'العشا': ['ask', 'ask', 'ask', 'ask', 'ask', '18:00', '19:00', '20:00', '21:00', '22:00', '23:00', '+00:00'],
  'بالليل': ['+01:00', '+02:00', '+03:00', '+04:00', '17:00', '18:00', '19:00', '20:00', '21:00', '22:00', '23:00', '+00:00'],
};

const got = (d: { date: string; time?: string; hourOutsidePart?: string } | undefined) =>
  (!d || d.hourOutsidePart || !d.time ? 'ask' : `${d.date === '2027-01-16' ? '+' : ''}${d.time}`);

test('every hour 1–12 with each part of the day, said in one breath and after the part', () => {
  for (const [part, meant] of Object.entries(TABLE)) {
    const on = parseDate(`بكرة ${part}`, opts)!;
    HOURS.forEach((hour, i) => {
      assert.equal(got(parseDate(`بكرة الساعة ${hour} ${part}`, opts)), meant[i], `بكرة الساعة ${hour} ${part}`);
      assert.equal(got(parseHour(hour, on, opts)), meant[i], `بكرة ${part} → ${hour}`);
    });
  }
});

test('12 with a part it is not in is asked without the part: noon or midnight, not the morning', () => {
  for (const text of ['بكرة الساعة اتناشر الصبح', 'بكرة الساعة 12 الفجر', 'بكرة اتناشر العصر', 'بكرة الساعة اتناشر ونص الصبح']) {
    const d = parseDate(text, opts);
    assert.equal(d?.time, undefined, text);
    assert.equal(d?.partOfDay, undefined, `${text}: the part is not kept, so the question is the hour alone`);
    assert.ok(d?.hourOutsidePart, text);
  }
  // Another hour outside its part keeps the part: the question names it.
  assert.equal(parseDate('بكرة تسعة العصر', opts)?.partOfDay, 'afternoon');
});

test('12 with the a.m. and p.m. markers is asked again; the colloquial evening\'s 12 is midnight', () => {
  for (const text of ['بكرة 12 صباحًا', 'بكرة 12 am', 'بكرة 12 pm', 'بكرة الساعة اتناشر قبل الظهر', 'بكرة الساعة اتناشر بعد الظهر']) {
    const d = parseDate(text, opts);
    assert.deepEqual({ time: d?.time, outside: !!d?.hourOutsidePart }, { time: undefined, outside: true }, text);
  }
  // Half past 12 is one time with either marker: 00:30 a.m., 12:30 p.m.
  assert.equal(parseDate('بكرة 12:30 am', opts)?.time, '00:30');
  assert.equal(parseDate('بكرة 12:30 pm', opts)?.time, '12:30');
  for (const text of ['بكرة الساعة اتناشر المسا', 'بكرة 12 مساءً']) {
    const d = parseDate(text, opts);
    assert.deepEqual({ date: d?.date, time: d?.time }, { date: '2027-01-16', time: '00:00' }, text);
  }
  // The noon of الضهر and the midnight of بالليل, as before.
  assert.equal(parseDate('بكرة الساعة اتناشر الضهر', opts)?.time, '12:00');
  assert.deepEqual(parseDate('بكرة الساعة اتناشر بالليل', opts)?.date, '2027-01-16');
});

test('0 keyed or written without a part is midnight, not 12:00', () => {
  assert.equal(parseDate('بكرة الساعة 0:30', opts)?.time, '00:30');
});

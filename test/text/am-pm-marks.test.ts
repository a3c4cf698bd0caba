// ص and م, the 12-hour clock's a.m. and p.m. as Arabic writes them, and midnight named.
// Source: the Unicode CLDR's Arabic locale (common/main/ar.xml, gregorian calendar): dayPeriods
// `am` = "ص", `pm` = "م" (format context, every width), time formats "h:mm a" (h is 1–12: 00:30
// is "12:30 ص", noon "12:00 م", by LDML's am 00:00–11:59 and pm 12:00–23:59); the flexible day
// periods name 00:00–01:00 "منتصف الليل" (night1) and 12:00–13:00 "ظهرًا" (afternoon1); the era
// abbreviation of AD is also "م" ("٢٠٢٧م"). At 12 exactly the pair is what "12 a.m." and "12 p.m."
// are in English, read either way by people (NIST, "Times of Day FAQs": say "12 noon", "12
// midnight"), so 12 ص and 12 م are asked, as 12 صباحًا and 12 am are; half past is one time
// either way. The table is written by hand from those rules; the last test checks that what ICU's
// copy of CLDR writes for each half hour reads back as that half hour.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dateTask, type CollectTask, type ParsedDate, type TaskInput, type TaskStep } from '../../src/index.ts';
import { parseDate } from '../../src/text/parse-date.ts';

const now = new Date('2027-01-14T08:00:00Z'); // Thursday 11:00 in Riyadh
const opts = { now, timeZone: 'Asia/Riyadh' };
const say = (text: string): TaskInput => ({ kind: 'speech', text });
function run<T>(task: CollectTask<T>, inputs: TaskInput[]): TaskStep<T>[] {
  const steps = [task.start()];
  for (const input of inputs) steps.push(task.next(input));
  return steps;
}

/** Said or typed → [date, time] ('ask': no time, the 12 asked without a part). */
const CASES: [string, string, string][] = [
  ['9 ص', '2027-01-15', '09:00'], // 09:00 today has passed at 11:00
  ['9 م', '2027-01-14', '21:00'],
  ['بكرة 9 م', '2027-01-15', '21:00'],
  ['بكرة ٩ ص', '2027-01-15', '09:00'],
  ['بكرة 11:45م', '2027-01-15', '23:45'],
  ['بكرة الساعة ٤ م', '2027-01-15', '16:00'],
  ['بكرة الساعة تسعة ونص م', '2027-01-15', '21:30'],
  ['بكرة 12:30 ص', '2027-01-15', '00:30'],
  ['بكرة ١٢:٣٠ ص', '2027-01-15', '00:30'],
  ['بكرة 12:30 م', '2027-01-15', '12:30'],
  ['12 ص', '2027-01-14', 'ask'],
  ['12 م', '2027-01-14', 'ask'],
  ['١٢ ص', '2027-01-14', 'ask'],
  ['١٢ م', '2027-01-14', 'ask'],
  ['الساعة 12 ص', '2027-01-14', 'ask'], // was noon: ص was not read
  ['بكرة الساعة 12 م', '2027-01-15', 'ask'],
  ['12 صباحاً', '2027-01-14', 'ask'],
  ['12 مساءً', '2027-01-15', '00:00'], // the evening's 12, midnight, as before
  // م after a year is the era, no time.
  ['١٥ مارس ٢٠٢٧م', '2027-03-15', ''],
  ['١٥ مارس ٢٠٢٧ م الساعة ٣ م', '2027-03-15', '15:00'],
];

const got = (d: ParsedDate | undefined) => (d?.hourOutsidePart ? 'ask' : (d?.time ?? ''));

test('ص and م after an hour are a.m. and p.m.; 12 with either is asked, half past 12 is one time', () => {
  for (const [text, date, time] of CASES) {
    const d = parseDate(text, opts);
    assert.deepEqual([d?.date, got(d)], [date, time], text);
    if (time === 'ask') assert.equal(d?.partOfDay, undefined, `${text}: asked without a part`);
  }
});

test('dateTask: 12 م typed or said bare is asked noon or midnight, and the answer read', () => {
  const noon = run(dateTask(opts), [say('12 م'), say('الظهر'), say('نعم')]);
  assert.match(noon[1]!.say!, /الثانية عشرة ظهرًا أم منتصف الليل/);
  const value = noon[3]!.done?.ok ? noon[3]!.done.value : undefined;
  assert.deepEqual([value?.date, value?.time], ['2027-01-14', '12:00']);
  const midnight = run(dateTask(opts), [say('بكرة ١٢ ص'), say('منتصف الليل'), say('نعم')]);
  assert.equal(midnight[3]!.done?.ok && midnight[3]!.done.value.time, '00:00');
  assert.equal(midnight[3]!.done?.ok && midnight[3]!.done.value.date, '2027-01-16');
});

test('midnight named: منتصف الليل and نص الليل are 00:00 ending the day said, with 12 or alone', () => {
  // Before: "بكرة نص الليل" was 00:30 (نص read as half past), "الساعة اتناشر نص الليل" the time
  // "00:0.5", and منتصف الليل alone the night's 21:00.
  for (const text of ['بكرة نص الليل', 'بكرة منتصف الليل', 'بكرة الساعة ١٢ منتصف الليل', 'بكرة الساعة اتناشر نص الليل', 'بكرة نصف الليل']) {
    const d = parseDate(text, opts);
    assert.deepEqual([d?.date, d?.time, d?.partOfDay], ['2027-01-16', '00:00', undefined], text);
  }
  // Said without a day: tonight's.
  assert.deepEqual([parseDate('منتصف الليل', opts)?.date, parseDate('منتصف الليل', opts)?.time], ['2027-01-15', '00:00']);
  // An hour with it is of that night (01:00 after the midnight).
  assert.deepEqual([parseDate('بكرة وحدة نص الليل', opts)?.date, parseDate('بكرة وحدة نص الليل', opts)?.time], ['2027-01-16', '01:00']);
});

test('what ICU\'s CLDR writes for each half hour in Arabic (h:mm with ص or م) reads back as that half hour', () => {
  for (const locale of ['ar', 'ar-SA', 'ar-EG', 'ar-u-nu-latn']) {
    const format = new Intl.DateTimeFormat(locale, { hour: 'numeric', minute: '2-digit', hour12: true, timeZone: 'UTC' });
    for (let h = 0; h < 24; h++) {
      const written = format.format(Date.UTC(2027, 0, 20, h, 30));
      assert.equal(parseDate(`بكرة ${written}`, opts)?.time, `${String(h).padStart(2, '0')}:30`, `${locale}: ${written}`);
    }
  }
});

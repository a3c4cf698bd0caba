// The words for the parts of the day said with a clock hour, as callers mean them: each case is
// a part-of-day word × an hour, with the 24-hour time meant or "ask" (neither reading of the hour
// lies in the part: the task asks the hour again). Written from the descriptions of the words:
// - العصر: "afternoon; the time of the afternoon prayer", to sunset (Hinds & Badawi, "A Dictionary
//   of Egyptian Arabic", 1986, ʿaṣr; Qafisheh, "NTC's Gulf Arabic-English Dictionary", 1997,
//   ʿaṣir): callers use it for the afternoon's clock hours up to sunset;
// - المغرب: "sunset; the time of the sunset prayer", from sunset to nightfall;
// - العشا: "the time of the night prayer", from nightfall (an hour and a half after sunset in
//   the Umm al-Qura timetable) into the night;
// - الضهر/الظهر: "noon; the time of the noon prayer", from late morning to the afternoon prayer;
// - الصبح: "morning", the small hours included ("الساعة تلاتة الصبح");
// - الفجر: "dawn"; in everyday speech also the small hours before it ("الساعة اتنين الفجر",
//   our reading of how callers use it, not a dictionary's);
// - بالليل: "at night", from nightfall to the small hours, which belong to that night.
// Sunset and nightfall move with the season and the city: sunset is about 16:45 in Doha and
// Kuwait in December, 19:05 in Riyadh and about 20:00 in Cairo (summer time) in June (standard
// sunrise and sunset tables, rounded), so the afternoon runs to 19:00 and the sunset to 20:30.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dateTask, type TaskInput } from '../../src/index.ts';
import { parseDate, parseHour } from '../../src/text/parse-date.ts';

const now = new Date('2027-01-14T08:00:00Z'); // Thursday 11:00 in Riyadh
const opts = { now, timeZone: 'Asia/Riyadh' };

/** word → [hour said, time meant ('+' before it: the night's small hours, on the next date), or 'ask']. */
const CASES: Record<string, [string, string][]> = {
  'العصر': [['اتنين', '14:00'], ['تلاتة', '15:00'], ['أربعة', '16:00'], ['خمسة ونص', '17:30'], ['ستة', '18:00'], ['ستة ونص', '18:30'], ['ستة وخمسة وأربعين', '18:45'], ['سبعة', '19:00'], ['سبعة ونص', 'ask'], ['تسعة', 'ask'], ['عشرة', 'ask']],
  'المغرب': [['أربعة ونص', '16:30'], ['خمسة', '17:00'], ['ستة', '18:00'], ['سبعة', '19:00'], ['تمانية', '20:00'], ['تمانية ونص', '20:30'], ['تسعة', 'ask'], ['عشرة', 'ask'], ['تلاتة', 'ask']],
  'العشا': [['ستة ونص', '18:30'], ['سبعة', '19:00'], ['تمانية', '20:00'], ['تسعة', '21:00'], ['عشرة', '22:00'], ['حداشر', '23:00'], ['خمسة', 'ask'], ['تلاتة', 'ask']],
  'الضهر': [['حداشر', '11:00'], ['اتناشر', '12:00'], ['وحدة', '13:00'], ['اتنين', '14:00'], ['تلاتة', '15:00'], ['خمسة', '17:00'], ['ستة', 'ask'], ['تسعة', 'ask']],
  'الصبح': [['تلاتة', '03:00'], ['ستة', '06:00'], ['سبعة ونص', '07:30'], ['تسعة', '09:00'], ['حداشر', '11:00']],
  'الفجر': [['اتنين', '02:00'], ['أربعة', '04:00'], ['خمسة ونص', '05:30'], ['ستة', '06:00'], ['تسعة', 'ask']],
  'بالليل': [['ستة', '18:00'], ['تسعة', '21:00'], ['حداشر', '23:00'], ['اتناشر', '+00:00'], ['وحدة', '+01:00'], ['تلاتة', '+03:00']],
};

test('each part-of-day word with a clock hour, said in one breath: the time meant, or the hour asked again', () => {
  for (const [word, hours] of Object.entries(CASES)) {
    for (const [hour, meant] of hours) {
      const text = `بكرة الساعة ${hour} ${word}`;
      const d = parseDate(text, opts);
      const got = d?.hourOutsidePart ? 'ask' : `${d?.date === '2027-01-16' ? '+' : ''}${d?.time}`;
      assert.equal(got, meant, text);
      if (meant !== 'ask') assert.equal(d?.date, meant.startsWith('+') ? '2027-01-16' : '2027-01-15', text);
    }
  }
});

test('the same hours said after the part was named ("بكرة العصر", then the hour)', () => {
  for (const [word, hours] of Object.entries(CASES)) {
    const on = parseDate(`بكرة ${word}`, opts)!;
    for (const [hour, meant] of hours) {
      const d = parseHour(hour, on, opts);
      const got = d === undefined ? 'ask' : `${d.date === '2027-01-16' ? '+' : ''}${d.time}`;
      assert.equal(got, meant, `بكرة ${word} → ${hour}`);
    }
  }
});

test('«ستة ونص العصر» is 18:30, not asked again', () => {
  const task = dateTask({ now });
  task.start();
  const step = task.next({ kind: 'speech', text: 'بكرة ستة ونص العصر' } satisfies TaskInput);
  assert.match(step.say!, /الساعة السادسة والنصف/);
  assert.doesNotMatch(step.say!, /في أي ساعة/);
});

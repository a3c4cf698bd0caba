/**
 * An hour said in one breath with a part of the day it is not in ("تسعة ونص العصر": العصر is the
 * afternoon, from noon to sunset, and neither 09:30 nor 21:30 is in it) is not read by the
 * period table's rule (21:30): the parser marks it (`hourOutsidePart`) and `dateTask` asks the
 * hour of that part. Neighbouring parts with hours inside and outside their spans; the a.m./p.m.
 * markers (صباحًا، مساءً، pm) take the whole half day. Expected values are ours, from the spans in
 * docs/arabic-parsing.md.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dateTask, type TaskInput } from '../../src/index.ts';
import { parseDate } from '../../src/text/parse-date.ts';

const now = new Date('2027-01-14T08:00:00Z'); // Thursday 11:00 in Riyadh
const read = (text: string) => parseDate(text, { now, timeZone: 'Asia/Riyadh' });
const say = (text: string): TaskInput => ({ kind: 'speech', text });

test('an hour inside the part said is read by the period table', () => {
  const inside: [string, string, string][] = [
    ['بكرة أربعة ونص العصر', '2027-01-15', '16:30'],
    ['بكرة الساعة ستة العصر', '2027-01-15', '18:00'],
    // العصر runs to sunset, which is about 19:00 in the Gulf in summer (test/text/day-parts.test.ts).
    ['بكرة الساعة سبعة العصر', '2027-01-15', '19:00'],
    ['بكرة الساعة اتناشر الظهر', '2027-01-15', '12:00'],
    ['بكرة وحدة الظهر', '2027-01-15', '13:00'],
    ['بكرة سبعة المغرب', '2027-01-15', '19:00'],
    ['بكرة تسعة العشا', '2027-01-15', '21:00'],
    ['بكرة عشرة بالليل', '2027-01-15', '22:00'],
    // The small hours of tomorrow's night are on the date after it.
    ['بكرة الساعة وحدة بالليل', '2027-01-16', '01:00'],
    ['بكرة أربعة الفجر', '2027-01-15', '04:00'],
    // صباحًا and مساءً are the 12-hour clock's a.m. and p.m. (ص، م): the whole half day.
    ['بكرة الساعة الثالثة مساءً', '2027-01-15', '15:00'],
    ['بكرة 7 pm', '2027-01-15', '19:00'],
    ['بكرة الساعة الثالثة بعد الظهر', '2027-01-15', '15:00'],
    ['بكرة الساعة العاشرة قبل الظهر', '2027-01-15', '10:00'],
  ];
  for (const [text, date, time] of inside) {
    const d = read(text);
    assert.deepEqual({ date: d?.date, time: d?.time, outside: d?.hourOutsidePart }, { date, time, outside: undefined }, text);
  }
});

test('an hour outside the part said is marked, with no time: the part is kept, the hour is not guessed', () => {
  const outside: [string, string, string][] = [
    ['بكرة تسعة ونص العصر', 'afternoon', 'تسعه ونص'],
    ['بكرة الساعة تمانية العصر', 'afternoon', 'تمانيه'],
    ['بكرة تسعة الظهر', 'noon', 'تسعه'],
    ['بكرة عشرة المغرب', 'sunset', 'عشره'],
    ['بكرة ثلاثة العشا', 'evening', 'ثلاثه'],
    ['بكرة الساعة 14:00 بالليل', 'night', '14:00'],
    ['بكرة تسعة الفجر', 'dawn', 'تسعه'],
  ];
  for (const [text, part, hour] of outside) {
    const d = read(text);
    assert.deepEqual(
      { date: d?.date, time: d?.time, partOfDay: d?.partOfDay, outside: d?.hourOutsidePart },
      { date: '2027-01-15', time: undefined, partOfDay: part, outside: hour },
      text,
    );
  }
  // Said alone, the day is the part's next one: this afternoon (it is 11:00).
  assert.equal(read('تسعة ونص العصر')?.date, '2027-01-14');
});

test('dateTask asks the hour of the afternoon after «تسعة ونص العصر», and reads the answer on that day', () => {
  const task = dateTask({ now });
  task.start();
  const asked = task.next(say('بكرة الساعة تسعة ونص العصر'));
  assert.equal(asked.say, 'في أي ساعة بعد الظهر؟');
  assert.equal(asked.done, undefined);
  const heard = task.next(say('ثلاثة ونص'));
  assert.match(heard.say!, /الساعة الثالثة والنصف/);
  const done = task.next(say('أيوه'));
  assert.deepEqual(done.done && done.done.ok && { date: done.done.value.date, time: done.done.value.time }, { date: '2027-01-15', time: '15:30' });
});

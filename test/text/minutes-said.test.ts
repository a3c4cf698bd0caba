// Minutes as callers say them around the half hour, and a numeral hour with a fraction word.
// Egyptian and Levantine tell the minutes on either side of the half from it: "اتنين ونص إلا
// خمسة" is 2:25 and "اتنين ونص وخمسة" 2:35 (Abdel-Massih, An Introduction to Egyptian Arabic,
// 1975, telling time; Cowell, A Reference Grammar of Syrian Arabic, 1964, on the hour; the
// Kallimni ʿArabi series). A transcript writes the hour as a numeral and the half as a word
// ("الساعة 7 ونص"); that is 7:30; and typed with a point, "الساعة 7.30", it is 7:30 too (Hart's
// Rules, Oxford, 11.3: a colon or a full point between hours and minutes). Times written by hand;
// "now" is Thursday 11:00 in Riyadh.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDate } from '../../src/text/parse-date.ts';

const opts = { now: new Date('2027-01-14T08:00:00Z'), timeZone: 'Asia/Riyadh' };

const CASES: [string, string][] = [
  // Before: 15:55 (the half dropped, five to four) and 16:30 (the five dropped).
  ['بكرة الساعة أربعة ونص إلا خمسة', '16:25'],
  ['بكرة الساعة أربعة ونص وخمسة', '16:35'],
  ['بكرة الساعة اتنين ونص إلا خمسة الضهر', '14:25'],
  ['بكرة الساعة تسعة ونص وعشرة الصبح', '09:40'],
  ['بكرة الساعة سبعة وربع وخمسة بالليل', '19:20'],
  // Before: the minute "0.5", "0.25": no valid time at all.
  ['بكرة الساعة 7 ونص', '07:30'],
  ['بكرة الساعة ١٠ ونص الصبح', '10:30'],
  ['بكرة الساعة 4 وربع العصر', '16:15'],
  ['بكرة الساعة ٨ وتلت بالليل', '20:20'],
  // A half said twice is one half (it gave the minute "30.5").
  ['بكرة الساعة سبعة ونص ونص', '07:30'],
  // A point between hours and minutes, as typed (Hart's Rules 11.3: a colon or a full point) or
  // with the Arabic decimal separator: before, 7.3 hours (07:18) and 9.25 hours (09:09).
  ['بكرة الساعة 7.30', '07:30'],
  ['بكرة الساعة ٧٫٣٠ مساءً', '19:30'],
  ['بكرة ٩.١٥ الصبح', '09:15'],
  ['بكرة 7.30 م', '19:30'],
  // As before.
  ['بكرة الساعة ستة إلا عشرة', '17:50'],
  ['بكرة الساعة وحدة إلا ربع الضهر', '12:45'],
  ['بكرة الساعة خمسة وعشرة', '17:10'],
  ['بكرة الساعة أربعة ونص', '16:30'],
];

test('minutes past and to the half hour, and a numeral hour with ونص, وربع, وتلت', () => {
  for (const [text, time] of CASES) {
    const d = parseDate(text, opts);
    assert.deepEqual([d?.date, d?.time], ['2027-01-15', time], text);
  }
});

test('every time given is HH:MM', () => {
  for (const [text] of CASES) assert.match(parseDate(text, opts)?.time ?? '', /^(?:[01]\d|2[0-3]):[0-5]\d$/, text);
});

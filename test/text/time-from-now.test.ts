// A time counted from now, as callers ask to be called back: "بعد ساعتين", "بعد نص ساعة", "بعد
// ساعة ونص", Gulf "عقب ساعة" (Holes: ʿugub "after"), Levantine "كمان ساعة" (Cowell: kamān
// "more": in another hour). Written by hand; "now" is Thursday 11:00 in Riyadh (08:00 UTC).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDate } from '../../src/text/parse-date.ts';

const at = (iso: string) => ({ now: new Date(iso), timeZone: 'Asia/Riyadh' });
const opts = at('2027-01-14T08:00:00Z');

const CASES: [string, string, string][] = [
  ['بعد ساعة', '2027-01-14', '12:00'],
  ['بعد ساعتين', '2027-01-14', '13:00'],
  ['اتصل فيني بعد ساعتين لو سمحت', '2027-01-14', '13:00'],
  ['بعد نص ساعة', '2027-01-14', '11:30'],
  ['بعد ربع ساعة', '2027-01-14', '11:15'],
  ['بعد ساعة ونص', '2027-01-14', '12:30'], // was 00:30 tomorrow: ساعة read as "o'clock", ونص as its half hour
  ['بعد ساعة إلا ربع', '2027-01-14', '11:45'],
  ['بعد تلات ساعات', '2027-01-14', '14:00'],
  ['بعد عشر دقايق', '2027-01-14', '11:10'],
  ['بعد ٢٠ دقيقة', '2027-01-14', '11:20'],
  ['عقب ساعة', '2027-01-14', '12:00'],
  ['كمان ساعة', '2027-01-14', '12:00'],
  ['بعد ساعة، لا قصدي بعد ساعتين', '2027-01-14', '13:00'],
];

test('a span from now gives the time it ends at', () => {
  for (const [text, date, time] of CASES) {
    const d = parseDate(text, opts);
    assert.deepEqual([d?.date, d?.time, d?.partOfDay], [date, time, undefined], text);
  }
});

test('across midnight, and "after five o\'clock" stays a time of day', () => {
  const late = parseDate('بعد ساعة', at('2027-01-14T20:30:00Z')); // 23:30 in Riyadh
  assert.deepEqual([late?.date, late?.time], ['2027-01-15', '00:30']);
  assert.equal(parseDate('بعد الساعة خمسة', opts)?.time, '17:00');
  assert.equal(parseDate('بعد الظهر', opts)?.partOfDay, 'afternoon');
});

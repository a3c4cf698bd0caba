// The day before yesterday said with each variety's short word for yesterday. Levantine أول
// مبارح (Cowell, A Reference Grammar of Syrian Arabic, 1964: ʾawwal mbāreḥ) and قبل مبارح; Gulf
// أول البارح، قبل البارح (Holes, Colloquial Arabic of the Gulf; Qafisheh's Gulf dictionary: il-bārḥa
// and il-bārḥ for yesterday); Moroccan ولبارح (Harrell, A Dictionary of Moroccan Arabic, 1966:
// wəlbarəḥ), also written joined to أول (اولبارح). Written by hand; "now" is Thursday 14 January.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDate } from '../../src/text/parse-date.ts';

const opts = { now: new Date('2027-01-14T08:00:00Z'), timeZone: 'Asia/Riyadh', prefer: 'past' as const };

test('the day before yesterday with مبارح and البارح is two days ago, not yesterday', () => {
  for (const text of ['أول مبارح', 'قبل مبارح', 'اتصلت أول البارح', 'قبل البارح', 'جيت ولبارح', 'اولبارح']) {
    assert.equal(parseDate(text, opts)?.date, '2027-01-12', text);
  }
  // Yesterday itself, as before.
  for (const text of ['مبارح', 'البارح', 'امبارح', 'البارحة']) assert.equal(parseDate(text, opts)?.date, '2027-01-13', text);
});

test('"من" with a span is that long ago ("من يومين", two days ago); "من يوم…" is "since the day…"', () => {
  assert.equal(parseDate('اتصلت من يومين', opts)?.date, '2027-01-12');
  assert.equal(parseDate('من تلات أيام', opts)?.date, '2027-01-11');
  assert.equal(parseDate('من أسبوع', opts)?.date, '2027-01-07');
  assert.notEqual(parseDate('من يوم الخميس', opts)?.date, '2027-01-13');
});

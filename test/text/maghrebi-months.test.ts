// The Maghreb's month names: Tunisia and Algeria name the Gregorian months after the French
// (جانفي، فيفري، مارس، أفريل، ماي، جوان، جويلية، أوت، سبتمبر، أكتوبر، نوفمبر، ديسمبر), Morocco after
// the Spanish and French (…، ماي، يونيو، يوليوز، غشت، شتنبر، أكتوبر، نونبر، دجنبر) and Mauritania
// (…، أغشت، شتمبر، …، دجمبر): the Unicode CLDR's Arabic locales ar_TN, ar_DZ, ar_MA and ar_MR
// (common/main/ar_*.xml, months), and Wikipedia's "Arabic names of calendar months". The cases
// are written by hand; the last test checks that ICU's copy of CLDR writes no month these miss.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseDate } from '../../src/text/parse-date.ts';

const opts = { now: new Date('2027-01-14T08:00:00Z'), timeZone: 'Asia/Riyadh' };

const CASES: [string, string][] = [
  ['١٥ جانفي', '2027-01-15'],
  ['عشرين فيفري', '2027-02-20'],
  ['15 أفريل', '2027-04-15'],
  ['أول ماي', '2027-05-01'],
  ['خمسطاش جوان', '2027-06-15'],
  ['الخامس من جويلية ٢٠٢٧', '2027-07-05'],
  ['عشرة أوت', '2027-08-10'],
  ['تلاتين يوليوز', '2027-07-30'],
  ['عشرين غشت', '2027-08-20'],
  ['١٠ شتنبر', '2027-09-10'],
  ['٣ نونبر', '2027-11-03'],
  ['٢٥ دجنبر', '2027-12-25'],
  ['١٢ أغشت', '2027-08-12'],
  ['٩ شتمبر', '2027-09-09'],
  ['٣١ دجمبر', '2027-12-31'],
];

test('Tunisian, Algerian, Moroccan and Mauritanian month names', () => {
  for (const [text, date] of CASES) assert.equal(parseDate(text, opts)?.date, date, text);
});

test('ماي is a month only after a day: the Gulf\'s "water" is no date', () => {
  assert.equal(parseDate('عطني ماي', opts), undefined);
  assert.equal(parseDate('أبي ماي بارد بكرة', opts)?.date, '2027-01-15');
});

test('every month as ICU\'s CLDR writes it for the Maghreb reads back as that month', () => {
  for (const locale of ['ar-TN', 'ar-DZ', 'ar-MA', 'ar-MR', 'ar-LY']) {
    const format = new Intl.DateTimeFormat(locale, { month: 'long', timeZone: 'UTC' });
    for (let m = 0; m < 12; m++) {
      const name = format.format(Date.UTC(2027, m, 1));
      assert.equal(parseDate(`عشرة ${name} ٢٠٢٧`, opts)?.date, `2027-${String(m + 1).padStart(2, '0')}-10`, `${locale}: ${name}`);
    }
  }
});

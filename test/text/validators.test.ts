import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  isValidIban, parseDate, isValidSaudiId, luhn, normalizePhone, readBackAmount, readBackDate, readBackDigits, readBackIban, readBackPhone,
} from '../../src/text/index.ts';

test('Luhn: the standard test card numbers pass, one changed digit fails', () => {
  assert.equal(luhn('4111 1111 1111 1111'), true);
  assert.equal(luhn('5500 0000 0000 0004'), true);
  assert.equal(luhn('79927398713'), true); // the Luhn article's worked example
  assert.equal(luhn('79927398710'), false);
  assert.equal(luhn('4111 1111 1111 1112'), false);
  assert.equal(luhn('abc'), false);
});

test('IBAN: the registry examples of Saudi Arabia, the UAE and Egypt pass; a changed digit or a wrong length fails', () => {
  assert.equal(isValidIban('SA03 8000 0000 6080 1016 7519'), true);
  assert.equal(isValidIban('AE07 0331 2345 6789 0123 456'), true);
  assert.equal(isValidIban('EG38 0019 0005 0000 0000 2631 8000 2'), true);
  assert.equal(isValidIban('GB82 WEST 1234 5698 7654 32'), true);
  assert.equal(isValidIban('SA03 8000 0000 6080 1016 7518'), false);
  assert.equal(isValidIban('SA03 8000 0000 6080 1016 75'), false); // 22 characters, Saudi needs 24
  assert.equal(isValidIban('sa0380000000608010167519'), true);
});

test('Saudi national ID / iqama: starts with 1 or 2, ten digits, Luhn', () => {
  assert.equal(isValidSaudiId('1000000008'), true);
  assert.equal(isValidSaudiId('١٠٠٠٠٠٠٠٠٨'), true);
  assert.equal(isValidSaudiId('1000000000'), false);
  assert.equal(isValidSaudiId('2000000006'), true);
  assert.equal(isValidSaudiId('3000000004'), false); // Luhn-valid but neither a citizen's nor a resident's
  assert.equal(isValidSaudiId('100000008'), false);
});

test('phone numbers to E.164: Saudi, Emirati and Egyptian forms', () => {
  for (const s of ['0501234567', '050 123 4567', '+966501234567', '00966501234567', '966501234567', '501234567', '+966 0501234567']) {
    assert.equal(normalizePhone(s), '+966501234567', s);
  }
  assert.equal(normalizePhone('+971 50 123 4567'), '+971501234567');
  assert.equal(normalizePhone('00971551234567'), '+971551234567');
  assert.equal(normalizePhone('0521234567', 'AE'), '+971521234567');
  assert.equal(normalizePhone('01012345678'), '+201012345678');
  assert.equal(normalizePhone('+20 115 123 4567'), '+201151234567');
  assert.equal(normalizePhone('٠١٢٢٣٤٥٦٧٨٩'), '+201223456789');
  assert.equal(normalizePhone('0571234567', 'AE'), undefined); // 057 is no UAE mobile prefix (053 is: test/text/phone-turns.test.ts)
  assert.equal(normalizePhone('01312345678'), undefined); // 013 is no Egyptian mobile prefix
  assert.equal(normalizePhone('0112345678'), undefined); // a Riyadh landline, not a mobile
  assert.equal(normalizePhone('12345'), undefined);
});

test('read-back: phone 3-3-4 digit by digit with pauses, IBAN in fours, other lengths in threes', () => {
  assert.equal(readBackPhone('+966501234567'), 'صفر خمسة صفر، واحد اثنان ثلاثة، أربعة خمسة ستة سبعة');
  assert.equal(readBackPhone('+201012345678'), 'صفر واحد صفر، واحد اثنان ثلاثة أربعة، خمسة ستة سبعة ثمانية');
  assert.equal(readBackIban('SA0380000000608010167519').split('، ')[0], 'إس إيه صفر ثلاثة');
  assert.equal(readBackIban('SA0380000000608010167519').split('، ').length, 6);
  assert.equal(readBackDigits('4821'), 'أربعة ثمانية اثنان واحد');
  assert.equal(readBackDigits('482913'), 'أربعة ثمانية اثنان، تسعة واحد ثلاثة');
});

test('read-back: a date with its weekday, in the calendar said, with the time', () => {
  assert.equal(readBackDate({ date: '2027-03-15' }), 'يوم الاثنين، الخامس عشر من مارس ألفين وسبعة وعشرين');
  assert.equal(readBackDate({ date: '2027-01-15', time: '16:00' }), 'يوم الجمعة، الخامس عشر من يناير ألفين وسبعة وعشرين، الساعة الرابعة عصرًا');
  // Midnight and the small hours are read with the night they end, as callers say them.
  assert.equal(readBackDate({ date: '2027-01-16', time: '00:00' }), 'ليلة الجمعة على السبت، السادس عشر من يناير ألفين وسبعة وعشرين، الساعة الثانية عشرة ليلًا');
  assert.equal(readBackDate({ date: '2025-03-01', hijri: '1446-09-01' }), 'يوم السبت، الأول من رمضان ألف وأربعمئة وستة وأربعين للهجرة');
  assert.equal(readBackDate({ date: '2025-06-06', hijri: '1446-12-10' }), 'يوم الجمعة، العاشر من ذي الحجة ألف وأربعمئة وستة وأربعين للهجرة');
});

test('bad input to the parsers gets a clear error', async () => {
  const { parseDigits } = await import('../../src/text/index.ts');
  assert.throws(() => parseDigits(undefined as never), /caller's text as a string, got undefined/);
  assert.throws(() => parseDate('بكرة', { timeZone: 'Mars/Olympus' }), /unknown time zone "Mars\/Olympus"/);
  assert.throws(() => parseDate('بكرة', { now: new Date('nonsense') }), /now must be a valid Date/);
  assert.throws(() => parseDate('بكرة', { dayStartsAt: 25 }), /dayStartsAt must be a whole hour from 0 to 12, got 25/);
});

test('parseDate: dayStartsAt 0 keeps بكرة the next calendar date in the small hours; the default takes the day starting', () => {
  const now = new Date('2027-01-14T22:30:00Z'); // 01:30 on Friday 15 January in Riyadh
  assert.equal(parseDate('بكرة', { now })?.date, '2027-01-15');
  assert.equal(parseDate('بكرة', { now, dayStartsAt: 0 })?.date, '2027-01-16');
  assert.equal(parseDate('بكرة', { now, dayStartsAt: 1 })?.date, '2027-01-16');
});

test('parseDate: in the small hours every relative word counts from the day still lived; "اليوم" ahead is the day starting', () => {
  const now = new Date('2027-01-14T22:30:00Z'); // 01:30 on Friday 15 January in Riyadh; the caller is still in Thursday
  const at = (text: string, o: { prefer?: 'future' | 'past'; dayStartsAt?: number } = {}) => {
    const d = parseDate(text, { now, ...o });
    return d && `${d.date}${d.time ? ` ${d.time}` : ''}`;
  };
  // Thursday is the caller's today: yesterday is Wednesday, the Friday named is the one starting,
  // two days on is the day after tomorrow.
  assert.equal(at('أمس'), '2027-01-13');
  assert.equal(at('الجمعة'), '2027-01-15');
  assert.equal(at('بعد يومين'), at('بعد بكرة'));
  // Told of the past, "اليوم" is that Thursday; booking ahead, the day starting, unless the time is still ahead in this night.
  assert.equal(at('اليوم', { prefer: 'past' }), '2027-01-14');
  assert.equal(at('اليوم'), '2027-01-15');
  assert.equal(at('اليوم الساعة عشرة الصبح'), '2027-01-15 10:00');
  assert.equal(at('اليوم الساعة ثنتين بالليل'), '2027-01-15 02:00');
  assert.equal(at('اليوم الساعة وحدة بالليل'), '2027-01-16 01:00', '01:00 of this night is gone: the next night');
  // dayStartsAt 0: the calendar date at every hour, for every word.
  assert.equal(at('أمس', { dayStartsAt: 0 }), '2027-01-14');
  assert.equal(at('الجمعة', { dayStartsAt: 0 }), '2027-01-22');
  assert.equal(at('اليوم', { prefer: 'past', dayStartsAt: 0 }), '2027-01-15');
  // After dayStartsAt nothing moves: at 04:00 on Friday, yesterday is Thursday.
  assert.equal(parseDate('أمس', { now: new Date('2027-01-15T01:00:00Z') })?.date, '2027-01-14');
});

test('read-back: amounts in the number agreement Arabic requires', () => {
  assert.equal(readBackAmount(1500), 'ألف وخمسمئة ريال');
  assert.equal(readBackAmount(2), 'ريالان');
  assert.equal(readBackAmount(3), 'ثلاثة ريالات');
  assert.equal(readBackAmount(200), 'مئتا ريال');
  assert.equal(readBackAmount(11), 'أحد عشر ريالًا');
  assert.equal(readBackAmount(3, 'ليرة'), 'ثلاث ليرات');
  assert.equal(readBackAmount(10.5), 'عشرة ريالات وخمسون هللةً');
  assert.equal(readBackAmount(5, 'SAR'), 'خمسة ريالات سعودية');
  assert.throws(() => readBackAmount(5, 'XYZ'), /unknown currency "XYZ"/);
});

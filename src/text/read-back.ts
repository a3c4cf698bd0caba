/**
 * Values read back to the caller the way a native listener expects them: digits one by one in
 * groups with a pause between (a phone number "٠٥٠ ١٢٣ ٤٥٦٧" as 3-3-4, an IBAN in fours), a date
 * with its weekday, an amount with its currency in the right number agreement.
 */
import { phoneNumbers } from './phone-numbers.ts';
import { readMoney, CURRENCIES } from './currencies.ts';
import { clock, readDate, year } from './dates.ts';
import { digitsToWords, ordinal } from './numbers.ts';
import { LETTER_NAMES } from './references.ts';
import { cutDigits, digitGroups, spokenGroups } from './digit-groups.ts';

export { digitGroups } from './digit-groups.ts';

/** The pause between groups when read aloud (the synthesizer pauses at a comma). */
const PAUSE = '، ';

/** Digits in groups of the given sizes, each digit a word ("050", [3]) → "صفر خمسة صفر". */
export function readDigitGroups(digits: string, groups: number[]): string {
  return cutDigits(digits, groups).map(digitsToWords).join(PAUSE);
}

/** Any string of digits read in its groups (`digitGroups`). */
export function readBackDigits(digits: string): string {
  const d = digits.replace(/\D/g, '');
  return readDigitGroups(d, digitGroups(d.length));
}

/**
 * A phone number in E.164 read as the caller dials it at home: +966501234567 → "صفر خمسة صفر،
 * واحد اثنان ثلاثة، …" (Saudi, Emirati and Egyptian numbers 0 and 3-3-4 / 3-4-4); another
 * country's in the groups of its national format (libphonenumber's: +96550012345 → 500 12345,
 * +212612345678 → 06 12 34 56 78).
 */
export function readBackPhone(e164: string): string {
  if (/^\+(?:966|971|20)/.test(e164)) return readBackDigits(e164.replace(/^\+(?:966|971|20)/, '0'));
  const national = phoneNumbers().parsePhoneNumberFromString(e164)?.formatNational();
  if (!national) return readBackDigits(e164);
  const groups = national.split(/\D+/).filter(Boolean);
  return readDigitGroups(groups.join(''), groups.flatMap((g) => spokenGroups(g.length)));
}

/** An IBAN in groups of four: the letters by their names, then the digits ("إس إيه صفر ثلاثة، ثمانية صفر صفر صفر، …"). */
export function readBackIban(iban: string): string {
  const s = iban.replace(/\s/g, '').toUpperCase();
  const groups = s.match(/.{1,4}/g) ?? [];
  return groups.map((g) => [...g].map((ch) => (/\d/.test(ch) ? digitsToWords(ch) : LETTER_NAMES[ch] ?? ch)).join(' ')).join(PAUSE);
}

/** Weekday names, Sunday first (as `Date.getUTCDay`). */
export const WEEKDAYS = ['الأحد', 'الاثنين', 'الثلاثاء', 'الأربعاء', 'الخميس', 'الجمعة', 'السبت'];
/** Hijri month names for reading back. */
const HIJRI_MONTHS = ['محرم', 'صفر', 'ربيع الأول', 'ربيع الآخر', 'جمادى الأولى', 'جمادى الآخرة', 'رجب', 'شعبان', 'رمضان', 'شوال', 'ذو القعدة', 'ذو الحجة'];

/**
 * A date with its weekday, in the calendar the caller used, and the time if any:
 * "يوم الأحد، الخامس عشر من مارس ألفين وسبعة وعشرين، الساعة الرابعة عصرًا".
 */
export function readBackDate(value: { date: string; time?: string; calendar?: string; hijri?: string }): string {
  const [y, m, d] = value.date.split('-').map(Number) as [number, number, number];
  const weekday = new Date(Date.UTC(y, m - 1, d)).getUTCDay();
  // The small hours belong to the night before in speech: 00:30 on Saturday is "ليلة الجمعة على
  // السبت", so a caller who said "بكرة الساعة اتناشر بالليل" on a Thursday hears their Friday night.
  const smallHours = value.time !== undefined && Number(value.time.split(':')[0]) < 5;
  const day = smallHours ? `ليلة ${WEEKDAYS[(weekday + 6) % 7]} على ${WEEKDAYS[weekday]}` : `يوم ${WEEKDAYS[weekday]}`;
  let words: string;
  if (value.hijri) {
    const [hy, hm, hd] = value.hijri.split('-').map(Number) as [number, number, number];
    words = `${ordinal(hd)} من ${HIJRI_MONTHS[hm - 1]!.replace(/^ذو /, 'ذي ')} ${year(hy, 'هـ')}`;
  } else words = readDate(d, ['يناير', 'فبراير', 'مارس', 'أبريل', 'مايو', 'يونيو', 'يوليو', 'أغسطس', 'سبتمبر', 'أكتوبر', 'نوفمبر', 'ديسمبر'][m - 1]!, y);
  if (!value.time) return `${day}${PAUSE}${words}`;
  const [h, min] = value.time.split(':').map(Number) as [number, number];
  return `${day}${PAUSE}${words}${PAUSE}الساعة ${clock(h, min)}`;
}

/**
 * An amount with its currency in the agreement Arabic requires ("ألف وخمسمئة ريال", "مئتا
 * ريال", "ثلاثة ريالات", "ريالان"). `currency`: a key of `CURRENCIES` (SAR, AED, 'ريال'…).
 */
export function readBackAmount(amount: number, currency = 'ريال'): string {
  if (!(currency in CURRENCIES)) throw new Error(`readBackAmount: unknown currency "${currency}"; use one of ${Object.keys(CURRENCIES).join(', ')}`);
  return readMoney(amount.toFixed(3).replace(/\.?0+$/, ''), currency);
}

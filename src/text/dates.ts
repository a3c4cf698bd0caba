/**
 * Dates and clock times as a listener expects them: the day as an ordinal with the month in the
 * genitive ("العاشر من شوال"), the year as "ألفين وسبعة وعشرين", hours as feminine ordinals
 * ("الساعة الحادية عشرة", "من التاسعة إلى الرابعة"), and the period of the day said once.
 */
import { cardinal, countNoun, ordinal, type GrammaticalCase } from './numbers.ts';
import { makeNoun } from './lexicon.ts';

export const GREGORIAN = ['يناير', 'فبراير', 'مارس', 'أبريل', 'مايو', 'يونيو', 'يوليو', 'أغسطس', 'سبتمبر', 'أكتوبر', 'نوفمبر', 'ديسمبر'];
const GREGORIAN_VARIANTS: Record<string, string> = { 'إبريل': 'إبريل', 'ابريل': 'أبريل', 'اغسطس': 'أغسطس', 'يونية': 'يونيو', 'يولية': 'يوليو', 'اكتوبر': 'أكتوبر' };
export const LEVANTINE = ['كانون الثاني', 'شباط', 'آذار', 'نيسان', 'أيار', 'حزيران', 'تموز', 'آب', 'أيلول', 'تشرين الأول', 'تشرين الثاني', 'كانون الأول'];
export const HIJRI = ['محرم', 'صفر', 'ربيع الأول', 'ربيع الآخر', 'ربيع الثاني', 'جمادى الأولى', 'جمادى الآخرة', 'جمادى الثانية', 'رجب', 'شعبان', 'رمضان', 'شوال', 'ذو القعدة', 'ذو الحجة', 'ذي القعدة', 'ذي الحجة'];

const MONTH_NAMES = [...LEVANTINE, ...HIJRI, ...GREGORIAN, ...Object.keys(GREGORIAN_VARIANTS)].sort((a, b) => b.length - a.length);
/** Any month name, longest first so "ربيع الأول" wins over a shorter match. */
export const MONTH = MONTH_NAMES.join('|');

/** The month after "من": ذو القعدة becomes ذي القعدة. */
export function monthGenitive(name: string): string {
  return (GREGORIAN_VARIANTS[name] ?? name).replace(/^ذو /, 'ذي ');
}

/** A year: "ألفين وستة وعشرين" (the genitive, as after an understood عام). */
export function year(y: number, era?: string): string {
  const words = cardinal(y, { grammaticalCase: 'genitive' });
  if (!era) return words;
  return `${words} ${/^ه/.test(era) ? 'للهجرة' : 'للميلاد'}`;
}

/** "الحادي والعشرون من نوفمبر ألفين وستة وعشرين". */
export function readDate(day: number, month: string, y?: number, c: GrammaticalCase = 'nominative', era?: string): string {
  return `${ordinal(day, 'm', c)} من ${monthGenitive(month)}${y ? ` ${year(y, era)}` : ''}`;
}

export function monthName(m: number): string | undefined {
  return GREGORIAN[m - 1];
}

/** The Hijri months in order, as a written date's month number names them. */
const HIJRI_ORDER = ['محرم', 'صفر', 'ربيع الأول', 'ربيع الآخر', 'جمادى الأولى', 'جمادى الآخرة', 'رجب', 'شعبان', 'رمضان', 'شوال', 'ذو القعدة', 'ذو الحجة'];

export function hijriMonthName(m: number): string | undefined {
  return HIJRI_ORDER[m - 1];
}

const MINUTE = makeNoun({ singular: 'دقيقة', plural: 'دقائق', gender: 'f' });

/** Words of the day's periods, as written after a time; the reading keeps the writer's word. */
export const PERIOD = 'صباحًا|صباحا|صباح|مساءً|مساءا|مساء|ظهرًا|ظهرا|عصرًا|عصرا|ليلًا|ليلا|فجرًا|فجرا|ص|م|am|pm|AM|PM|a\\.m\\.|p\\.m\\.';

function periodWord(written: string | undefined, h: number): string {
  if (written) {
    if (/^(?:am|a\.m\.|ص)$/i.test(written)) return 'صباحًا';
    if (/^(?:pm|p\.m\.|م)$/i.test(written)) return h % 12 >= 6 ? 'مساءً' : h % 12 >= 3 ? 'عصرًا' : 'ظهرًا';
    return written;
  }
  if (h % 24 === 0) return 'ليلًا';
  if (h >= 18) return 'مساءً';
  if (h >= 15) return 'عصرًا';
  if (h >= 12) return 'ظهرًا';
  return '';
}

/** Clock hours are feminine ordinals, except one o'clock: "الساعة الواحدة". */
export const hourWord = (h: number) => (h === 1 ? 'الواحدة' : ordinal(h, 'f'));

/** An hour (0–24) and minutes as read on a clock, without "الساعة". */
export function clock(h: number, m: number, written?: string): string {
  const hour12 = h % 12 === 0 ? 12 : h % 12;
  const next = (hour12 % 12) + 1;
  let words = hourWord(hour12);
  if (m === 30) words += ' والنصف';
  else if (m === 15) words += ' والربع';
  else if (m === 20) words += ' والثلث';
  else if (m === 45) words = `${hourWord(next)} إلا ربعًا`;
  else if (m === 40) words = `${hourWord(next)} إلا ثلثًا`;
  else if (m > 0) words += ` و${countNoun(m, MINUTE)}`;
  // 14:45 is "الثالثة إلا ربعًا عصرًا": the period follows the hour that is said.
  const period = periodWord(written, m >= 40 ? h + 1 : h);
  return period ? `${words} ${period}` : words;
}

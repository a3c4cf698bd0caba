import { countNoun, digitsToWords, numberToWords, ordinal, type Noun } from './numbers.ts';

/**
 * Makes LLM text speakable in Arabic: digits (Western and Arabic-Indic), decimals, percentages,
 * currencies, dates and times become words; markdown, emoji and URLs are dropped or spoken;
 * Latin words are left for the service's code-switching.
 */
const noun = (singular: string, dual: string, plural: string, accusative: string, gender: 'm' | 'f' = 'm'): Noun => ({ singular, dual, plural, accusative, gender });

export const CURRENCIES: Record<string, Noun> = {
  SAR: noun('ريال سعودي', 'ريالان سعوديان', 'ريالات سعودية', 'ريالًا سعوديًا'),
  AED: noun('درهم إماراتي', 'درهمان إماراتيان', 'دراهم إماراتية', 'درهمًا إماراتيًا'),
  EGP: noun('جنيه مصري', 'جنيهان مصريان', 'جنيهات مصرية', 'جنيهًا مصريًا'),
  USD: noun('دولار أمريكي', 'دولاران أمريكيان', 'دولارات أمريكية', 'دولارًا أمريكيًا'),
  EUR: noun('يورو', 'يوروان', 'يوروهات', 'يورو'),
  KWD: noun('دينار كويتي', 'ديناران كويتيان', 'دنانير كويتية', 'دينارًا كويتيًا'),
  QAR: noun('ريال قطري', 'ريالان قطريان', 'ريالات قطرية', 'ريالًا قطريًا'),
  BHD: noun('دينار بحريني', 'ديناران بحرينيان', 'دنانير بحرينية', 'دينارًا بحرينيًا'),
  OMR: noun('ريال عماني', 'ريالان عمانيان', 'ريالات عمانية', 'ريالًا عمانيًا'),
  JOD: noun('دينار أردني', 'ديناران أردنيان', 'دنانير أردنية', 'دينارًا أردنيًا'),
};
const CURRENCY_ALIASES: Record<string, string> = {
  'ر.س': 'SAR', 'ريال': 'SAR', 'ريالا': 'SAR', 'ريالات': 'SAR', 'SR': 'SAR', '﷼': 'SAR',
  'د.إ': 'AED', 'درهم': 'AED', 'دراهم': 'AED', 'Dh': 'AED', 'AED': 'AED',
  'ج.م': 'EGP', 'جنيه': 'EGP', 'جنيهات': 'EGP', 'LE': 'EGP',
  '$': 'USD', 'دولار': 'USD', 'دولارات': 'USD', '€': 'EUR', 'يورو': 'EUR',
  'د.ك': 'KWD', 'دينار': 'KWD',
};
const SUBUNIT: Record<string, Noun> = {
  SAR: noun('هللة', 'هللتان', 'هللات', 'هللةً', 'f'),
  AED: noun('فلس', 'فلسان', 'فلوس', 'فلسًا'),
  EGP: noun('قرش', 'قرشان', 'قروش', 'قرشًا'),
  USD: noun('سنت', 'سنتان', 'سنتات', 'سنتًا'),
  EUR: noun('سنت', 'سنتان', 'سنتات', 'سنتًا'),
};
/** Nouns counted in replies, by any of their forms, for number agreement. */
const COUNTED: Noun[] = [
  noun('دقيقة', 'دقيقتان', 'دقائق', 'دقيقةً', 'f'),
  noun('ساعة', 'ساعتان', 'ساعات', 'ساعةً', 'f'),
  noun('يوم', 'يومان', 'أيام', 'يومًا'),
  noun('أسبوع', 'أسبوعان', 'أسابيع', 'أسبوعًا'),
  noun('شهر', 'شهران', 'أشهر', 'شهرًا'),
  noun('سنة', 'سنتان', 'سنوات', 'سنةً', 'f'),
  noun('بطاقة', 'بطاقتان', 'بطاقات', 'بطاقةً', 'f'),
  noun('حساب', 'حسابان', 'حسابات', 'حسابًا'),
  noun('مرة', 'مرتان', 'مرات', 'مرةً', 'f'),
  noun('عملية', 'عمليتان', 'عمليات', 'عمليةً', 'f'),
  noun('فرع', 'فرعان', 'فروع', 'فرعًا'),
];
const COUNTED_FORMS = new Map<string, Noun>(COUNTED.flatMap((n) => [n.singular, n.plural, n.accusative, n.accusative.replace(/[ًٌٍ]/g, '')].map((f) => [f, n] as const)));

const MONTHS = ['يناير', 'فبراير', 'مارس', 'أبريل', 'مايو', 'يونيو', 'يوليو', 'أغسطس', 'سبتمبر', 'أكتوبر', 'نوفمبر', 'ديسمبر'];

const toWestern = (s: string) => s.replace(/[٠-٩]/g, (d) => String(d.charCodeAt(0) - 0x660)).replace(/[۰-۹]/g, (d) => String(d.charCodeAt(0) - 0x6f0)).replace(/٫/g, '.').replace(/٬/g, ',');

const CODES = Object.keys(CURRENCIES).join('|');
const ALIASES = Object.keys(CURRENCY_ALIASES).map((a) => a.replace(/[.$()]/g, '\\$&')).join('|');
const AMOUNT = String.raw`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?`;

function money(amount: string, code: string): string {
  const value = Number(amount.replace(/,/g, ''));
  const whole = Math.floor(value);
  const cents = Math.round((value - whole) * 100);
  const main = countNoun(whole, CURRENCIES[code]!);
  if (!cents || !SUBUNIT[code]) return cents ? `${main} و${numberToWords(cents)}` : main;
  return `${main} و${countNoun(cents, SUBUNIT[code]!)}`;
}

function decimal(s: string): string {
  const [int, frac] = s.replace(/,/g, '').split('.');
  const whole = numberToWords(Number(int));
  if (!frac) return whole;
  // Short fractions read as a number after the comma ("ثلاثة فاصلة خمسة وعشرون").
  const fracWords = frac.length <= 2 && !frac.startsWith('0') ? numberToWords(Number(frac)) : digitsToWords(frac);
  return `${whole} فاصلة ${fracWords}`;
}

function time(h: number, m: number, suffix?: string): string {
  const hour12 = h % 12 === 0 ? 12 : h % 12;
  let words = `الساعة ${ordinal(hour12, 'f')}`;
  if (m === 30) words += ' والنصف';
  else if (m === 15) words += ' والربع';
  else if (m === 45) words = `الساعة ${ordinal((hour12 % 12) + 1, 'f')} إلا ربعًا`;
  else if (m > 0) words += ` و${countNoun(m, noun('دقيقة', 'دقيقتان', 'دقائق', 'دقيقةً', 'f'))}`;
  const afternoon = h >= 18 ? 'مساءً' : h >= 15 ? 'عصرًا' : 'ظهرًا';
  const period = suffix ? (/^(am|ص|صباحا|صباحًا)$/i.test(suffix) ? 'صباحًا' : 'مساءً') : h >= 12 && h < 24 ? afternoon : '';
  return period ? `${words} ${period}` : words;
}

function date(d: number, m: number, y?: number): string {
  if (m < 1 || m > 12 || d < 1 || d > 31) return `${numberToWords(d)} ${numberToWords(m)}${y ? ` ${numberToWords(y)}` : ''}`;
  // Years are read in the genitive ("عام ألفين وستة وعشرين").
  const genitive = (w: string) => w.replace(/ون(?=\s|$)/g, 'ين').replace(/ان(?=\s|$)/g, 'ين');
  const year = y ? ` ${y >= 2000 && y < 2100 ? `ألفين${y % 100 ? ` و${genitive(numberToWords(y % 100))}` : ''}` : genitive(numberToWords(y))}` : '';
  return `${ordinal(d)} من ${MONTHS[m - 1]}${year}`;
}

/** Markdown, emoji and links: what a listener cannot hear. */
export function stripMarkup(text: string): string {
  return text
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, '')
    .replace(/\[([^\]]+)\]\((?:https?:\/\/)?[^)]*\)/g, '$1')
    .replace(/https?:\/\/\S+|www\.\S+/g, 'الرابط المرسل')
    .replace(/[\w.+-]+@[\w-]+\.[\w.]+/g, (e) => e.replace('@', ' at ').replace(/\./g, ' dot '))
    .replace(/^\s{0,3}#{1,6}\s+/gm, '')
    .replace(/^\s*[-*+]\s+/gm, '')
    .replace(/^\s*\d+[.)]\s+/gm, '')
    .replace(/^\s*>\s?/gm, '')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(\*|_)(\S.*?)\1/g, '$2')
    .replace(/~~(.+?)~~/g, '$1')
    .replace(/\|/g, ' ')
    .replace(/[\p{Extended_Pictographic}\u{1F1E6}-\u{1F1FF}\u{FE0F}\u{200D}]/gu, '')
    .replace(/[ \t]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .trim();
}

/** Text for the voice: markup out, numbers, money, dates and times as Arabic words. */
export function normalizeForSpeech(input: string): string {
  let t = toWestern(stripMarkup(input));
  // Money with an ISO code or a symbol before or after the amount.
  t = t.replace(new RegExp(String.raw`\b(${CODES})\s?(${AMOUNT})`, 'g'), (_, c: string, a: string) => money(a, c));
  t = t.replace(new RegExp(String.raw`(${AMOUNT})\s?(${CODES})\b`, 'g'), (_, a: string, c: string) => money(a, c));
  t = t.replace(new RegExp(String.raw`(\$|€)\s?(${AMOUNT})`, 'g'), (_, s: string, a: string) => money(a, CURRENCY_ALIASES[s]!));
  t = t.replace(new RegExp(String.raw`(${AMOUNT})\s?(${ALIASES})(?=[\s.,،؟!]|$)`, 'g'), (_, a: string, s: string) => money(a, CURRENCY_ALIASES[s]!));
  // Dates: 2026-11-21, 21/11/2026, 21/11.
  t = t.replace(/\b(\d{4})-(\d{1,2})-(\d{1,2})\b/g, (_, y, m, d) => date(Number(d), Number(m), Number(y)));
  t = t.replace(/\b(\d{1,2})\/(\d{1,2})\/(\d{4})\b/g, (_, d, m, y) => date(Number(d), Number(m), Number(y)));
  // Times: 10:30, 9:00 pm, 14:05 ("الساعة" before the time is not said twice).
  t = t.replace(/(?:الساعة\s*)?\b(\d{1,2}):(\d{2})(?:\s?(am|pm|AM|PM|ص|م)(?![\p{L}]))?/gu, (_, h, m, s) => time(Number(h), Number(m), s));
  // Percentages.
  t = t.replace(/(\d+(?:\.\d+)?)\s?[%٪]/g, (_, n: string) => `${decimal(n)} بالمئة`);
  // A number before a noun we know: the noun's gender and number decide the form.
  t = t.replace(/(?<![\d.,])(\d+)\s+([\p{L}\u064B-\u0652]+)/gu, (all, n: string, w: string) => {
    const counted = COUNTED_FORMS.get(w);
    return counted && Number(n) < 1e6 ? countNoun(Number(n), counted) : all;
  });
  // Long digit runs (phones, accounts, card ends) read digit by digit.
  t = t.replace(/\+?\d[\d -]{7,}\d/g, (s) => digitsToWords(s));
  // Ordinary numbers, with thousands separators and decimals.
  t = t.replace(new RegExp(AMOUNT, 'g'), (s) => decimal(s));
  return t.replace(/\s+([،؛.!?؟])/g, '$1').replace(/[ \t]{2,}/g, ' ').trim();
}

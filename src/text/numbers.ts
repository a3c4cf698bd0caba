/**
 * Arabic number words (Modern Standard Arabic, nominative case). Hand-written: no npm package
 * does Arabic cardinals with gender agreement and counted-noun forms.
 *
 * Rules applied: 1 and 2 agree with the noun's gender; 3–10 take the opposite form (ثلاثة
 * ريالات, ثلاث ليرات) and a plural noun; 11–99 take a singular accusative noun (tanween written as ـًا for ـ without
 * ta marbuta); 100 and up take a singular genitive noun; tens are invariant; the units come
 * before the tens ("خمسة وعشرون").
 */
export type Gender = 'm' | 'f';

// Forms used with a masculine / feminine counted noun (so 3–10 carry ة with masculine nouns).
const ONES_M = ['', 'واحد', 'اثنان', 'ثلاثة', 'أربعة', 'خمسة', 'ستة', 'سبعة', 'ثمانية', 'تسعة'];
const ONES_F = ['', 'واحدة', 'اثنتان', 'ثلاث', 'أربع', 'خمس', 'ست', 'سبع', 'ثماني', 'تسع'];
const TENS = ['', 'عشرة', 'عشرون', 'ثلاثون', 'أربعون', 'خمسون', 'ستون', 'سبعون', 'ثمانون', 'تسعون'];
const HUNDREDS = ['', 'مئة', 'مئتان', 'ثلاثمئة', 'أربعمئة', 'خمسمئة', 'ستمئة', 'سبعمئة', 'ثمانمئة', 'تسعمئة'];

function teens(n: number, g: Gender): string {
  if (n === 10) return g === 'm' ? 'عشرة' : 'عشر';
  if (n === 11) return g === 'm' ? 'أحد عشر' : 'إحدى عشرة';
  if (n === 12) return g === 'm' ? 'اثنا عشر' : 'اثنتا عشرة';
  const unit = n - 10;
  // 13–19: the unit takes the opposite gender, "ten" agrees.
  return g === 'm' ? `${ONES_M[unit]} عشر` : `${ONES_F[unit]} عشرة`;
}

/** 0–999 */
function below1000(n: number, g: Gender): string {
  const h = Math.floor(n / 100);
  const rest = n % 100;
  const parts: string[] = [];
  if (h) parts.push(HUNDREDS[h]!);
  if (rest) {
    if (rest < 10) {
      // 3–10 counting a noun take the opposite gender; as a bare number the masculine form is used
      parts.push((g === 'm' ? ONES_M : ONES_F)[rest]!);
    } else if (rest < 20) parts.push(teens(rest, g));
    else {
      const u = rest % 10;
      const t = TENS[Math.floor(rest / 10)]!;
      parts.push(u ? `${(g === 'm' ? ONES_M : ONES_F)[u]} و${t}` : t);
    }
  }
  return parts.join(' و');
}

const SCALES: [number, string, string, string, string][] = [
  // value, singular, dual, plural (3–10), singular accusative (11–99)
  [1e9, 'مليار', 'ملياران', 'مليارات', 'مليارًا'],
  [1e6, 'مليون', 'مليونان', 'ملايين', 'مليونًا'],
  [1e3, 'ألف', 'ألفان', 'آلاف', 'ألفًا'],
];

/** A whole number in words. `gender` is that of the counted noun (masculine by default). */
export function numberToWords(value: number, gender: Gender = 'm'): string {
  if (!Number.isFinite(value)) return String(value);
  if (value < 0) return `سالب ${numberToWords(-value, gender)}`;
  let n = Math.floor(value);
  if (n === 0) return 'صفر';
  if (n >= 1e12) return String(n).split('').map((d) => numberToWords(Number(d))).join(' ');
  const parts: string[] = [];
  for (const [scale, one, two, plural, acc] of SCALES) {
    const k = Math.floor(n / scale);
    n %= scale;
    if (!k) continue;
    if (k === 1) parts.push(one);
    else if (k === 2) parts.push(two);
    else if (k <= 10) parts.push(`${below1000(k, 'm')} ${plural}`);
    else if (k % 100 >= 11 && k % 100 <= 99) parts.push(`${below1000(k, 'm')} ${acc}`);
    else parts.push(`${below1000(k, 'm')} ${one}`);
  }
  if (n) parts.push(below1000(n, gender));
  return parts.join(' و');
}

export interface Noun {
  singular: string;
  dual: string;
  plural: string;
  /** Singular accusative with tanween, for 11–99 (ريالًا, دولارًا, ليرةً). */
  accusative: string;
  gender: Gender;
}

/** "number + counted noun" with the agreement Arabic requires. */
export function countNoun(value: number, noun: Noun): string {
  const n = Math.floor(value);
  if (n === 1) return `${noun.singular} ${noun.gender === 'm' ? 'واحد' : 'واحدة'}`;
  if (n === 2) return noun.dual;
  const last = n % 100;
  // The counted noun follows the last part of the number.
  if (n <= 10 && n >= 3) return `${numberToWords(n, noun.gender)} ${noun.plural}`;
  if (last >= 3 && last <= 10) return `${numberToWords(n - last)} و${numberToWords(last, noun.gender)} ${noun.plural}`;
  if (last >= 11 && last <= 99) return `${numberToWords(n, noun.gender)} ${noun.accusative}`;
  return `${numberToWords(n, noun.gender)} ${noun.singular}`;
}

/** Digits read one by one (phone and account numbers). */
export function digitsToWords(digits: string): string {
  return [...digits].filter((d) => /\d/.test(d)).map((d) => numberToWords(Number(d))).join(' ');
}

const ORDINAL_M = ['', 'الأول', 'الثاني', 'الثالث', 'الرابع', 'الخامس', 'السادس', 'السابع', 'الثامن', 'التاسع', 'العاشر'];
const ORDINAL_F = ['', 'الأولى', 'الثانية', 'الثالثة', 'الرابعة', 'الخامسة', 'السادسة', 'السابعة', 'الثامنة', 'التاسعة', 'العاشرة'];

/** Ordinals for days of the month (1–31) and hours (1–12). */
export function ordinal(n: number, g: Gender = 'm'): string {
  const table = g === 'm' ? ORDINAL_M : ORDINAL_F;
  if (n <= 10) return table[n] ?? numberToWords(n);
  if (n === 11) return g === 'm' ? 'الحادي عشر' : 'الحادية عشرة';
  if (n < 20) return g === 'm' ? `${table[n - 10]} عشر` : `${table[n - 10]} عشرة`;
  const u = n % 10;
  const tens = `ال${TENS[Math.floor(n / 10)]}`;
  if (!u) return tens;
  const unit = u === 1 ? (g === 'm' ? 'الحادي' : 'الحادية') : table[u]!;
  return `${unit} و${tens}`;
}

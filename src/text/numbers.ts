/**
 * Arabic cardinal numbers (Modern Standard Arabic) with the grammar a counted number needs:
 * gender, case and the construct state.
 *
 * Hand-written rather than `n2words`: its Arabic gives the nominative only, as one finished
 * string. The grammar here needs each part of the number separately (the last part agrees with
 * the counted noun, the dual and the tens change with case, مئتان/ألفان lose their nun before a
 * noun, a thousands word after 11–99 loses its tanween before a noun), which would mean parsing
 * the library's output back apart. The table below is shorter than that glue.
 *
 * Rules: 1 and 2 agree with the noun; 3–10 take the opposite form (ثلاثة ريالات, ثلاث ليرات);
 * in 11–99 the tens are invariant for gender and the units come first (خمسة وعشرون); the
 * genitive and the accusative are written alike for numbers (اثنين، عشرين، مئتين), so two
 * written cases are enough.
 */
export type Gender = 'm' | 'f';
/** Grammatical case. Genitive and accusative are written alike for numbers. */
export type GrammaticalCase = 'nominative' | 'genitive' | 'accusative';

export interface CardinalOptions {
  /** Gender of the counted noun. @default 'm' */
  gender?: Gender;
  /** @default 'nominative' */
  grammaticalCase?: GrammaticalCase;
  /** A counted noun follows the last part directly (مئتا ريال, ألف ريال rather than ألفًا). @default false */
  construct?: boolean;
}

const ONES_M = ['', 'واحد', 'اثنان', 'ثلاثة', 'أربعة', 'خمسة', 'ستة', 'سبعة', 'ثمانية', 'تسعة'];
const ONES_F = ['', 'واحدة', 'اثنتان', 'ثلاث', 'أربع', 'خمس', 'ست', 'سبع', 'ثماني', 'تسع'];
const TENS = ['', 'عشرة', 'عشرون', 'ثلاثون', 'أربعون', 'خمسون', 'ستون', 'سبعون', 'ثمانون', 'تسعون'];
const HUNDREDS = ['', 'مئة', 'مئتان', 'ثلاثمئة', 'أربعمئة', 'خمسمئة', 'ستمئة', 'سبعمئة', 'ثمانمئة', 'تسعمئة'];

const oblique = (c: GrammaticalCase) => c !== 'nominative';
/** Dual and sound-plural endings in the genitive/accusative: ان → ين, ون → ين (word by word). */
export function obliqueForm(words: string): string {
  return words.replace(/(?<=\p{L})(?:ان|ون)(?=\s|$)/gu, 'ين');
}
const inCase = (w: string, c: GrammaticalCase) => (oblique(c) ? obliqueForm(w) : w);

function unit(n: number, g: Gender, c: GrammaticalCase): string {
  return inCase((g === 'm' ? ONES_M : ONES_F)[n]!, c);
}

function teens(n: number, g: Gender, c: GrammaticalCase): string {
  if (n === 10) return g === 'm' ? 'عشرة' : 'عشر';
  if (n === 11) return g === 'm' ? 'أحد عشر' : 'إحدى عشرة';
  if (n === 12) return g === 'm' ? (oblique(c) ? 'اثني عشر' : 'اثنا عشر') : oblique(c) ? 'اثنتي عشرة' : 'اثنتا عشرة';
  // 13–19: the unit takes the opposite form, "ten" agrees.
  return g === 'm' ? `${ONES_M[n - 10]} عشر` : `${ONES_F[n - 10]} عشرة`;
}

/** 1–999. */
function below1000(n: number, g: Gender, c: GrammaticalCase, construct: boolean): string {
  const h = Math.floor(n / 100);
  const rest = n % 100;
  const parts: string[] = [];
  if (h === 2) parts.push(construct && !rest ? (oblique(c) ? 'مئتي' : 'مئتا') : inCase('مئتان', c));
  else if (h) parts.push(HUNDREDS[h]!);
  if (rest >= 20) {
    const u = rest % 10;
    const tens = inCase(TENS[Math.floor(rest / 10)]!, c);
    // 21, 31…: إحدى وعشرون with a feminine noun.
    const one = u === 1 && g === 'f' ? 'إحدى' : u ? unit(u, g, c) : '';
    parts.push(one ? `${one} و${tens}` : tens);
  } else if (rest >= 10) parts.push(teens(rest, g, c));
  else if (rest) parts.push(unit(rest, g, c));
  return parts.join(' و');
}

// value, singular, dual, plural (3–10), singular accusative (11–99)
const SCALES: [number, string, string, string, string][] = [
  [1e9, 'مليار', 'ملياران', 'مليارات', 'مليارًا'],
  [1e6, 'مليون', 'مليونان', 'ملايين', 'مليونًا'],
  [1e3, 'ألف', 'ألفان', 'آلاف', 'ألفًا'],
];

/** A whole number in words, with the counted noun's gender, the case and the construct state. */
export function cardinal(value: number, opts: CardinalOptions = {}): string {
  const g = opts.gender ?? 'm';
  const c = opts.grammaticalCase ?? 'nominative';
  if (!Number.isFinite(value)) return String(value);
  if (value < 0) return `سالب ${cardinal(-value, opts)}`;
  let n = Math.floor(value);
  if (n === 0) return 'صفر';
  if (n >= 1e12) return digitsToWords(String(n));
  const parts: string[] = [];
  for (const [scale, one, two, plural, acc] of SCALES) {
    const k = Math.floor(n / scale);
    n %= scale;
    if (!k) continue;
    // The scale word heads a construct when nothing follows it but the counted noun.
    const head = !!opts.construct && n === 0;
    const kRest = k % 100;
    if (k === 1) parts.push(one);
    else if (k === 2) parts.push(head ? (oblique(c) ? two.replace(/ان$/, 'ي') : two.replace(/ن$/, '')) : inCase(two, c));
    else if (k <= 10) parts.push(`${below1000(k, 'm', c, false)} ${plural}`);
    else if (kRest >= 11) parts.push(`${below1000(k, 'm', c, false)} ${head ? one : acc}`);
    else if (kRest >= 3 && kRest <= 10) parts.push(`${below1000(k - kRest, 'm', c, false)} و${below1000(kRest, 'm', c, false)} ${plural}`);
    // 100, 200… thousands: the hundreds head a construct (مئتا ألف).
    else parts.push(`${below1000(k, 'm', c, kRest === 0)} ${one}`);
  }
  if (n) parts.push(below1000(n, g, c, !!opts.construct));
  return parts.join(' و');
}

/** A whole number in words (nominative). `gender` is that of the counted noun (masculine by default). */
export function numberToWords(value: number, gender: Gender = 'm'): string {
  return cardinal(value, { gender });
}

/** A counted noun's forms (singular, dual, plural) and gender, for number agreement. */
export interface Noun {
  singular: string;
  /** Nominative dual (ريالان); the genitive/accusative is derived (ريالين). */
  dual: string;
  /** The plural counted by 3–10 (always genitive after the number). */
  plural: string;
  /** Singular accusative with tanween, for 11–99 (ريالًا, دولارًا, ليرةً). */
  accusative: string;
  gender: Gender;
  /** Loanword units read the same after any number (عشرة غيغابايت, اثنان وعشرون غيغابايت). */
  invariant?: boolean;
}

/** "number + counted noun" with the agreement and the case Arabic requires. */
export function countNoun(value: number, noun: Noun, grammaticalCase: GrammaticalCase = 'nominative'): string {
  const c = grammaticalCase;
  const n = Math.floor(value);
  const g = noun.gender;
  if (n === 1 && c === 'accusative' && noun.accusative !== noun.singular) return `${noun.accusative} ${g === 'm' ? 'واحدًا' : 'واحدةً'}`;
  if (n === 1) return `${noun.singular} ${g === 'm' ? 'واحد' : 'واحدة'}`;
  if (n === 2) return noun.invariant ? `${unit(2, g, c)} ${noun.singular}` : inCase(noun.dual, c);
  const last = n % 100;
  const plural = noun.invariant ? noun.singular : noun.plural;
  // The counted noun follows the last part of the number.
  if (n >= 3 && n <= 10) return `${cardinal(n, { gender: g, grammaticalCase: c })} ${plural}`;
  if (last >= 3 && last <= 10) return `${cardinal(n - last, { grammaticalCase: c })} و${cardinal(last, { gender: g, grammaticalCase: c })} ${plural}`;
  // 101, 202: "مئة ومخالفة واحدة", "مئتان وريالان".
  if (n > 100 && (last === 1 || last === 2)) return `${cardinal(n - last, { grammaticalCase: c })} و${countNoun(last, noun, c)}`;
  if (last >= 11) return `${cardinal(n, { gender: g, grammaticalCase: c })} ${noun.invariant ? noun.singular : noun.accusative}`;
  return `${cardinal(n, { gender: g, grammaticalCase: c, construct: true })} ${noun.singular}`;
}

/** Digits read one by one (phone and account numbers, codes). */
export function digitsToWords(digits: string): string {
  return [...digits].filter((d) => /\d/.test(d)).map((d) => ONES_M[Number(d)] || 'صفر').join(' ');
}

const ORDINAL_M = ['', 'الأول', 'الثاني', 'الثالث', 'الرابع', 'الخامس', 'السادس', 'السابع', 'الثامن', 'التاسع', 'العاشر'];
const ORDINAL_F = ['', 'الأولى', 'الثانية', 'الثالثة', 'الرابعة', 'الخامسة', 'السادسة', 'السابعة', 'الثامنة', 'التاسعة', 'العاشرة'];

/** Ordinals (with the article) up to 99: days of the month, hours, floors, steps. */
export function ordinal(n: number, g: Gender = 'm', grammaticalCase: GrammaticalCase = 'nominative'): string {
  const table = g === 'm' ? ORDINAL_M : ORDINAL_F;
  if (n < 1 || n > 99 || !Number.isInteger(n)) return `رقم ${cardinal(n)}`;
  if (n <= 10) return table[n]!;
  if (n === 11) return g === 'm' ? 'الحادي عشر' : 'الحادية عشرة';
  if (n < 20) return g === 'm' ? `${table[n - 10]} عشر` : `${table[n - 10]} عشرة`;
  const u = n % 10;
  const tens = `ال${inCase(TENS[Math.floor(n / 10)]!, grammaticalCase)}`;
  if (!u) return tens;
  const first = u === 1 ? (g === 'm' ? 'الحادي' : 'الحادية') : table[u]!;
  return `${first} و${tens}`;
}

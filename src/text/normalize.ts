/**
 * Makes LLM text speakable in Arabic: references digit by digit, money with its subunit, dates
 * and hours as ordinals, counted nouns with agreement and case, percentages, units; markdown,
 * emoji and URLs are dropped or spoken; Latin words (and model names such as "Galaxy S24" or
 * "4G") are left for the service's code-switching.
 *
 * One pass per kind of number, most specific first; each pass sees the words the earlier ones
 * wrote, so the word before a number (its context) is always readable text.
 */
import { CURRENCIES, CURRENCY_SYMBOLS, CURRENCY_WORDS, NATIONALITIES, readMoney } from './currencies.ts';
import { clock, hijriMonthName, hourWord, MONTH, PERIOD, monthName, readDate, year } from './dates.ts';
import { CONSTRUCT_COMPLEMENTS, type VerbEntry } from './case-lexicon.ts';
import { caseBefore, caseRules, inConstruct, type CaseReading, type CaseRules } from './grammar.ts';
import { Lexicon, NOT_COUNTED, UNIT_ABBREVIATIONS, guessNoun, type NounEntry } from './lexicon.ts';
import { stripMarkup, westernDigits } from './markup.ts';
import { cardinal, countNoun, digitsToWords, ordinal, type Gender, type GrammaticalCase, type Noun } from './numbers.ts';
import { FLIGHT, IBAN, LONG_DIGITS, MASKED, PHONE, PNR, ReferenceWords, spellReference } from './references.ts';

export { stripMarkup } from './markup.ts';
export { CURRENCIES } from './currencies.ts';

/** Options of the speech normalizer: case endings, how references are read, extra nouns and keywords. */
export interface NormalizerOptions {
  /** Numbers take the genitive or accusative the words before them require (قبل يومين). Off: always the nominative. @default true */
  caseEndings?: boolean;
  /** Numbers announced as references (رقم الطلب، رمز، تنتهي بـ) read 'digits' one by one, or as a whole 'number'. @default 'digits' */
  references?: 'digits' | 'number';
  /** More counted nouns, for agreement (see docs/arabic.md). @default [] */
  nouns?: NounEntry[];
  /** More words after which a number is a reference (bare form: بوليصة, not البوليصة). @default [] */
  referenceKeywords?: string[];
  /** More nouns after which a number is an ordinal ("القاعة 3" → القاعة الثالثة), with their gender. @default {} */
  ordinalNouns?: Record<string, Gender>;
  /** More verbs whose object a number is, with their masdar (see docs/arabic.md). @default [] */
  verbs?: VerbEntry[];
}

/** Defaults of the speech normalizer. */
export const NORMALIZER_DEFAULTS: Required<NormalizerOptions> = {
  caseEndings: true,
  references: 'digits',
  nouns: [],
  referenceKeywords: [],
  ordinalNouns: {},
  verbs: [],
};

/** Nouns after which a number counts order, not quantity ("الدور 5" → الدور الخامس). */
const ORDINAL_NOUNS: Record<string, Gender> = {
  'دور': 'm', 'طابق': 'm', 'مرة': 'f', 'خطوة': 'f', 'مرحلة': 'f', 'جيل': 'm', 'قسط': 'm', 'دفعة': 'f', 'صف': 'm',
  'مركز': 'm', 'فصل': 'm', 'حلقة': 'f', 'جولة': 'f', 'بند': 'm', 'مادة': 'f', 'فقرة': 'f', 'أسبوع': 'm', 'نسخة': 'f',
  'إصدار': 'm', 'مستوى': 'm', 'درجة': 'f', 'محاولة': 'f', 'ربع': 'm', 'سطر': 'm', 'صفحة': 'f', 'خيار': 'm',
};

// A number, and what may be glued before it (وبـ، لـ، و).
const PRE = String.raw`(?<![\p{L}\p{N}_.,])((?:[وف]?[بلك]|[وف])?)`;
const NUM = String.raw`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?`;
const END = String.raw`(?![\p{N}A-Za-z]|[.,]\d)`;
const esc = (s: string) => s.replace(/[.$()*+?[\]^{}|\\]/g, '\\$&');
// Patterns are built from tables once and compiled once: the normalizer runs on every chunk.
const compiled = new Map<string, RegExp>();
function re(src: string): RegExp {
  let r = compiled.get(src);
  if (!r) compiled.set(src, (r = new RegExp(src, 'gu')));
  return r;
}
const UNITS = Object.keys(UNIT_ABBREVIATIONS).sort((a, b) => b.length - a.length).map(esc).join('|');
const CODES = Object.keys(CURRENCIES).filter((c) => /^[A-Z]{3}$/.test(c)).join('|');
const SYMBOLS = Object.keys(CURRENCY_SYMBOLS).sort((a, b) => b.length - a.length).map(esc).join('|');
const WORDS = Object.keys(CURRENCY_WORDS).sort((a, b) => b.length - a.length).join('|');
const HOUR_WORDS = Array.from({ length: 12 }, (_, i) => hourWord(12 - i)).join('|');
const FULL_PERIOD = PERIOD.split('|').filter((p) => p.length > 2).join('|');
// Number words just written, so "بين 9 و12" reads the second number in the case of the first.
const NUMBER_WORDS_AT_END = /(?:\s*و?(?:\d[\d.,]*|(?:صفر|واحد|اثن|إحدى|أحد|ثلاث|أربع|خمس|ست|سبع|ثمان|تسع|عشر|مئ|ألف|آلاف|مليون|ملايين|مليار)\S*))+\s*$/u;
const RANGE_NOUN = /^\s*(?:و|إلى|الى|حتى|أو|-|–)\s*(?:[^\s\d]+\s)?\d+\s+([\p{L}\u064B-\u0652]+)/u;
const DATE_WORDS = /(?:^|\s)(?:(?:بتاريخ|تاريخ|التاريخ)(?:\s+\S+)?|يوم|في|حتى|منذ|قبل|بعد|من|إلى|الأحد|الاثنين|الإثنين|الثلاثاء|الأربعاء|الخميس|الجمعة|السبت)\s*:?\s*$/u;
const FRACTIONS: Record<string, string> = { '1/2': 'نصف', '1/3': 'ثلث', '2/3': 'ثلثان', '1/4': 'ربع', '3/4': 'ثلاثة أرباع', '1/5': 'خمس', '1/10': 'عشر' };
const MONTH_AFTER = new RegExp(`^\\s*(?:${MONTH})`, 'u');
const COMPLEMENTS = CONSTRUCT_COMPLEMENTS.join('|');
const TANWEEN = /[\u064B-\u064D]/g;

/**
 * A keypad key after "press" (اضغط، دوس، اكبس، انقر, with و/ف/ثم before and على، الرقم، زر after):
 * the key's name as the verb's object, so 2 is اثنين (the dual's accusative), as call-centre
 * prompts say it ("للغة العربية اضغط واحد، للإنجليزية اضغط اثنين"). Several keys: "اضغط 1 أو 2".
 * The two function keys have their ITU-T E.161 names, "star" and "square", as Gulf prompts say
 * them: * النجمة, # المربع (this project's own prompts: "ثم اضغط المربع").
 */
const KEY_NAMES: Record<string, string> = {
  0: 'صفر', 1: 'واحد', 2: 'اثنين', 3: 'ثلاثة', 4: 'أربعة', 5: 'خمسة', 6: 'ستة', 7: 'سبعة', 8: 'ثمانية', 9: 'تسعة',
  '*': 'النجمة', '#': 'المربع',
};
const USSD = /(?<![\p{L}\p{N}*#])\*[\d٠-٩*]*[\d٠-٩][\d٠-٩*]*#(?![\p{L}\p{N}*#])/gu;
const USSD_KEYS: Record<string, string> = { '*': 'نجمة', '#': 'مربع' };
// A digit that is no part of a longer number, or a function key that is no part of a code (*100#).
const KEY = String.raw`(?:\d(?![\d.,:/]?\d|\s?(?:%|٪))|[*#](?![\p{L}\p{N}*#]))`;
const KEYPAD = new RegExp(String.raw`((?<![\p{L}])[وف]?(?:[اإ]ضغط|دوس|[اإ]كبس|[اإ]نقر)(?:ي|وا)?(?:\s+(?:على|عَلى))?(?:\s+(?:الرقم|رقم|الزر|زر|المفتاح|مفتاح))?\s+)(${KEY}(?:\s*(?:أو|او|ثم|،|و)\s*${KEY})*)`, 'gu');

const tidy = (t: string) => t.replace(/\s+([،؛.!?؟])/g, '$1').replace(/[ \t]{2,}/g, ' ').trim();

type Replacer = (m: string[], ctx: { before: string; after: string; pre: string; gcase: GrammaticalCase }) => string | undefined;

/** Turns a reply chunk into the words a native listener expects (numbers, money, dates, references); built by `createNormalizer`. */
export class SpeechNormalizer {
  private readonly o: Required<NormalizerOptions>;
  private readonly lexicon: Lexicon;
  private readonly refs: ReferenceWords;
  private readonly ordinalNouns: Record<string, Gender>;
  private readonly cases: CaseRules;

  constructor(options: NormalizerOptions = {}) {
    this.o = { ...NORMALIZER_DEFAULTS, ...options };
    this.lexicon = new Lexicon(this.o.nouns);
    this.refs = new ReferenceWords(this.o.referenceKeywords);
    this.ordinalNouns = { ...ORDINAL_NOUNS, ...this.o.ordinalNouns };
    this.cases = caseRules(this.o.verbs);
  }

  /** Runs `fn` on every match of `pattern` (group 1 is the glued prefix when the pattern starts with PRE). */
  private pass(t: string, pattern: RegExp, fn: Replacer, prefixed = true): string {
    return t.replace(pattern, (...args) => {
      const offset = args.find((a, i) => i > 0 && typeof a === 'number') as number;
      const m = args.slice(0, args.indexOf(offset)) as string[];
      const pre = prefixed ? (m[1] ?? '') : '';
      // The words just before the number are its context; a short window keeps this cheap.
      const before = t.slice(Math.max(0, offset - 80), offset);
      const after = t.slice(offset + m[0]!.length, offset + m[0]!.length + 80);
      const reading: CaseReading = !this.o.caseEndings ? 'nominative' : /[بلك]/.test(pre) ? 'genitive' : caseBefore(pre === 'و' ? before.replace(NUMBER_WORDS_AT_END, '') : before, this.cases);
      const out = fn(m, { before, after, pre, gcase: reading === 'pausal' ? 'nominative' : reading });
      if (out === undefined) return m[0]!;
      // Unsure of the role: the citation form, read in pause (no tanween).
      return `${pre}${reading === 'pausal' ? out.replace(TANWEEN, '') : out}`;
    });
  }

  /** The speakable form of a text. */
  normalize(input: string): string {
    // A code dialled whole (USSD: *100#, *166*1#) is its keys one by one; read before the
    // markup is stripped, which would take *166* for emphasis.
    let t = input.replace(USSD, (code) => [...westernDigits(code)].map((k) => USSD_KEYS[k] ?? digitsToWords(k)).join(' '));
    t = t.replace(MASKED, (_, d: string) => digitsToWords(d));
    t = westernDigits(stripMarkup(t)).replace(/٪/g, '%').replace(/ = /g, ' يساوي ');
    // Keys first: "اضغط #" has no digit and "#" is read as رقم below.
    t = t.replace(KEYPAD, (all: string, verb: string, keys: string, offset: number) =>
      (this.countsPresses(keys, t.slice(offset + all.length, offset + all.length + 40)) ? all : `${verb}${keys.replace(/[\d*#]/g, (k) => KEY_NAMES[k]!)}`));
    // "#4521" is "number 4521": a reference, read as one after words that announce it already
    // (رقم الطلب #4521), and announced by رقم otherwise (طلبك #4521).
    t = t.replace(/(^|[\s(:،])#\s?(?=\d)/gu, (all, lead: string, offset: number) =>
      (/رقم(?:\s+\S+)?\s*:?\s*$/u.test(t.slice(Math.max(0, offset - 40), offset + lead.length)) ? lead : `${lead}رقم `));
    // Most chunks have no number at all: nothing more to do.
    if (!/\d/.test(t)) return tidy(t);
    // "-50" → "سالب 50"; "2 مليون" → "2,000,000" so the amount and its noun read as one number.
    t = t.replace(/(^|[\s(:])[-−](?=\d)/g, '$1سالب ');
    t = t.replace(/(?<![\d.,:/+\-])(\d+(?:\.\d+)?)\s?(ألف|آلاف|مليون|ملايين|مليار|مليارات)(?![\p{L}\u064B-\u0652])/gu, (all, n: string, w: string) => {
      const value = Math.round(Number(n) * (w.startsWith('مليا') ? 1e9 : /^مل/.test(w) ? 1e6 : 1e3));
      return value < 1e12 ? value.toLocaleString('en-US') : all;
    });
    // Digits glued to a word ("الطلب45", "5دقائق") are parted from it; a glued prefix (ب، ل، و) stays.
    t = t.replace(/(\p{Script=Arabic}+)(?=\d)/gu, (w) => (/^[وف]?[بلك]?ـ?$/.test(w) ? w : `${w} `)).replace(/(\d)(?=\p{Script=Arabic})/gu, '$1 ');
    // "بـ 4821" → "ب4821": the prefix is read with the number.
    t = t.replace(/(^|\s)([وف]?[بلك]|[وف])ـ?\s*(?=[\d+])/gu, '$1$2');

    t = this.numericDates(t);
    // References written with letters.
    t = t.replace(IBAN, (s) => spellReference(s));
    t = this.pass(t, FLIGHT, (m, { before }) => (m[2] && !this.refs.announced(before) ? undefined : spellReference(m[1]! + m[3]!)), false);
    t = t.replace(PNR, (s) => spellReference(s));
    t = this.pass(t, re(String.raw`(?<![\p{L}\d])[A-Z0-9]{2,8}(?![\p{L}\d])`), (m, { before }) => (/[A-Z]/.test(m[0]!) && (/\d/.test(m[0]!) || m[0]!.length >= 5) && this.refs.announced(before) ? spellReference(m[0]!) : undefined), false);

    // Ranges: "24-48 ساعة" → "24 إلى 48 ساعة"; not a reference (رقم الطلب 12-3456), a date or a phone.
    t = this.pass(t, re(String.raw`(?<![\d\-/.,+])(\d{1,4})\s?[-–]\s?(\d{1,4})(?![\d\-/]|[.,]\d)`), (m, { before }) =>
      Number(m[1]) < Number(m[2]) && !this.refs.announced(before) && !/\d[ -]?$/.test(before) ? `${m[1]} إلى ${m[2]}` : undefined, false);
    t = this.money(t);
    // Percentages, the sign before or after.
    t = this.pass(t, re(`${PRE}(?:%\\s?(${NUM})|(${NUM})\\s?%)`), (m, c) => `${this.decimal(m[2] ?? m[3]!, c.gcase)} بالمئة`);

    // Numbers announced as references, and phones.
    t = this.pass(t, re(`${PRE}(\\+?\\d+(?:[ -]\\d+)*)${END}(?!:\\d)`), (m, { before, after }) => {
      const digits = m[2]!;
      const kind = this.refs.announced(before);
      const length = digits.replace(/\D/g, '').length;
      // A day or month before a slash is a date's (تاريخ الطلب 15/3), not a reference.
      if (/^\d{1,2}$/.test(digits) && /^\/\d/.test(after)) return undefined;
      if (!kind || (kind === 'number' && length < 4) || length < 2 || this.countsSomething(after) || MONTH_AFTER.test(after)) return undefined;
      return this.o.references === 'number' && !/^[0+]/.test(digits) ? cardinal(Number(digits.replace(/\D/g, ''))) : spellReference(digits);
    });

    t = this.datesAndTimes(t);
    t = t.replace(PHONE, (s) => spellReference(s));
    t = this.pass(t, LONG_DIGITS, (m, { after }) => (this.countsSomething(after) ? undefined : spellReference(m[0]!)), false);

    // Simple fractions: 1/2 → نصف; others "ثلاثة على ثمانية".
    t = t.replace(/(?<![\d/.,])(\d{1,2})\/(\d{1,2})(?![\d/]|[.,]\d)/g, (_, a: string, b: string) => FRACTIONS[`${+a}/${+b}`] ?? `${cardinal(+a)} على ${cardinal(+b)}`);
    // Units: 5 كم، 10 GB.
    t = this.pass(t, re(`${PRE}(${NUM})\\s?(${UNITS})(?![\\p{L}\\d])`), (m, c) => {
      const noun = this.lexicon.get(UNIT_ABBREVIATIONS[m[3]!]!)!;
      const n = m[2]!.replace(/,/g, '');
      return n.includes('.') ? `${this.decimal(n, c.gcase)} ${noun.singular}` : countNoun(Number(n), noun, c.gcase);
    });

    // Ordinals: الدور 5، للمرة 2.
    t = this.pass(t, re(String.raw`(?<![\p{L}])([وف]?[بلك]?)(ال|ل)(\p{L}+)\s+(\d{1,2})${END}(?!\s*[:/])`), (m, { before }) => {
      const bare = m[3]!.replace(/[\u064B-\u0652]/g, '');
      const g = this.ordinalNouns[bare];
      if (!g || (m[2] === 'ل' && !m[1])) return undefined;
      const reading = !this.o.caseEndings ? 'nominative' : /[بلك]/.test(m[1]!) ? 'genitive' : caseBefore(before, this.cases);
      const gcase: GrammaticalCase = reading === 'pausal' ? 'nominative' : reading;
      return `${m[1]}${m[2]}${m[3]} ${ordinal(Number(m[4]), g, gcase)}`;
    }, false);

    // The first number of a range counts the noun after the second: "بين ثلاث واثنتي عشرة دقيقة".
    t = this.pass(t, re(`${PRE}(\\d+)${END}`), (m, c) => {
      const ranged = c.after.match(RANGE_NOUN)?.[1];
      const gender = ranged ? this.counted(ranged)?.noun.gender : undefined;
      return gender === 'f' ? cardinal(Number(m[2]), { gender, grammaticalCase: c.gcase }) : undefined;
    });
    // A number and the noun it counts.
    t = this.pass(t, re(`${PRE}(${NUM})\\s+([\\p{L}\\u064B-\\u0652]+)(?:\\s+(${COMPLEMENTS})(?![\\p{L}\\u064B-\\u0652]))?(?![\\p{N}])`), (m, c) => {
      if (/[A-Za-z]\s*$/.test(c.before)) return undefined;
      const counted = this.counted(m[3]!);
      if (m[2]!.includes('.')) return counted?.sure && !m[4] ? timeFraction(m[2]!, counted.noun, c.gcase) : undefined;
      const n = Number(m[2]!.replace(/,/g, ''));
      const complement = m[4] ? ` ${m[4]}` : '';
      if (!counted || n >= 1e12 || n === 0) return undefined;
      // A word not known as a noun: 1 and 2 still follow it (توقيع واحد); other numbers keep their plain form.
      if (!counted.sure && n > 2) return `${cardinal(n, { grammaticalCase: c.gcase })} ${m[3]}${complement}`;
      return m[4] ? inConstruct(countNoun(n, counted.noun, c.gcase), counted.noun, m[4]) : countNoun(n, counted.noun, c.gcase);
    });

    // What is left: plain numbers and decimals (a number after a Latin word is part of a name: iPhone 15).
    t = this.pass(t, re(`${PRE}(${NUM})${END}`), (m, c) => (/[A-Za-z]\s$/.test(c.before) ? undefined : this.decimal(m[2]!, c.gcase)));
    return tidy(t);
  }

  private counted(w: string) {
    const known = this.lexicon.get(w);
    if (known) return { noun: known, sure: true };
    if (NOT_COUNTED.has(w) || /^(?:ال|وال|بال|لل)/.test(w) || w.length < 2) return undefined;
    const guess = guessNoun(w);
    // An unknown word in the accusative after a number is an adverb (فورًا، يوميًا، تقريبًا), not what it counts.
    return guess.sure || !/[اً]$/.test(w) ? guess : undefined;
  }

  /**
   * A number after "press" counts presses or time ("اضغط 3 مرات", "اضغط 2 ثانية") when a counted
   * noun follows it; not when that noun carries its own count (a dual, مرتين، ثانيتين) or is
   * followed by one (مرة واحدة، مرة أخرى، مرة ثانية): then the number is the key ("اضغط 2 مرتين").
   */
  private countsPresses(keys: string, after: string): boolean {
    if (!/^\d$/.test(keys) || !this.countsSomething(after)) return false;
    const [, w = '', next = ''] = after.match(/^\s*([\p{L}\u064B-\u0652]+)(?:\s+([\p{L}\u064B-\u0652]+))?/u) ?? [];
    const noun = this.lexicon.get(w);
    const bare = w.replace(/[\u064B-\u0652]/g, '');
    const dual = noun && !noun.invariant && (bare === noun.dual || bare === noun.dual.replace(/ان$/, 'ين'));
    return !dual && !/^(?:واحد|واحدة|أخرى|اخرى|ثانية|ثانيه)$/u.test(next.replace(/[\u064B-\u0652]/g, ''));
  }

  /** The words after a number name what it counts (so it is an amount, not a reference). */
  private countsSomething(after: string): boolean {
    const w = after.match(/^\s*([\p{L}\u064B-\u0652%]+)/u)?.[1];
    return !!w && (!!this.lexicon.get(w) || w in CURRENCY_WORDS || w in UNIT_ABBREVIATIONS || w === '%');
  }

  private decimal(s: string, gcase: GrammaticalCase): string {
    const [int = '0', frac] = s.replace(/,/g, '').split('.');
    const whole = cardinal(Number(int), { grammaticalCase: gcase });
    if (!frac) return whole;
    // Short fractions read as a number after the comma ("ثلاثة فاصلة خمسة وعشرون").
    const fracWords = frac.length <= 2 && !frac.startsWith('0') ? cardinal(Number(frac)) : digitsToWords(frac);
    return `${whole} فاصلة ${fracWords}`;
  }

  private money(t: string): string {
    const read = (amount: string, code: string, gcase: GrammaticalCase) => readMoney(amount, code, gcase);
    t = this.pass(t, re(`(?<![A-Za-z])(${CODES}|${SYMBOLS})\\s?(${NUM})${END}`), (m, c) => read(m[2]!, CURRENCIES[m[1]!] ? m[1]! : CURRENCY_SYMBOLS[m[1]!]!, c.gcase), false);
    t = this.pass(t, re(`${PRE}(${NUM})\\s?(${CODES}|${SYMBOLS})(?![A-Za-z])`), (m, c) => read(m[2]!, CURRENCIES[m[3]!] ? m[3]! : CURRENCY_SYMBOLS[m[3]!]!, c.gcase));
    return this.pass(t, re(`${PRE}(${NUM})\\s?(${WORDS})(?:[\\u064B-\\u0652]*ا)?[\\u064B-\\u0652]*(?:\\s+(\\p{L}+?)(?:ة|ين|ون|ان|ًا|ا)?)?(?![\\p{L}\\u064B-\\u0652])`), (m, c) => {
      const base = CURRENCY_WORDS[m[3]!]!;
      const code = (m[4] && NATIONALITIES[base]?.[m[4]]) || base;
      const said = readMoney(m[2]!, code, c.gcase);
      // A word after the currency that was no nationality stays.
      return m[4] && code === base ? `${said} ${m[0]!.slice(m[0]!.lastIndexOf(m[4]))}`.replace(/\s+$/, '') : said;
    });
  }

  /**
   * Day, month and year with /, - or . (15/03/2027, 15-03-2027, 15.03.2027), or the year first
   * (2027-03-15, 1446/09/15 هـ as Saudi forms write it); a year 1300–1499, or هـ after it, is
   * Hijri. Read before references, so a date after a reference word (تاريخ الطلب) stays a date.
   */
  private numericDates(t: string): string {
    t = this.pass(t, re(String.raw`(?<![\d/.\-])(\d{4})([-/.])(\d{1,2})\2(\d{1,2})(?![\d/\-]|\.\d)(?:\s?(هـ|ه|م)(?!\p{L}))?`), (m, c) => this.numericDate(+m[4]!, +m[3]!, +m[1]!, c.gcase, m[5]), false);
    t = this.pass(t, re(String.raw`(?<![\d/.\-])(\d{1,2})([-/.])(\d{1,2})\2(\d{4})(?![\d/\-]|\.\d)(?:\s?(هـ|ه|م)(?!\p{L}))?`), (m, c) => this.numericDate(+m[1]!, +m[3]!, +m[4]!, c.gcase, m[5]), false);
    // Month and year: a card's expiry (12/2028), also after the words of a reference (تنتهي، البطاقة).
    return this.pass(t, re(String.raw`(?<![\d/])(\d{1,2})/(\d{4})(?![\d/])`), (m) => {
      const month = monthName(+m[1]!);
      return month ? `${month} ${year(+m[2]!)}` : undefined;
    }, false);
  }

  private datesAndTimes(t: string): string {
    // Day and month after a word of dates, the date's noun between (بتاريخ 21/11، تاريخ الطلب 15/3).
    t = this.pass(t, re(String.raw`(?<![\d/])(\d{1,2})/(\d{1,2})(?![\d/])`), (m, c) =>
      DATE_WORDS.test(c.before) ? this.numericDate(+m[1]!, +m[2]!, undefined, c.gcase) : undefined, false);
    t = this.pass(t, re(`${PRE}(\\d{1,2})\\s+(${MONTH})(?:\\s+(\\d{3,4})\\s*(هـ|ه|م)?(?!\\p{L}))?(?![\\p{L}])`), (m, c) =>
      +m[2]! >= 1 && +m[2]! <= 31 ? readDate(+m[2]!, m[3]!, m[4] ? +m[4] : undefined, c.gcase, m[5]) : undefined);
    t = this.pass(t, re(String.raw`(?<!\d)(\d{3,4})\s?(هـ|ه)(?!\p{L})`), (m) => year(+m[1]!, m[2]), false);
    // "عام 2027م": م after a year (after عام، سنة، في، منذ, 1800–2199) is the Gregorian era; a
    // number with م elsewhere may be metres.
    t = this.pass(t, re(String.raw`(?<=(?:عام|سنة|العام|السنة|لعام|لسنة|في|منذ|حتى)\s+)(\d{4})\s?م(?![\p{L}\u064B-\u0652])`), (m) => {
      const y = +m[1]!;
      return y >= 1800 && y <= 2199 ? year(y, 'م') : undefined;
    }, false);
    // Clock times: 10:30, 2:30 مساءً, 9:00 pm (the period is said once, in the writer's word).
    t = this.pass(t, re(`(?:(الساعة)\\s*)?(?<![\\d:])(\\d{1,2}):(\\d{2})(?:\\s?(${PERIOD})(?![\\p{L}\\u064B-\\u0652]))?`), (m, c) =>
      +m[2]! > 24 || +m[3]! > 59 ? undefined : `${m[1] || !/الساعة(?:\s+\S+)?\s*$/.test(c.before) ? 'الساعة ' : ''}${clock(+m[2]!, +m[3]!, m[4])}`, false);
    // Hours: الساعة 11، 9 صباحًا، من 9 إلى 4 (in a sentence about opening hours).
    t = this.pass(t, re(`(?:(الساعة)\\s+)?(?<![\\d:])(\\d{1,2})\\s+(${FULL_PERIOD})(?![\\p{L}\\u064B-\\u0652])`), (m) =>
      +m[2]! > 24 ? undefined : `${m[1] ? 'الساعة ' : ''}${clock(+m[2]!, 0, m[3])}`, false);
    const hoursTalk = /الساعة|الدوام|دوام|ساعات|يعمل|تعمل|نعمل|يفتح|تفتح|نفتح|مفتوح|نستقبل|يستقبل|متاح|متاحة|العمل|الزيارة/;
    // "9 ص"، "5 م": the timetable's short periods (صباحًا، مساءً). م after a number is also metres,
    // so it is a time only after الساعة, where hours are talked of, or beside an hour with ص.
    t = this.pass(t, re(String.raw`(?:(الساعة)\s+)?(?<![\d:.,])(\d{1,2})\s?(ص|م)(?![\p{L}\u064B-\u0652\d])`), (m, { before, after }) => {
      const h = +m[2]!;
      if (h < 1 || h > 12) return undefined;
      if (m[3] === 'م' && !m[1] && !hoursTalk.test(before.slice(-80)) && !/\d\s?ص(?![\p{L}])/u.test(`${before} ${after}`)) return undefined;
      return `${m[1] ? 'الساعة ' : ''}${clock(h, 0, m[3])}`;
    }, false);
    t = this.pass(t, re(String.raw`(الساعة)\s+(\d{1,2})(?![\d:]|[.,]\d)`), (m) => (+m[2]! > 24 ? undefined : `الساعة ${clock(+m[2]!, 0)}`), false);
    t = this.pass(t, re(String.raw`(من|بين)\s+(?:الساعة\s+)?(\d{1,2})\s+(إلى|الى|حتى|و|ل)\s*(?:الساعة\s+)?(\d{1,2})(?![\d:]|[.,]\d)(?!\s+[\p{L}]+(?:ات|ام|ين))`), (m, { before }) => {
      if (!hoursTalk.test(before.slice(-80)) || +m[2]! > 12 || +m[4]! > 12) return undefined;
      const join = m[3] === 'و' ? 'و' : `${m[3]} `;
      return `${m[1]} ${clock(+m[2]!, 0)} ${join}${clock(+m[4]!, 0)}`;
    }, false);
    // "من 1 إلى 5 مساءً": the end of the range is a time, so the start is an hour too.
    return this.pass(t, re(`(من|بين)\\s+(\\d{1,2})(?=\\s+(?:إلى|الى|حتى|و)\\s*(?:الساعة\\s+)?(?:${HOUR_WORDS})(?:\\s+(?:${FULL_PERIOD}|والنصف|والربع|والثلث|إلا)|\\s*[.،,]|\\s*$))`), (m) =>
      +m[2]! >= 1 && +m[2]! <= 12 ? `${m[1]} ${hourWord(+m[2]!)}` : undefined, false);
  }

  private numericDate(d: number, m: number, y: number | undefined, gcase: GrammaticalCase, era?: string): string | undefined {
    const hijri = era ? /^ه/.test(era) : y !== undefined && y >= 1300 && y < 1500;
    const month = hijri ? hijriMonthName(m) : monthName(m);
    if (!month || d < 1 || d > 31) return undefined;
    return readDate(d, month, y, gcase, hijri ? 'هـ' : era);
  }
}

/** Nouns of time a half or a quarter is said of, "ساعة ونصف" (never "واحد فاصلة خمسة ساعة"). */
const TIME_NOUNS = new Set(['ساعة', 'دقيقة', 'يوم', 'أسبوع', 'شهر', 'سنة', 'عام']);
const TIME_FRACTIONS: Record<string, [nominative: string, accusative: string]> = { '5': ['نصف', 'نصفًا'], '25': ['ربع', 'ربعًا'], '75': ['ثلاثة أرباع', 'ثلاثة أرباع'] };

/**
 * "1.5 ساعة" → "ساعة ونصف", "2.5 سنة" → "سنتان ونصف", "0.5 ساعة" → "نصف ساعة", "1.25 ساعة" →
 * "ساعة وربع": time is said in halves and quarters; other decimals are left to the plain reading.
 */
function timeFraction(written: string, noun: Noun, gcase: GrammaticalCase): string | undefined {
  const [int = '0', frac = ''] = written.replace(/,/g, '').split('.');
  const part = TIME_FRACTIONS[frac.replace(/0+$/, '')];
  if (!part || !TIME_NOUNS.has(noun.singular)) return undefined;
  const n = Number(int);
  if (n === 0) return `${part[0]} ${noun.singular}`;
  const whole = n === 1 ? (gcase === 'accusative' ? noun.accusative : noun.singular) : countNoun(n, noun, gcase);
  return `${whole} و${part[gcase === 'accusative' ? 1 : 0]}`;
}

/** A normalizer function with the given options. */
export function createNormalizer(options: NormalizerOptions = {}): (text: string) => string {
  const n = new SpeechNormalizer(options);
  return (text) => n.normalize(text);
}

/** Text for the voice, with the default options: markup out, numbers, money, dates and times as Arabic words. */
export const normalizeForSpeech: (text: string) => string = createNormalizer();

/**
 * Numbers as callers say them: word tokens (MSA and dialect forms) grouped into the numbers they
 * make. "خمسة وعشرين" is one number (25), "خمسة خمسة" two (5, 5), "ألف وخمسمية" one (1500).
 * Shared by the digits, amount and date parsers; each decides what a group means to it.
 */
import {
  BARE_ONLY, FRACTION_WORDS, HUNDRED_STEMS, HUNDRED_WORDS, REPEAT_WORDS, SCALE_WORDS, TEEN_STEMS, TEEN_UNITS, TENS_WORDS, UNIT_WORDS, asciiDigits,
} from './number-words.ts';

/** A word of the caller's text, normalized for lookup. */
export function normalizeWord(w: string): string {
  return w
    .replace(/[\u064B-\u065F\u0670\u0640]/g, '')
    .replace(/[إأآٱ]/g, 'ا')
    .replace(/ى/g, 'ي')
    .replace(/ة/g, 'ه')
    .replace(/[ءؤ]$/u, '')
    .toLowerCase();
}

/** The caller's text as words and numerals (Eastern Arabic and Persian digits made ASCII). */
export function tokenize(text: string): string[] {
  if (typeof text !== 'string') throw new TypeError(`expected the caller's text as a string, got ${text === null ? 'null' : typeof text}`);
  const plain = asciiDigits(text).replace(/[\u064B-\u065F\u0670\u0640]/g, '');
  return (plain.match(/\d+(?:[.,:/-]\d+)*|[\p{L}]+/gu) ?? []).map(normalizeWord);
}

type Part = 'unit' | 'teen' | 'ten' | 'hundred' | 'scale' | 'digits' | 'frac' | 'teenUnit';

interface NumToken {
  part: Part;
  value: number;
  /** For a numeral: as written (leading zeros kept, separators removed). */
  raw?: string;
  /** Scale tokens: 1000, 1e6, 1e9. */
  scale?: number;
}

const TEEN = new RegExp(`^(${Object.keys(TEEN_STEMS).sort((a, b) => b.length - a.length).join('|')})(?:ت|ط)?(?:اشر|اش|عشر|عش)$`);
// ميت: the Egyptian construct form before a noun or ألف (خمسميت جنيه 500, سبعميت ألف 700 000).
const HUNDREDS = new RegExp(`^(${Object.keys(HUNDRED_STEMS).sort((a, b) => b.length - a.length).join('|')})(?:مئه|مائه|ميه|مايه|ميت)$`);
/**
 * One-word thousands (Egyptian تلاتلاف، خمستلاف، عشرتلاف): a unit of 3–10 or its clipped stem before
 * تلاف (تمنتلاف 8000, تلتلاف 3000, which were no number at all).
 */
const THOUSAND_STEMS: Record<string, number> = {
  ...Object.fromEntries(Object.entries(UNIT_WORDS).filter(([, v]) => v >= 3)),
  'تلت': 3, 'ثلث': 3, 'تمن': 8, 'ثمن': 8,
};
const THOUSANDS = new RegExp(`^(${Object.keys(THOUSAND_STEMS).sort((a, b) => b.length - a.length).join('|')})ت?لاف$`);

/** The number tokens one word stands for ([] when it is not a number word). */
function numberTokens(w: string): NumToken[] {
  if (/^\d/.test(w)) {
    const raw = w.replace(/,(?=\d{3}(?:\D|$))/g, '');
    if (/^\d+(?:\.\d+)?$/.test(raw)) return [{ part: 'digits', value: Number(raw), raw }];
    // 050-123-4567: one run of digits written in groups.
    if (/^\d+(?:-\d+)+$/.test(raw)) return [{ part: 'digits', value: Number(raw.replace(/-/g, '')), raw: raw.replace(/-/g, '') }];
    return [];
  }
  if (w in UNIT_WORDS) return [{ part: 'unit', value: UNIT_WORDS[w]! }];
  if (w in TEEN_UNITS) return [{ part: 'teenUnit', value: TEEN_UNITS[w]! }];
  if (w in TENS_WORDS) return [{ part: 'ten', value: TENS_WORDS[w]! }];
  if (w in HUNDRED_WORDS) return [{ part: 'hundred', value: HUNDRED_WORDS[w]! }];
  if (w in SCALE_WORDS) {
    const { scale, times } = SCALE_WORDS[w]!;
    return times === 1 ? [{ part: 'scale', value: scale, scale }] : [{ part: 'unit', value: times }, { part: 'scale', value: scale, scale }];
  }
  if (w in FRACTION_WORDS) return [{ part: 'frac', value: FRACTION_WORDS[w]! }];
  let m = TEEN.exec(w);
  if (m) return [{ part: 'teen', value: 10 + TEEN_STEMS[m[1]!]! }];
  m = HUNDREDS.exec(w);
  if (m) return [{ part: 'hundred', value: 100 * HUNDRED_STEMS[m[1]!]! }];
  m = THOUSANDS.exec(w);
  if (m) return [{ part: 'unit', value: THOUSAND_STEMS[m[1]!]! }, { part: 'scale', value: 1000, scale: 1000 }];
  return [];
}

/** One item of the caller's text: a number (its value and how it was said) or another word. */
export type SpokenItem =
  | { kind: 'number'; value: number; /** digits as written, for numerals */ raw?: string; /** said with a fraction word */ fraction: boolean; words: string[] }
  | { kind: 'repeat'; times: number; word: string }
  | { kind: 'word'; word: string };

/** A word read as a number, with or without a prefixed و ("وعشرين") or بـ ("بألف"). */
function readWord(w: string): { tokens: NumToken[]; waw: boolean } {
  const whole = numberTokens(w);
  if (whole.length) return { tokens: whole, waw: false };
  if (w.length > 2 && w.startsWith('و')) {
    const rest = readWord(w.slice(1));
    if (rest.tokens.length) return { tokens: rest.tokens, waw: true };
  }
  for (const prefix of ['ب', 'بال', 'ال']) {
    if (w.length > prefix.length + 1 && w.startsWith(prefix) && !BARE_ONLY.has(w.slice(prefix.length))) {
      const t = numberTokens(w.slice(prefix.length));
      if (t.length) return { tokens: t, waw: false };
    }
  }
  return { tokens: [], waw: false };
}

/** A number being built from its words. */
class Group {
  total = 0;
  current = 0;
  last: Part;
  lastScale = Infinity;
  raw?: string;
  fraction = false;
  words: string[] = [];
  constructor(t: NumToken) {
    this.last = t.part;
    if (t.part === 'scale') {
      this.total = t.value;
      this.lastScale = t.scale!;
    } else this.current = t.value;
    if (t.part === 'digits') this.raw = t.raw;
    if (t.part === 'frac') this.fraction = true;
  }

  get value(): number {
    return this.total + this.current;
  }

  /** Whether `t` continues this number (true: taken in), joined by و or not. */
  take(t: NumToken, waw: boolean): boolean {
    const { last, current } = this;
    if (t.part === 'scale') {
      if (t.scale! >= this.lastScale) return false;
      if (!waw && current > 0 && last !== 'scale') return this.apply(() => { this.total += current * t.scale!; this.current = 0; this.lastScale = t.scale!; this.raw = undefined; }, t);
      if (waw && current === 0 && last === 'scale') return this.apply(() => { this.total += t.scale!; this.lastScale = t.scale!; }, t);
      return false;
    }
    if (this.raw !== undefined) return false; // a numeral takes only a scale after it ("5 آلاف")
    if (t.part === 'frac') {
      if (!waw || last === 'frac') return false;
      const unitOfLast = last === 'scale' ? this.lastScale : last === 'hundred' && current % 100 === 0 ? 100 : 1;
      return this.apply(() => { this.current += t.value * unitOfLast; this.fraction = true; }, t, 'frac');
    }
    if (!waw) {
      // ثلاث مية, خمسة عشر / اثنا عشر
      if (t.part === 'hundred' && t.value === 100 && last === 'unit' && current >= 3 && current <= 9) return this.apply(() => { this.current = current * 100; }, t, 'hundred');
      if (t.part === 'unit' && t.value === 10 && (last === 'unit' || last === 'teenUnit') && current >= 1 && current <= 9) return this.apply(() => { this.current = current + 10; }, t, 'teen');
      return false;
    }
    if (t.part === 'teenUnit') return false;
    const v = t.value;
    if (t.part === 'ten' && last === 'unit' && current % 100 < 10) return this.apply(() => { this.current += v; }, t);
    if (t.part === 'unit' && last === 'ten' && v > 0 && v < 10 && current % 10 === 0) return this.apply(() => { this.current += v; }, t);
    if (last === 'hundred' && current % 100 === 0 && v < 100 && t.part !== 'hundred') return this.apply(() => { this.current += v; }, t);
    if (last === 'scale' && current === 0 && v < this.lastScale && v > 0) return this.apply(() => { this.current = v; }, t);
    return false;
  }

  private apply(change: () => void, t: NumToken, part: Part = t.part): true {
    change();
    this.last = part;
    return true;
  }
}

/** The caller's words with the numbers in them grouped: the input of every number parser. */
export function readSpoken(text: string): SpokenItem[] {
  const items: SpokenItem[] = [];
  let group: Group | undefined;
  let pendingWaw = false;
  const close = () => {
    if (!group) return;
    // An MSA teen unit never said before عشر ("احد") is no number: keep it a word.
    if (group.last === 'teenUnit') items.push(...group.words.map((word) => ({ kind: 'word' as const, word })));
    else items.push({ kind: 'number', value: group.value, raw: group.raw, fraction: group.fraction, words: group.words });
    group = undefined;
  };
  const words = tokenize(text);
  for (const [i, w] of words.entries()) {
    if (w === 'و') {
      pendingWaw = true;
      continue;
    }
    let { tokens, waw } = readWord(w);
    // "خمسة وعشرون ألفًا": after a number, ألفًا/مليونًا are the accusative singular, not the dual.
    if ((w === 'الفا' || w === 'مليونا') && group && group.current > 0) tokens = [tokens[1]!];
    // "تلت تلاف", "تلت مية": three, not a third, before a scale or hundred.
    if ((w === 'تلت' || w === 'ثلث') && /^(?:تلاف|الاف|ميه|مئه|مايه|ميت)$/.test(words[i + 1] ?? '')) tokens = [{ part: 'unit', value: 3 }];
    if (!tokens.length) {
      if (w in REPEAT_WORDS) {
        close();
        items.push({ kind: 'repeat', times: REPEAT_WORDS[w]!, word: w });
      } else if (!FILLERS.has(w)) {
        close();
        items.push({ kind: 'word', word: w });
      }
      pendingWaw = false;
      continue;
    }
    tokens.forEach((t, i) => {
      const joined = i === 0 && (waw || pendingWaw);
      if (!group || !group.take(t, joined)) {
        close();
        group = new Group(t);
      }
    });
    group!.words.push(w);
    pendingWaw = false;
  }
  close();
  return items;
}

/** Hesitations that never end a number ("خمسة… يعني… وعشرين" is still 25). */
const FILLERS = new Set(['اه', 'ام', 'امم', 'ايه', 'يعني', 'هم', 'اا', 'ااه', 'uh', 'um']);

/**
 * Where a forced cut may fall, for the chunker: each space between two words gets a rank. 0 is
 * inside a unit the normalizer reads whole (a number and what it counts, a phone number's
 * groups, a date, an amount with its currency, a range), and is never cut; higher ranks are
 * better places: near a number (the words before it decide its case or make it a reference),
 * an arbitrary space, before a connector or after a clause-ending word, after punctuation.
 *
 * A rank depends only on the word before the space and the four words after it, so a streamed
 * reply can be cut as soon as those words have arrived, exactly where the whole text is cut.
 */
import { CONSTRUCT_COMPLEMENTS } from './case-lexicon.ts';
import { CURRENCIES, CURRENCY_SYMBOLS, CURRENCY_WORDS, NATIONALITIES } from './currencies.ts';
import { GREGORIAN, HIJRI, LEVANTINE, PERIOD } from './dates.ts';
import { Lexicon, NOT_COUNTED, UNIT_ABBREVIATIONS } from './lexicon.ts';
import { ReferenceWords } from './references.ts';

/** A word of the buffer and where it lies. */
export interface Token {
  text: string;
  start: number;
  end: number;
}

/** Ranks of a space: never cut, then from worst to best. */
export const RANK = { never: 0, touchesNumber: 10, nearNumber: 20, plain: 30, connector: 40, punctuation: 50 } as const;

/** Words after which the rank looks for a number: a reference is announced up to four words before it. */
export const WORDS_AHEAD = 4;

/** Arabic connectors a cut before is natural (و، ثم، كما، حيث، إذا، لكن، أو). */
const CONNECTORS = new Set(['و', 'ثم', 'كما', 'حيث', 'إذا', 'اذا', 'لكن', 'ولكن', 'أو', 'او', 'وإذا', 'فإذا', 'لأن', 'بل', 'بينما', 'كذلك', 'ولذلك', 'لذلك', 'إلا', 'حتى']);
/** A word with و glued before a verb or a definite noun opens a clause too (وسنرسل، ويمكنك، والرحلة). */
const GLUED_CONNECTOR = /^و(?:ال|س[يتنأ]|[يتنأ])\p{L}{2,}$/u;
/** Words a clause often ends on. */
const CLAUSE_END = new Set(['الآن', 'اليوم', 'غدا', 'غدًا', 'فقط', 'أيضا', 'أيضًا', 'فورا', 'فورًا', 'حاليا', 'حاليًا', 'لاحقا', 'لاحقًا',
  'مؤقتا', 'مؤقتًا', 'تقريبا', 'تقريبًا', 'بنجاح', 'الله', 'شكرا', 'شكرًا', 'عليكم', 'لك', 'لكم', 'ممكن', 'مجانا', 'مجانًا']);
/** Words glued before a number, written apart (بـ 4821). */
const PREFIXES = new Set(['ب', 'بـ', 'ل', 'لـ', 'و', 'وب', 'وبـ', 'ف', 'فـ', 'ك', 'كـ']);
/** Words joining the two numbers of a range ("2 إلى 5 أيام"). */
const RANGE_WORDS = new Set(['إلى', 'الى', 'حتى', 'أو', 'او', 'و', '-', '–']);
const CURRENCY_MARKERS = new Set([...Object.keys(CURRENCY_SYMBOLS), ...Object.keys(CURRENCIES).filter((c) => /^[A-Z]{3}$/.test(c))]);
const MONTHS = [...GREGORIAN, ...LEVANTINE, ...HIJRI, 'ذي القعدة', 'ذي الحجة'];
const MONTH_WORDS = new Set(MONTHS.flatMap((m) => m.split(' ')));
const MONTH_PAIRS = new Set(MONTHS.filter((m) => m.includes(' ')));
const PERIODS = new Set(PERIOD.replace(/\\/g, '').split('|'));
const COMPLEMENTS = new Set(CONSTRUCT_COMPLEMENTS);
const PUNCTUATION_END = /[.!?؟…،؛,;:]$/u;
// Abbreviations whose period ends nothing (د. ص.ب. U.S.A.).
const ABBREVIATION = /^(?:د|م|ص|ه|ق|ج|أ|Dr|Mr|Mrs|Ms|St|No|vs|etc|(?:\p{L}{1,4}\.)+\p{L}{1,4})\.$/iu;

let lexicon: Lexicon | undefined;
const nouns = () => (lexicon ??= new Lexicon());
const references = new ReferenceWords();
const bare = (w: string) => w.replace(/[\u064B-\u0652]/g, '').replace(/[.!?؟…،؛,;:)"'»]+$/u, '');
const isNumber = (w: string | undefined) => !!w && /\d/.test(w);
/** A word that sits before a number as part of it: a glued prefix, a currency, a month (its year), "الساعة". */
const leadsNumber = (w: string) => PREFIXES.has(w) || CURRENCY_MARKERS.has(w) || MONTH_WORDS.has(bare(w)) || bare(w) === 'الساعة';

/** The words of `text`, with their places. */
export function tokenize(text: string): Token[] {
  return [...text.matchAll(/\S+/gu)].map((m) => ({ text: m[0], start: m.index!, end: m.index! + m[0].length }));
}

/** Whether `w` opens a clause: a cut just before it sounds natural. */
export function isConnector(w: string): boolean {
  const b = bare(w);
  return CONNECTORS.has(b) || (GLUED_CONNECTOR.test(b) && !nouns().get(b));
}

/** Whether the normalizer reads word `w` together with the number just before it. */
function boundToNumber(w: string): boolean {
  const b = bare(w);
  if (/^[%٪]/.test(b) || b === 'بالمئة' || b === 'بالمائة') return true;
  if (PERIODS.has(b) || PERIODS.has(w)) return true;
  if (NOT_COUNTED.has(b) || !b) return false;
  if (nouns().get(b) || b in CURRENCY_WORDS || b in UNIT_ABBREVIATIONS || MONTH_WORDS.has(b)) return true;
  // A definite word or a connector is never what a number counts (the normalizer does not count them either).
  if (isConnector(w) || /^(?:ال|وال|بال|لل)/.test(b)) return false;
  // An unknown word in the accusative after a number is an adverb (احترازيا), not what it counts.
  return !/[اً]$/.test(b);
}

/** A number the normalizer may read as a reference: digits only, not an amount of a currency or a count of a noun. */
function couldBeReference(t: Token[], k: number): boolean {
  const prev = t[k - 1]?.text ?? '';
  const next = bare(t[k + 1]?.text ?? '');
  const counts = !!nouns().get(next) || next in CURRENCY_WORDS || next in UNIT_ABBREVIATIONS || /^[%٪]/.test(next);
  return /^\+?\d+$/.test(t[k]!.text) && !CURRENCY_MARKERS.has(prev) && !counts;
}

/** Whether token k is a number the words before it announce as a reference (read digit by digit, alone). */
function isReference(t: Token[], k: number, text: string): boolean {
  let known = referenceCache.get(t[k]!);
  if (known === undefined) {
    const start = PREFIXES.has(t[k - 1]?.text ?? '') ? t[k - 1]!.start : t[k]!.start;
    known = couldBeReference(t, k) && references.announced(text.slice(Math.max(0, start - 80), start)) === 'reference';
    referenceCache.set(t[k]!, known);
  }
  return known;
}
// Up to five spaces ask about the same number; tokens are made afresh for each buffer.
const referenceCache = new WeakMap<Token, boolean>();

/** Whether the space between tokens i and i+1 lies inside a unit read whole. */
function insideUnit(t: Token[], i: number, text: string): boolean {
  const a = t[i]!.text;
  const b = t[i + 1]!.text;
  const before = t[i - 1]?.text;
  if (PUNCTUATION_END.test(a) && !ABBREVIATION.test(a)) return false;
  if (isNumber(a)) {
    // Phone and number groups, what the number counts, the two ends of a range.
    if (isNumber(b) || /^\+\d/.test(b) || (boundToNumber(b) && !isReference(t, i, text))) return true;
    if (RANGE_WORDS.has(b) && isNumber(t[i + 2]?.text)) return true;
  }
  if (isNumber(b) && (leadsNumber(a) || (RANGE_WORDS.has(a) && isNumber(before)))) return true;
  // After "number + noun": a nationality (ريال سعودي), a construct's second term (يوم عمل), a month's second word.
  if (isNumber(before) && boundToNumber(a) && !PUNCTUATION_END.test(a)) {
    const nb = bare(b);
    const currency = CURRENCY_WORDS[bare(a)];
    if ((currency && NATIONALITIES[currency]?.[nb]) || COMPLEMENTS.has(nb) || MONTH_PAIRS.has(`${bare(a)} ${nb}`)) return true;
  }
  return false;
}

/**
 * The rank of the space after token `i` (see `RANK`). Reads tokens i-1 to i+WORDS_AHEAD: the
 * caller makes sure those after `i` are complete words.
 */
export function spaceRank(t: Token[], i: number, text: string): number {
  if (i + 1 >= t.length) return RANK.punctuation;
  if (insideUnit(t, i, text)) return RANK.never;
  const a = t[i]!.text;
  if (text.slice(t[i]!.end, t[i + 1]!.start).includes('\n') || (PUNCTUATION_END.test(a) && !ABBREVIATION.test(a))) return RANK.punctuation;
  // The first number ahead, and the word that leads it (بـ 4821, ر.س 320): the nearer, the worse.
  for (let d = 1; d <= WORDS_AHEAD && i + d < t.length; d++) {
    if (!isNumber(t[i + d]!.text)) continue;
    const lead = d > 1 && leadsNumber(t[i + d - 1]!.text) ? d - 1 : d;
    // A reference announced before the space and no longer after it would be read as an amount.
    if (isReference(t, i + d, text) && !references.announced(text.slice(t[i + 1]!.start, t[i + lead]!.start))) return RANK.never;
    return lead === 1 ? RANK.touchesNumber : RANK.nearNumber + lead;
  }
  if (isConnector(t[i + 1]!.text) || CLAUSE_END.has(bare(a))) return RANK.connector;
  return RANK.plain;
}

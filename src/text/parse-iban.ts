/**
 * An IBAN as a caller says it: digits in words or numerals, the country's two letters by their
 * names before them or not at all, and the letters of a bank code inside the number by their
 * names (Iraq's `NBIQ`: `إن بي آي كيو`) or as the transcript writes them. Rules:
 * docs/arabic-parsing.md#validators.
 */
import { IBAN_FORMATS, ibanClasses } from './iban-formats.ts';
import { parseDigits } from './parse-digits.ts';
import { LETTER_NAMES } from './references.ts';
import { normalizeWord } from './spoken-numbers.ts';

/**
 * Other spellings transcripts give the English names of letters: كي and كاي for K (`كي دبليو`,
 * Kuwait), دابليو for W, إيتش for H.
 */
const OTHER_NAMES: Record<string, string[]> = { K: ['كي', 'كاي'], W: ['دابليو'], H: ['إيتش'] };

/** Latin letters by their Arabic names (إس → S, إيه → A); a name two letters share (بي: B and P) gives both. */
const SPOKEN_LATIN = new Map<string, string>();
for (const [letter, name] of [...Object.entries(LETTER_NAMES), ...Object.entries(OTHER_NAMES).flatMap(([l, names]) => names.map((n) => [l, n] as const))]) {
  const key = normalizeWord(name);
  if (!SPOKEN_LATIN.get(key)?.includes(letter)) SPOKEN_LATIN.set(key, (SPOKEN_LATIN.get(key) ?? '') + letter);
}

/**
 * Letter names that are also words a caller says between the groups of a number (normalized):
 * أو "or", في "in", إن/أن "that, if", أي "any, which" and Levantine إي "yes" (آي, I, alike once
 * normalized), إيه "yes" in the Gulf and the Levant and "what" in Egypt, Egyptian دي "this", بي
 * "with me", أم "or" (and the hesitation ام), كي "so that" (Wehr's dictionary of MSA; Holes and
 * Qafisheh for the Gulf, Cowell for Syrian, Abdel-Massih for Egyptian). Alone among digits they
 * are read as those words; in a run of letter names (`سي بي جيه أو`) as letters.
 */
const WORD_TOO = new Set(['او', 'في', 'ان', 'اي', 'ايه', 'دي', 'بي', 'ام', 'كي']);

/** What was heard of an IBAN: the letters said before the digits (the country's, or ''), and the characters after them. */
export interface IbanSaid {
  country: string;
  /** `country` with a name two letters share read either way (بي إس: BS or PS, Palestine); the first is `country`. */
  countries: string[];
  /** The check digits and the BBAN as said: digits, and the letters said among them. */
  rest: string;
  /**
   * `rest` read other ways, the most likely first (it is `rest`): a name two letters share read
   * either way (بي: B or P), and a word that is also a letter's name (أو) standing alone among
   * the digits where the format has a letter, read as that letter.
   */
  readings: string[];
}

/** Readings of the characters, at most this many in all (2⁴: four names read two ways). */
const MAX_READINGS = 16;

const letterOf = (word: string) => (/^[A-Za-z]$/.test(word) ? word.toUpperCase() : SPOKEN_LATIN.get(normalizeWord(word)));
const digitsIn = (chunk: string[]) => (chunk.length && parseDigits(chunk.join(' '))) || '';

/**
 * The readings of the words after the first digit: a letter's name is a character only where
 * `classes` (the IBAN's after its country: `ibanClasses`) has a letter, and one that is also a
 * word (أو) only in a run of names; alone, it is read as a letter second. Digits between the
 * letters are read by `parseDigits`.
 */
function readingsOf(words: string[], classes: string): string[] {
  const out: string[] = [];
  const walk = (i: number, done: string, chunk: string[]): void => {
    if (out.length >= MAX_READINGS) return;
    if (i === words.length) {
      out.push(done + digitsIn(chunk));
      return;
    }
    const word = words[i]!;
    const letters = letterOf(word);
    const skip = () => walk(i + 1, done, [...chunk, word]);
    if (!letters) return skip();
    const before = done + digitsIn(chunk);
    const take = () => [...letters].forEach((l) => walk(i + 1, before + l, []));
    if (!/[ac]/.test(classes[before.length] ?? '')) return skip();
    const inRun = [words[i - 1], words[i + 1]].some((w) => w !== undefined && letterOf(w) !== undefined);
    if (!WORD_TOO.has(normalizeWord(word)) || inRun) return take();
    skip();
    take();
  };
  walk(0, '', []);
  return out;
}

/**
 * The IBAN's characters in `text`, or undefined when no digit was said. Letters before the first
 * digit count only as the country's two, the last two said just before the digits ("الآيبان
 * إس إيه صفر ثلاثة…"); after it, a letter's name is a character where the country's BBAN
 * format has a letter (the country said, else `country`; any place after the check digits for a
 * country without a format). Digits without letters among them are read by `parseDigits` as one
 * number (a correction said in the same breath gives the digits after it).
 */
export function parseIbanSaid(text: string, country?: string): IbanSaid | undefined {
  // Latin written with digits ("IQ98NBIQ85…") comes apart into letters and numerals.
  const words = text.replace(/[A-Za-z]/g, ' $& ').split(/[\s،,؛;.:!?؟-]+/).filter(Boolean);
  let lead: string[] = [];
  const start = words.findIndex((w) => !letterOf(w) && parseDigits(w) !== undefined);
  if (start < 0) return undefined;
  for (const word of words.slice(0, start)) {
    const letter = letterOf(word);
    // A word between the letters and the digits ("إس إيه هو صفر…") keeps a country said whole.
    if (letter) lead.push(letter);
    else if (lead.length < 2) lead = [];
  }
  const [first, second] = lead.slice(-2);
  let countries = first && second ? [...first].flatMap((a) => [...second].map((b) => a + b)) : [''];
  // More letters than two: the last two when they are an IBAN country ("إيه، كيه دبليو…", a
  // Gulf "yes" before them), not the end of a word spelled ("IBAN 03…").
  if (lead.length > 2 && !countries.some((c) => IBAN_FORMATS[c])) countries = [''];
  const said = countries.find((c) => IBAN_FORMATS[c]);
  const format = said ? IBAN_FORMATS[said] : countries[0] ? undefined : IBAN_FORMATS[country ?? ''];
  const classes = format ? ibanClasses(format.bban) : `nn${'c'.repeat(30)}`;
  const readings = readingsOf(words.slice(start), classes);
  // No letter among the digits: the digits of the whole text, as parseDigits reads a number.
  if (!/[A-Z]/.test(readings[0]!)) readings[0] = parseDigits(text) ?? readings[0]!;
  return { country: countries[0]!, countries, rest: readings[0]!, readings };
}

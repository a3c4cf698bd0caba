/**
 * An IBAN as a caller says it: digits in words or numerals, the country's two letters by their
 * names before them or not at all, and the letters of a bank code inside the number by their
 * names (Iraq's `NBIQ`: `إن بي آي كيو`) or as the transcript writes them.
 */
import { parseDigits } from './parse-digits.ts';
import { LETTER_NAMES } from './references.ts';
import { normalizeWord } from './spoken-numbers.ts';

/** Latin letters by their Arabic names (إس → S, إيه → A); a name two letters share (بي: B and P) gives both. */
const SPOKEN_LATIN = new Map<string, string>();
for (const [letter, name] of Object.entries(LETTER_NAMES)) SPOKEN_LATIN.set(normalizeWord(name), (SPOKEN_LATIN.get(normalizeWord(name)) ?? '') + letter);

/** What was heard of an IBAN: the letters said before the digits (the country's, or ''), and the characters after them. */
export interface IbanSaid {
  country: string;
  /** `country` with a name two letters share read either way (بي إس: BS or PS, Palestine); the first is `country`. */
  countries: string[];
  /** The check digits and the BBAN as said: digits, and the letters said among them. */
  rest: string;
  /** `rest` with each letter whose name two letters share read either way (بي: B or P); the first is `rest`. */
  readings: string[];
}

/** Readings of a name two letters share, at most this many in all (2⁴: four such names). */
const MAX_READINGS = 16;

const letterOf = (word: string) => (/^[A-Za-z]$/.test(word) ? word.toUpperCase() : SPOKEN_LATIN.get(normalizeWord(word)));

/**
 * The IBAN's characters in `text`, or undefined when no digit was said. Letters before the first
 * digit count only as the country's two, said just before the digits ("الآيبان إس إيه صفر
 * ثلاثة…"); after it, every letter's name is a character of the number. Digits without letters
 * among them are read by `parseDigits` as one number (a correction said in the same breath
 * gives the digits after it).
 */
export function parseIbanSaid(text: string): IbanSaid | undefined {
  // Latin written with digits ("IQ98NBIQ85…") comes apart into letters and numerals.
  const words = text.replace(/[A-Za-z]/g, ' $& ').split(/[\s،,؛;.:!?؟-]+/).filter(Boolean);
  let lead: string[] = [];
  let readings = [''];
  let chunk: string[] = [];
  let started = false;
  let lettersInside = false;
  const add = (options: string[]) => {
    readings = readings.flatMap((r) => options.map((o) => r + o)).slice(0, MAX_READINGS);
  };
  const flush = () => {
    add([(chunk.length && parseDigits(chunk.join(' '))) || '']);
    chunk = [];
  };
  for (const word of words) {
    const letter = letterOf(word);
    if (letter && !started) lead.push(letter);
    else if (letter) {
      flush();
      add([...letter]);
      lettersInside = true;
    } else {
      // A word between the letters and the digits ("إس إيه هو صفر…") keeps a country said whole.
      if (!started && parseDigits(word) === undefined) lead = lead.length === 2 ? lead : [];
      else started = true;
      chunk.push(word);
    }
  }
  flush();
  if (!started) return undefined;
  const countries = lead.length === 2 ? [...lead[0]!].flatMap((a) => [...lead[1]!].map((b) => a + b)) : [''];
  const country = countries[0]!;
  if (lettersInside) return { country, countries, rest: readings[0]!, readings };
  const digits = parseDigits(text);
  return digits === undefined ? undefined : { country, countries, rest: digits, readings: [digits] };
}

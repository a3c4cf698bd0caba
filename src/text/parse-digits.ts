/**
 * `parseDigits`: the digits a caller said or the transcript wrote, as a string with its leading
 * zeros (phone numbers, IDs, IBAN digits, codes). Every number said counts for the digits it
 * writes: "صفر خمسة" is 05, "خمسة وعشرين" 25, "ميتين وخمسين" 250, "ألفين وخمسة" 2005; numerals in
 * any script are kept as written; "دبل خمسة" is 55. Other words ("رقمي هو", "يعني") are skipped;
 * after a correction ("لا"، "قصدي"…) the number said again replaces what came before it.
 */
import { restatedValue } from './correction.ts';
import { readSpoken } from './spoken-numbers.ts';

/** Nouns after a number that make it a count ("آخر أربعة أرقام"), not digits of the value. */
const COUNTED = new Set(['ارقام', 'رقم', 'خانات', 'خانه', 'حروف', 'digits']);

/**
 * The digits in `text` in the order said, or undefined when it holds no number. A caller who
 * corrects themselves ("خمسة خمسة صفر، لا قصدي خمسة ستة صفر") gives the digits after the correction.
 */
export function parseDigits(text: string): string | undefined {
  return restatedValue(text, digitsOf)?.value ?? digitsOf(text);
}

function digitsOf(text: string): string | undefined {
  let out = '';
  let repeat = 1;
  let found = false;
  const items = readSpoken(text);
  for (const [i, item] of items.entries()) {
    if (item.kind === 'repeat') {
      repeat = item.times;
      continue;
    }
    if (item.kind === 'word') continue;
    const next = items[i + 1];
    if (next?.kind === 'word' && COUNTED.has(next.word)) continue;
    // A fraction (نص، ربع) writes no digits.
    if (item.fraction || !Number.isInteger(item.value)) {
      repeat = 1;
      continue;
    }
    const digits = item.raw ?? String(item.value);
    // "دبل خمسة" repeats one digit; "دبل" before a longer number is read as said.
    out += digits.length === 1 ? digits.repeat(repeat) : digits;
    repeat = 1;
    found = true;
  }
  return found ? out : undefined;
}

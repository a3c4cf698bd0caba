/**
 * What a caller said, for a debug log line, with the numbers that could be a card, an account, an
 * ID, a phone number or a PIN hidden: a run of `DIGIT_REDACTION_DEFAULTS.minDigits` digits or
 * more, written in any script (٠-٩, ۰-۹, 0-9, spaced or dashed) or said as number words ("أربعة
 * واحد واحد واحد", read by the digits parser), becomes `[N digits]`. The keys a caller presses
 * are kept out of the log the same way (debug-log.ts); `SessionOptions.logKeys` shows both.
 */
import { parseDigits } from '../text/parse-digits.ts';
import { readSpoken } from '../text/spoken-numbers.ts';

export const DIGIT_REDACTION_DEFAULTS = {
  /**
   * Digits from which a run is hidden: 4 covers a PIN and every longer number (an OTP, a card, an
   * IBAN, an ID, a phone). A four-digit amount or year is hidden too: the price of not leaking a
   * PIN said aloud.
   */
  minDigits: 4,
} as const;

/** What a word of the turn is to a run of digits: part of it, a joiner between its parts ("و", "يعني"), or neither. */
function roleOf(word: string): 'number' | 'joiner' | 'other' {
  const items = readSpoken(word);
  if (!items.length) return 'joiner';
  return items.every((i) => i.kind === 'number' || i.kind === 'repeat') ? 'number' : 'other';
}

/** Any digits left in a run (a numeral glued to letters: "A41111111"), whatever the words around them. */
const DIGIT_RUN = /[0-9٠-٩۰-۹](?:[\s-]*[0-9٠-٩۰-۹])*/gu;

/** `text` with each run of at least `minDigits` digits replaced by `[N digits]`. */
export function redactDigitRuns(text: string, minDigits: number = DIGIT_REDACTION_DEFAULTS.minDigits): string {
  const parts = text.split(/(\s+)/);
  const out: string[] = [];
  let run: string[] = [];
  // The words after the run's last number word (joiners, spaces): kept if the run ends there.
  let tail: string[] = [];
  const flush = () => {
    if (run.length) {
      const digits = parseDigits(run.join('')) ?? '';
      // The punctuation around the run stays ("رقمي 0551234567." keeps its full stop).
      const before = /^[^\p{L}\p{N}]*/u.exec(run[0]!)![0];
      const after = /[^\p{L}\p{N}]*$/u.exec(run.at(-1)!)![0];
      if (digits.length >= minDigits) out.push(`${before}[${digits.length} digits]${after}`);
      else out.push(...run);
    }
    out.push(...tail);
    run = [];
    tail = [];
  };
  for (const part of parts) {
    if (!part) continue;
    const role = /^\s+$/.test(part) ? 'joiner' : roleOf(part);
    if (role === 'number') {
      run.push(...tail, part);
      tail = [];
    } else if (role === 'joiner' && run.length) tail.push(part);
    else {
      flush();
      out.push(part);
    }
  }
  flush();
  return out.join('').replace(DIGIT_RUN, (m) => {
    const n = m.replace(/[\s-]/g, '').length;
    return n >= minDigits ? `[${n} digits]` : m;
  });
}

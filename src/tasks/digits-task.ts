/**
 * `digitsTask`: a number the caller says or keys (phone, national ID / iqama, IBAN, card's last
 * four, one-time code, or your own), checked (length, checksum, format), read back in groups and
 * confirmed. The value is the digits as a string: a phone in E.164, an IBAN with its country.
 */
import { parseDigits } from '../text/parse-digits.ts';
import { bbanLetters, IBAN_FORMATS } from '../text/iban-formats.ts';
import { parseIbanSaid, type IbanSaid } from '../text/parse-iban.ts';
import { phoneMayBecome, phoneMayGoOn } from '../text/phone-prefix.ts';
import { readBackDigits, readBackIban, readBackPhone } from '../text/read-back.ts';
import { isValidIban, isValidSaudiId, normalizePhone, type PhoneCountry } from '../text/validate.ts';
import type { DigitsExpectation } from '../pipeline/turn-policy.ts';
import { confirmLoop, type Heard } from './confirm-loop.ts';
import { TASK_DEFAULTS, taskLines, type TaskOptions } from './defaults.ts';
import type { CollectTask } from './types.ts';

/** What kind of number is collected. */
export type DigitsKind = 'phone' | 'national_id' | 'iban' | 'card_last4' | 'otp' | 'custom';

/** Options of `digitsTask`. */
export interface DigitsTaskOptions extends TaskOptions {
  kind: DigitsKind;
  /** Exact number of digits (card_last4: 4; otp: 4–8 unless given; custom: any unless given). */
  length?: number;
  /** Your own check on the digits (after the kind's own); false → "invalid". */
  validate?: (digits: string) => boolean;
  /** Country of a local phone number (05… is Saudi or Emirati) and of an IBAN said without its letters. @default 'SA' */
  country?: PhoneCountry;
}

/** The kind's own check and the value kept (E.164 for a phone, the IBAN with its country). */
function checkDigits(kind: DigitsKind, digits: string, o: DigitsTaskOptions, letters = ''): string | undefined {
  if (o.length !== undefined && kind !== 'phone' && kind !== 'iban' && digits.length !== o.length) return undefined;
  switch (kind) {
    case 'phone': return normalizePhone(digits, o.country ?? 'SA');
    case 'national_id': return isValidSaudiId(digits) ? digits : undefined;
    case 'iban': {
      const iban = `${letters || o.country || 'SA'}${digits}`;
      return isValidIban(iban) ? iban : undefined;
    }
    case 'card_last4': return /^\d{4}$/.test(digits) ? digits : undefined;
    case 'otp': return o.length !== undefined || /^\d{4,8}$/.test(digits) ? digits : undefined;
    default: return digits;
  }
}

const ibanFormat = (o: DigitsTaskOptions) => IBAN_FORMATS[o.country ?? 'SA'] ?? IBAN_FORMATS.SA!;

/** When the digits said so far are the whole number (the turn policy holds a turn open until they are). */
function digitsExpected(kind: DigitsKind, o: DigitsTaskOptions): DigitsExpectation {
  if (o.length !== undefined && kind !== 'phone' && kind !== 'iban') return { length: o.length };
  switch (kind) {
    case 'phone': {
      const country = o.country ?? 'SA';
      return { complete: (d) => normalizePhone(d, country) !== undefined, mayGoOn: (d) => phoneMayGoOn(d, country), mayBecome: (d) => phoneMayBecome(d, country) };
    }
    // The characters said after the country's letters, counted against the length of the
    // country said (كي دبليو: Kuwait's 28), else of the task's: a letter said by name counts where
    // the country's BBAN has one (Iraq's bank code NBIQ, the letters a Qatari account may hold),
    // so such an IBAN closes on its last character rather than being held to the turn's limit.
    case 'iban': {
      const country = o.country ?? 'SA';
      let last: [string, IbanSaid | undefined] = ['', undefined];
      const said = (text: string) => (last[0] === text ? last[1] : (last = [text, parseIbanSaid(text, country)])[1]);
      const lengthOf = (text: string) => {
        const format = said(text)?.countries.map((c) => IBAN_FORMATS[c]).find(Boolean);
        return format && format.length - 2;
      };
      return { length: ibanFormat(o).length - 2, read: (text) => said(text)?.rest, lengthOf };
    }
    case 'national_id': return { length: 10 };
    case 'card_last4': return { length: 4 };
    case 'otp': return { min: 4 };
    default: return {};
  }
}

/** A task collecting one number, with its read-back and confirmation. */
export function digitsTask(options: DigitsTaskOptions): CollectTask<string> {
  const kind = options.kind;
  if (!['phone', 'national_id', 'iban', 'card_last4', 'otp', 'custom'].includes(kind)) throw new TypeError(`digitsTask: unknown kind "${String(kind)}"`);
  if (options.length !== undefined && !(Number.isInteger(options.length) && options.length > 0)) throw new RangeError(`digitsTask: length must be a positive whole number, got ${options.length}`);
  // An IBAN with letters after its country's (a bank code): keys cannot carry them, so the prompt
  // asks it said, and keys get a line that says why (not "wrong" again and again).
  const lettersUnkeyable = kind === 'iban' && bbanLetters(ibanFormat(options).bban) > 0;
  const lines = taskLines(kind, options);
  if (lettersUnkeyable && options.prompt === undefined && options.lines?.prompt === undefined) lines.prompt = TASK_DEFAULTS.lines.prompts.iban_letters;
  const check = (digits: string, letters?: string): Heard<string> => {
    const value = checkDigits(kind, digits, options, letters);
    if (value === undefined || (options.validate && !options.validate(value))) return { problem: 'invalid', heard: digits };
    return { value, heard: digits };
  };
  return confirmLoop<string>({
    name: `digits:${kind}`,
    expects: { digits: digitsExpected(kind, options) },
    lines,
    maxAttempts: options.maxAttempts,
    fromSpeech(text) {
      if (kind === 'iban') {
        const said = parseIbanSaid(text, options.country ?? 'SA');
        if (!said) return { problem: 'nothing' };
        // بي is B or P: the reading that passes the check.
        for (const country of said.countries) {
          const reading = said.readings.find((r) => checkDigits(kind, r, options, country) !== undefined);
          if (reading !== undefined) return check(reading, country);
        }
        return check(said.rest, said.country);
      }
      const digits = parseDigits(text);
      if (digits === undefined) return { problem: 'nothing' };
      return check(digits);
    },
    fromKeys(digits) {
      if (!/^\d+$/.test(digits)) return { problem: 'nothing' };
      const keyed = check(digits);
      return keyed.value === undefined && lettersUnkeyable ? { problem: 'invalid', heard: digits, say: lines.lettersNotKeyed ?? TASK_DEFAULTS.lines.lettersNotKeyed } : keyed;
    },
    readBack(value) {
      if (kind === 'phone') return readBackPhone(value);
      if (kind === 'iban') return readBackIban(value);
      return readBackDigits(value);
    },
  });
}

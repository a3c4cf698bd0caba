/**
 * Whether a mobile number said so far, already valid, may still be the beginning of a longer
 * one: a Somali mobile of eight digits that a ninth makes another, or a Tunisian caller's
 * "216 20 123…" (an international number said without its +) whose first eight digits are
 * already a Tunisian mobile. The phone task's turn then waits for the caller's pause instead
 * of closing on the digits. Sources: docs/arabic-parsing.md#validators.
 */
import { phoneNumbers } from './phone-numbers.ts';
import { normalizePhone, PHONE_COUNTRIES, type PhoneCountry } from './validate.ts';
import { asciiDigits } from './number-words.ts';

/** Continuations tried digit by digit: one and two more digits (110 numbers at most). */
const TRIED = [...Array.from({ length: 10 }, (_, i) => `${i}`), ...Array.from({ length: 100 }, (_, i) => `${i}`.padStart(2, '0'))];

/**
 * True when `digits` (a valid mobile under `country`, as `normalizePhone` reads it) and more
 * digits after them are also a valid mobile read the same way. One or two more digits are
 * tried; three or more only where the digits, read as a number of the caller's country, also
 * begin with a League country's calling code (every one starts with 2 or 9, ITU-T E.164 zones
 * 2 and 9) and that country has numbers of such a length (libphonenumber's possible lengths).
 */
export function phoneMayGoOn(digits: string, country: PhoneCountry = 'SA'): boolean {
  let d = asciiDigits(digits).replace(/[\s\-().]/g, '');
  if (d.startsWith('+')) d = `00${d.slice(1)}`;
  if (!/^\d+$/.test(d)) return false;
  if (TRIED.some((more) => normalizePhone(d + more, country) !== undefined)) return true;
  const international = d.replace(/^00/, '');
  if (!/^[29]/.test(international)) return false;
  const whole = normalizePhone(d, country);
  for (const c of PHONE_COUNTRIES) {
    const code = phoneNumbers().getCountryCallingCode(c);
    if (!international.startsWith(code)) continue;
    const rest = international.slice(code.length).replace(/^0/, '');
    // Already that country's number in full: lengths one or two longer were tried above.
    if (whole === `+${code}${rest}`) continue;
    // A length the country's numbers may have, three digits or more past what was said.
    for (let length = rest.length + 3; length <= 15 - code.length; length++) {
      if (phoneNumbers().validatePhoneNumberLength(`+${code}${rest.padEnd(length, '0')}`) === undefined) return true;
    }
  }
  return false;
}

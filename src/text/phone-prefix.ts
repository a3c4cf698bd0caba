/**
 * Whether a mobile number said so far, already valid, may still be the beginning of a longer
 * one: a Somali mobile of eight digits that a ninth makes another, or a Tunisian caller's
 * "216 20 123…" (an international number said without its +) whose first eight digits are
 * already a Tunisian mobile. The phone task's turn then waits for the caller's pause instead
 * of closing on the digits. Sources: docs/arabic-parsing.md#validators.
 */
import { phoneNumbers } from './phone-numbers.ts';
import { callingCode, normalizePhone, OWN_MOBILE, PHONE_COUNTRIES, type PhoneCountry } from './validate.ts';
import { asciiDigits } from './number-words.ts';

/** Continuations tried digit by digit: one and two more digits (110 numbers at most). */
const ONE_MORE = Array.from({ length: 10 }, (_, i) => `${i}`);
const TWO_MORE = Array.from({ length: 100 }, (_, i) => `${i}`.padStart(2, '0'));

/** Saudi, Emirati and Egyptian mobiles have one length (hiwar's own ranges: no library needed). */
const OWN_LENGTH: Partial<Record<PhoneCountry, number>> = { SA: 9, AE: 9, EG: 10 };
const longest = new Map<PhoneCountry, number>();

/** The longest national significant number a country's numbers may have (libphonenumber's possible lengths), read once. */
function longestNumber(country: PhoneCountry): number {
  const own = OWN_LENGTH[country];
  if (own) return own;
  let n = longest.get(country);
  if (n === undefined) {
    const code = callingCode(country);
    n = 15 - code.length;
    while (n > 1 && phoneNumbers().validatePhoneNumberLength(`+${code}${'5'.repeat(n)}`) !== undefined) n--;
    longest.set(country, n);
  }
  return n;
}

/**
 * True when `digits` (a valid mobile under `country`, as `normalizePhone` reads it) and more
 * digits after them are also a valid mobile read the same way. Only the readings with room for
 * more digits are tried (the national number shorter than the country's longest, or the digits
 * after a League calling code they begin with shorter than that country's): one or two more
 * digits against the ranges, three or more by the lengths alone. Every League code starts with
 * 2 or 9 (ITU-T E.164 zones 2 and 9), so a Saudi, Emirati or Egyptian caller's own number needs
 * no look-up at all.
 */
export function phoneMayGoOn(digits: string, country: PhoneCountry = 'SA'): boolean {
  let d = asciiDigits(digits).replace(/[\s\-().]/g, '');
  if (d.startsWith('+')) d = `00${d.slice(1)}`;
  if (!/^\d+$/.test(d)) return false;
  // How many more digits each reading has room for.
  const room: number[] = [];
  if (!d.startsWith('00')) room.push(longestNumber(country) - d.replace(/^0/, '').length);
  if (/^01\d{0,8}$/.test(d)) room.push(11 - d.length);
  const international = d.replace(/^00/, '');
  const whole = normalizePhone(d, country);
  if (/^[29]/.test(international)) {
    for (const c of PHONE_COUNTRIES) {
      const code = callingCode(c);
      if (!international.startsWith(code)) continue;
      const rest = international.slice(code.length).replace(/^0/, '');
      // Already that country's number in full: only one or two digits more could make another.
      const left = longestNumber(c) - rest.length;
      if (left >= 3 && whole !== `+${code}${rest}`) return true;
      room.push(left);
    }
  }
  const most = Math.max(0, ...room);
  if (most >= 1 && ONE_MORE.some((more) => normalizePhone(d + more, country) !== undefined)) return true;
  return most >= 2 && TWO_MORE.some((more) => normalizePhone(d + more, country) !== undefined);
}

/**
 * False when no digits added to `digits` can make a mobile `normalizePhone` reads under `country`
 * (a Saudi caller's "06…" or "0512345678 9"), decided without libphonenumber; true when they may,
 * or when only the library could tell (the beginning of another League country's number, or a
 * national number of a country hiwar has no ranges of its own for). The phone task's turn is not
 * held for more digits that cannot help.
 */
export function phoneMayBecome(digits: string, country: PhoneCountry = 'SA'): boolean {
  let d = asciiDigits(digits).replace(/[\s\-().]/g, '');
  if (d.startsWith('+')) d = `00${d.slice(1)}`;
  if (!/^\d*$/.test(d) || d.length > 15) return false;
  if (!d || d === '0' || d === '00') return true;
  const begun = (c: PhoneCountry, nsn: string) => OWN_MOBILE[c]?.begun.test(nsn) ?? true;
  // The national reading under the caller's country, and an Egyptian 01X whatever the country.
  if (!d.startsWith('00') && begun(country, d.replace(/^0/, ''))) return true;
  if (/^01/.test(d) && begun('EG', d.slice(1))) return true;
  // An international reading: a League code begun, or one said and its number begun after it.
  const international = d.replace(/^00/, '');
  return PHONE_COUNTRIES.some((c) => {
    const code = callingCode(c);
    if (code.startsWith(international)) return true;
    return international.startsWith(code) && begun(c, international.slice(code.length).replace(/^0/, ''));
  });
}

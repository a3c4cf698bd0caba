/**
 * Checks on the numbers callers give: Luhn (cards, Saudi IDs), IBAN mod 97 (ISO 13616), the Saudi
 * national ID / iqama, and mobile numbers of the Arab League's countries to E.164. Sources:
 * docs/arabic-parsing.md#validators.
 */
import { phoneNumbers } from './phone-numbers.ts';
import { asciiDigits } from './number-words.ts';
import { bbanPattern, IBAN_FORMATS } from './iban-formats.ts';

const digitsOnly = (s: string) => asciiDigits(s).replace(/[\s-]/g, '');

/** The Luhn check (ISO/IEC 7812-1): card numbers and the Saudi ID's last digit. */
export function luhn(digits: string): boolean {
  const d = digitsOnly(digits);
  if (!/^\d{2,}$/.test(d)) return false;
  let sum = 0;
  for (let i = 0; i < d.length; i++) {
    let v = Number(d[d.length - 1 - i]);
    if (i % 2 === 1) v = v * 2 > 9 ? v * 2 - 9 : v * 2;
    sum += v;
  }
  return sum % 10 === 0;
}

/** IBAN lengths of the Arab League's countries (`IBAN_FORMATS`); any other country: 15–34 characters. */
export const IBAN_LENGTHS: Readonly<Record<string, number>> = Object.fromEntries(Object.entries(IBAN_FORMATS).map(([c, f]) => [c, f.length]));

const BBAN_PATTERNS = new Map(Object.entries(IBAN_FORMATS).map(([c, f]) => [c, bbanPattern(f.bban)]));

/** The IBAN with spaces removed and letters upper-cased ("sa03 8000…" → "SA038000…"). */
export function normalizeIban(iban: string): string {
  return digitsOnly(iban).toUpperCase();
}

/**
 * An IBAN's length and BBAN format for its country (`IBAN_FORMATS`; letters only where the format
 * has them) and its mod-97 check (ISO 13616: the remainder is 1).
 */
export function isValidIban(iban: string): boolean {
  const s = normalizeIban(iban);
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(s)) return false;
  const bban = BBAN_PATTERNS.get(s.slice(0, 2));
  if (bban ? !bban.test(s.slice(4)) : s.length < 15 || s.length > 34) return false;
  const moved = s.slice(4) + s.slice(0, 4);
  let rest = 0;
  for (const ch of moved) {
    const v = /\d/.test(ch) ? ch : String(ch.charCodeAt(0) - 55);
    for (const d of v) rest = (rest * 10 + Number(d)) % 97;
  }
  return rest === 1;
}

/**
 * A Saudi national ID (starts with 1) or iqama (starts with 2): ten digits whose Luhn sum is a
 * multiple of ten (the digits in odd places from the left doubled, the doubled digits' own
 * digits added).
 */
export function isValidSaudiId(id: string): boolean {
  const d = digitsOnly(id);
  return /^[12]\d{9}$/.test(d) && luhn(d);
}

/** The Arab League's members (ISO 3166-1 alpha-2): the countries whose mobiles `normalizePhone` knows. */
export const PHONE_COUNTRIES = [
  'DZ', 'BH', 'KM', 'DJ', 'EG', 'IQ', 'JO', 'KW', 'LB', 'LY', 'MR', 'MA', 'OM', 'PS', 'QA', 'SA', 'SO', 'SD', 'SY', 'TN', 'AE', 'YE',
] as const;

/** Countries whose phone numbers `normalizePhone` knows. */
export type PhoneCountry = (typeof PHONE_COUNTRIES)[number];

/**
 * Saudi, Emirati and Egyptian mobiles by hiwar's own ranges, from the national plans: Saudi 5X
 * (CITC's ITU bulletin communication of 3.IX.2014 assigns 0570–0572 and 0576–0578 inside the 05X
 * block of nine-digit mobiles; libphonenumber leaves out 052, whose assignment we found in
 * secondary sources only), UAE 50/52/53/54/55/56/58 (TDRA
 * reserves 5X for mobiles; 053, Virgin Mobile UAE's, rests on secondary sources only: no TDRA
 * plan or ITU bulletin naming it was found), Egypt 10/11/12/15. These three never load the library.
 */
export const OWN_MOBILE: Partial<Record<PhoneCountry, { code: string; mobile: RegExp; begun: RegExp }>> = {
  // `begun`: the beginnings of such a number, the numbers themselves included (for the turn: docs/arabic-parsing.md).
  SA: { code: '966', mobile: /^5\d{8}$/, begun: /^(?:5\d{0,8})?$/ },
  AE: { code: '971', mobile: /^5[0234568]\d{7}$/, begun: /^(?:5(?:[0234568]\d{0,7})?)?$/ },
  EG: { code: '20', mobile: /^1[0125]\d{8}$/, begun: /^(?:1(?:[0125]\d{0,8})?)?$/ },
};

/**
 * The League's country calling codes (ITU-T E.164 assigned codes, "List of ITU-T Recommendation
 * E.164 assigned country codes", Annex to the ITU Operational Bulletin). Written here rather than
 * read from libphonenumber, so that a Saudi, Emirati or Egyptian caller's number, partial or
 * whole, never loads the library (its first use costs tens of milliseconds of CPU); the phone
 * tests check the table against the library's.
 */
export const CALLING_CODES: Readonly<Record<PhoneCountry, string>> = {
  DZ: '213', BH: '973', KM: '269', DJ: '253', EG: '20', IQ: '964', JO: '962', KW: '965', LB: '961', LY: '218', MR: '222',
  MA: '212', OM: '968', PS: '970', QA: '974', SA: '966', SO: '252', SD: '249', SY: '963', TN: '216', AE: '971', YE: '967',
};

/** A League country's calling code ('966'). */
export function callingCode(country: PhoneCountry): string {
  return CALLING_CODES[country];
}

/** A country's mobile in E.164 from its national significant number (no trunk 0), or undefined. */
function mobileE164(country: PhoneCountry, nsn: string): string | undefined {
  // These three without the library: a Saudi caller's national number never loads it.
  const own = OWN_MOBILE[country];
  if (own) return own.mobile.test(nsn) ? `+${own.code}${nsn}` : undefined;
  const code = callingCode(country);
  // The "mobile" metadata: a number is valid only if it is a mobile.
  const number = phoneNumbers().parsePhoneNumberFromString(`+${code}${nsn}`);
  return number?.country === country && number.nationalNumber === nsn && number.isValid() ? number.number : undefined;
}

/**
 * A mobile number of an Arab League country in E.164, from any way it is written or said: the
 * national form with or without its trunk 0 (05XXXXXXXX, 5XXXXXXXX; Kuwait's 5XXXXXXX), the
 * international one (+965 5…, 00965 5…, 965 5…; a 0 after the code is dropped), in Latin,
 * Arabic-Indic or Persian digits. A national number belongs to `country` (Saudi by default: the
 * UAE's 05X numbers have the same form); an international one to its code's country, whatever
 * `country` says; 01XXXXXXXXX is Egyptian whatever the default. Landlines, other countries and
 * numbers that fit none give undefined. Ranges: libphonenumber's (Google's metadata, bundled in
 * `libphonenumber-js`), and for SA/AE/EG `OWN_MOBILE`.
 */
export function normalizePhone(text: string, country: PhoneCountry = 'SA'): string | undefined {
  let d = asciiDigits(text).replace(/[\s\-().]/g, '');
  if (d.startsWith('+')) d = `00${d.slice(1)}`;
  if (!/^\d+$/.test(d)) return undefined;
  if (!d.startsWith('00')) {
    const national = mobileE164(country, d.replace(/^0/, ''));
    if (national) return national;
  }
  const international = d.replace(/^00/, '');
  for (const c of PHONE_COUNTRIES) {
    const code = callingCode(c);
    if (!international.startsWith(code)) continue;
    const found = mobileE164(c, international.slice(code.length).replace(/^0/, ''));
    if (found) return found;
  }
  if (/^01\d{9}$/.test(d)) return mobileE164('EG', d.slice(1));
  return undefined;
}

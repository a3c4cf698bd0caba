/**
 * Checks on the numbers callers give: Luhn (cards, Saudi IDs), IBAN mod 97 (ISO 13616), the Saudi
 * national ID / iqama, and phone numbers of Saudi Arabia, the UAE and Egypt to E.164. Sources:
 * docs/arabic-parsing.md#validators.
 */
import { asciiDigits } from './number-words.ts';

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

/** IBAN lengths of the countries callers here give most; any other country: 15–34 characters. */
export const IBAN_LENGTHS: Record<string, number> = { SA: 24, AE: 23, EG: 29, KW: 30, BH: 22, QA: 29, JO: 30, LB: 28, OM: 23 };

/** The IBAN with spaces removed and letters upper-cased ("sa03 8000…" → "SA038000…"). */
export function normalizeIban(iban: string): string {
  return digitsOnly(iban).toUpperCase();
}

/** An IBAN's length for its country and its mod-97 check (ISO 13616: the remainder is 1). */
export function isValidIban(iban: string): boolean {
  const s = normalizeIban(iban);
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]+$/.test(s)) return false;
  const expected = IBAN_LENGTHS[s.slice(0, 2)];
  if (expected ? s.length !== expected : s.length < 15 || s.length > 34) return false;
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

/** Countries whose phone numbers `normalizePhone` knows. */
export type PhoneCountry = 'SA' | 'AE' | 'EG';

const CODES: Record<PhoneCountry, string> = { SA: '966', AE: '971', EG: '20' };
/** National significant numbers of mobiles: Saudi 5X, UAE 50/52/54/55/56/58, Egypt 10/11/12/15. */
const MOBILE: Record<PhoneCountry, RegExp> = { SA: /^5\d{8}$/, AE: /^5[024568]\d{7}$/, EG: /^1[0125]\d{8}$/ };

/**
 * A mobile number in E.164 (+9665XXXXXXXX, +9715XXXXXXXX, +201XXXXXXXXX), from any way it is
 * written or said: 05XXXXXXXX, +966 5…, 00966 5…, 966 5…, 5XXXXXXXX; 01XXXXXXXXX is Egyptian
 * whatever the default (no Gulf number has that length). A local 05… number belongs to
 * `country` (Saudi by default: the UAE's 05X numbers have the same form). Undefined if none fits.
 */
export function normalizePhone(text: string, country: PhoneCountry = 'SA'): string | undefined {
  let d = asciiDigits(text).replace(/[\s\-().]/g, '');
  if (d.startsWith('+')) d = `00${d.slice(1)}`;
  if (!/^\d+$/.test(d)) return undefined;
  for (const [c, code] of Object.entries(CODES) as [PhoneCountry, string][]) {
    for (const prefix of [`00${code}`, code]) {
      if (d.startsWith(prefix)) {
        const rest = d.slice(prefix.length).replace(/^0/, '');
        if (MOBILE[c].test(rest)) return `+${code}${rest}`;
      }
    }
  }
  if (/^01\d{9}$/.test(d) && MOBILE.EG.test(d.slice(1))) return `+20${d.slice(1)}`;
  const national = d.replace(/^0/, '');
  return MOBILE[country].test(national) ? `+${CODES[country]}${national}` : undefined;
}
